/*
Copyright 2026 The Cluster API Provider Azure ASO Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package fuzzing

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// infraAPIVersion is the API version of the provider's kinds.
const infraAPIVersion = "infrastructure.cluster.x-k8s.io/v1beta1"

// Root is the repository's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// flavorVariables are values for the variables of the flavors (clusterctl's envsubst syntax).
var flavorVariables = map[string]string{
	"CLUSTER_NAME":                            "fuzz",
	"NAMESPACE":                               "default",
	"KUBERNETES_VERSION":                      "v1.33.2",
	"AZURE_LOCATION":                          "eastus",
	"CLUSTER_IDENTITY_NAME":                   "cluster-identity",
	"AZURE_TENANT_ID":                         "00000000-0000-0000-0000-000000000002",
	"AZURE_SUBSCRIPTION_ID":                   "00000000-0000-0000-0000-000000000001",
	"AZURE_CLIENT_ID":                         "00000000-0000-0000-0000-000000000003",
	"AZURE_NODE_MACHINE_TYPE":                 "Standard_D2s_v3",
	"AZURE_CONTROL_PLANE_MACHINE_TYPE":        "Standard_D2s_v3",
	"WORKER_MACHINE_COUNT":                    "2",
	"CONTROL_PLANE_MACHINE_COUNT":             "1",
	"AZURE_CLUSTER_IDENTITY_SECRET_NAME":      "cluster-identity-secret",
	"AZURE_CLUSTER_IDENTITY_SECRET_NAMESPACE": "default",
	"AZURE_EXTENDEDLOCATION_NAME":             "microsoftlosangeles1",
}

// Manifests reads the provider's objects from the samples (config/samples) and the flavors (templates/*.yaml),
// with the flavors' variables set, and returns them as JSON by kind. They seed the fuzz targets.
func Manifests(tb testing.TB) map[string][][]byte {
	tb.Helper()
	var files []string
	for _, pattern := range []string{"config/samples/*.yaml", "templates/*.yaml"} {
		matches, err := filepath.Glob(filepath.Join(Root(), pattern))
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, matches...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		tb.Fatalf("no samples or flavors under %s", Root())
	}
	out := map[string][][]byte{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		data = []byte(expandVariables(string(data)))
		reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				tb.Fatalf("%s: %v", file, err)
			}
			var obj map[string]any
			if err := yaml.Unmarshal(doc, &obj); err != nil || obj["apiVersion"] != infraAPIVersion {
				continue
			}
			kind, _ := obj["kind"].(string)
			data, err := yaml.YAMLToJSON(doc)
			if err != nil {
				tb.Fatalf("%s: %v", file, err)
			}
			out[kind] = append(out[kind], data)
		}
	}
	return out
}

// variable is a clusterctl variable without nested variables: ${NAME} or ${NAME:=default}.
var variable = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)(:=([^${}]*))?\}`)

// expandVariables sets the variables of a flavor, innermost first: a known value, the default, or "x".
func expandVariables(text string) string {
	for {
		expanded := variable.ReplaceAllStringFunc(text, func(v string) string {
			m := variable.FindStringSubmatch(v)
			if value, ok := flavorVariables[m[1]]; ok {
				return value
			}
			if m[2] != "" {
				return m[3]
			}
			return "x"
		})
		if expanded == text {
			return text
		}
		text = expanded
	}
}
