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

package v1beta1

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestCRDCoverage checks that our CRDs accept every spec field of CAPZ v1beta1 (testdata/capz-fields.md, taken
// from CAPZ's published CRD schemas) with a compatible type, every CAPZ enum value, and CAPZ's defaults.
// Run "make crd-coverage" to see the per-kind coverage.
func TestCRDCoverage(t *testing.T) {
	g := NewWithT(t)
	inventory := readInventory(t, "testdata/capz-fields.md")
	schemas := readSchemas(t, "../../config/crd/bases")
	kinds := make([]string, 0, len(inventory))
	for kind := range inventory {
		kinds = append(kinds, kind)
	}
	sort.Strings(kinds)

	var problems []string
	total, covered := 0, 0
	for _, kind := range kinds {
		schema, ok := schemas[kind]
		if !ok {
			problems = append(problems, kind+": no CRD")
			continue
		}
		kindCovered := 0
		for _, f := range inventory[kind] {
			total++
			if problem := checkField(schema, f); problem != "" {
				problems = append(problems, fmt.Sprintf("%s %s: %s", kind, f.path, problem))
				continue
			}
			covered++
			kindCovered++
		}
		t.Logf("%-40s %4d/%-4d spec fields", kind, kindCovered, len(inventory[kind]))
	}
	t.Logf("total: %d/%d CAPZ spec fields accepted with a compatible type, enum and default", covered, total)
	g.Expect(total).To(BeNumerically(">", 1000), "the inventory should hold every CAPZ spec field")
	g.Expect(problems).To(BeEmpty())
}

// inventoryField is one line of the inventory: "spec.a.b[].c: type [required] [enum=x|y] [default=z] ...".
type inventoryField struct {
	path     string
	typ      string
	enum     []string
	defaults string
}

var inventoryHeading = regexp.MustCompile(`^## (\w+) `)

func readInventory(t *testing.T, file string) map[string][]inventoryField {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]inventoryField{}
	kind := ""
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if m := inventoryHeading.FindStringSubmatch(line); m != nil {
			kind = m[1]
			continue
		}
		if kind == "" || !strings.HasPrefix(line, "spec.") {
			continue
		}
		path, rest, _ := strings.Cut(line, ": ")
		tokens := strings.Fields(rest)
		field := inventoryField{path: path, typ: tokens[0]}
		for _, tok := range tokens[1:] {
			switch {
			case strings.HasPrefix(tok, "enum="):
				field.enum = strings.Split(strings.TrimPrefix(tok, "enum="), "|")
			case strings.HasPrefix(tok, "default="):
				field.defaults = strings.TrimPrefix(tok, "default=")
			}
		}
		out[kind] = append(out[kind], field)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func readSchemas(t *testing.T, dir string) map[string]*apiextensionsv1.JSONSchemaProps {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s (run make generate): %v", dir, err)
	}
	out := map[string]*apiextensionsv1.JSONSchemaProps{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(data, crd); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == "v1beta1" && v.Schema != nil {
				out[crd.Spec.Names.Kind] = v.Schema.OpenAPIV3Schema
			}
		}
	}
	return out
}

// checkField walks a path such as spec.a.b[].c through a schema and compares the field's shape.
func checkField(root *apiextensionsv1.JSONSchemaProps, f inventoryField) string {
	node := root
	for _, segment := range strings.Split(f.path, ".") {
		name, items := strings.CutSuffix(segment, "[]")
		child, ok := node.Properties[name]
		if !ok {
			if node.AdditionalProperties != nil && node.AdditionalProperties.Schema != nil {
				child = *node.AdditionalProperties.Schema
			} else {
				return "missing"
			}
		}
		node = &child
		if items {
			if node.Items == nil || node.Items.Schema == nil {
				return "not a list"
			}
			node = node.Items.Schema
		}
	}
	if got := schemaType(node); !compatible(f.typ, got) {
		return fmt.Sprintf("type %s, CAPZ has %s", got, f.typ)
	}
	if len(f.enum) > 0 && len(node.Enum) > 0 {
		accepted := map[string]bool{}
		for _, e := range node.Enum {
			var v any
			_ = json.Unmarshal(e.Raw, &v)
			accepted[fmt.Sprint(v)] = true
		}
		for _, e := range f.enum {
			if !accepted[e] {
				return fmt.Sprintf("enum value %q not accepted", e)
			}
		}
	}
	if f.defaults != "" {
		if node.Default == nil {
			return fmt.Sprintf("no default, CAPZ defaults to %s", f.defaults)
		}
		var v any
		_ = json.Unmarshal(node.Default.Raw, &v)
		got := fmt.Sprint(v)
		if b, isBool := v.(bool); isBool {
			got = strings.ToUpper(fmt.Sprint(b)[:1]) + fmt.Sprint(b)[1:]
		}
		if got != f.defaults {
			return fmt.Sprintf("default %s, CAPZ defaults to %s", got, f.defaults)
		}
	}
	return ""
}

func schemaType(s *apiextensionsv1.JSONSchemaProps) string {
	switch {
	case s.XIntOrString:
		return "int-or-string"
	case s.Type == "array" && s.Items != nil && s.Items.Schema != nil:
		return "[]" + schemaType(s.Items.Schema)
	case s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		return "map[string]" + schemaType(s.AdditionalProperties.Schema)
	case s.Type == "" && s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields:
		return "object"
	}
	return s.Type
}

func compatible(capz, ours string) bool {
	capz = strings.TrimSuffix(capz, "(date-time)")
	return capz == ours
}
