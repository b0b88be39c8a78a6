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

package plane

import (
	"context"
	"os"
	"path/filepath"
	"runtime"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/yamlprocessor"
	utilyaml "sigs.k8s.io/cluster-api/util/yaml"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// Values of the flavors' variables in a plane (templates/README.md lists them).
const (
	identityName   = "cluster-identity"
	identitySecret = "cluster-identity-secret"
	// FakeClientSecret is the service principal secret of the flavors' identities; the fake Azure takes any.
	FakeClientSecret = "fake-azure-takes-any-secret"
)

// TemplatesDir is the repository's templates/ directory.
func TemplatesDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "templates")
}

// TemplateFile is the file of a flavor's template in templates/ (v1beta2), or of its form with Cluster API's
// v1beta1 kinds in templates/testdata/v1beta1.
func TemplateFile(flavor string, v1beta1 bool) string {
	name := "cluster-template-" + flavor + ".yaml"
	if flavor == "default" {
		name = "cluster-template.yaml"
	}
	if v1beta1 {
		return filepath.Join(TemplatesDir(), "testdata", "v1beta1", name)
	}
	return filepath.Join(TemplatesDir(), name)
}

// FlavorVars are the fixture's variables and those a user sets for the flavors: the identity (whose Secret
// ApplyFlavor creates), one control plane machine and one worker, the machines' sizes.
func (f *Fixture) FlavorVars() map[string]string {
	vars := map[string]string{
		"AZURE_TENANT_ID":                         "00000000-0000-0000-0000-00000000000a",
		"AZURE_CLIENT_ID":                         "00000000-0000-0000-0000-00000000000b",
		"CLUSTER_IDENTITY_NAME":                   identityName,
		"AZURE_CLUSTER_IDENTITY_SECRET_NAME":      identitySecret,
		"AZURE_CLUSTER_IDENTITY_SECRET_NAMESPACE": f.Namespace,
		"AZURE_CONTROL_PLANE_MACHINE_TYPE":        "Standard_D2s_v3",
		"AZURE_NODE_MACHINE_TYPE":                 "Standard_D4s_v3",
		"CONTROL_PLANE_MACHINE_COUNT":             "1",
		"WORKER_MACHINE_COUNT":                    "1",
	}
	for k, v := range f.Vars {
		vars[k] = v
	}
	return vars
}

// ApplyFlavor renders a flavor's template file (TemplateFile) with clusterctl's variable processor and the
// fixture's FlavorVars, as clusterctl generate cluster does, and creates its objects, after the identity's Secret
// that a user creates besides the template. The ASO credential Secret of an aks-aso flavor gets FakeClientSecret,
// so that ASO's own controllers authenticate with the fake Azure as a service principal.
func (f *Fixture) ApplyFlavor(ctx context.Context, g *WithT, file string) []*unstructured.Unstructured {
	raw, err := os.ReadFile(file)
	g.Expect(err).NotTo(HaveOccurred())
	vars := f.FlavorVars()
	out, err := yamlprocessor.NewSimpleProcessor().Process(raw, func(name string) (string, error) {
		return vars[name], nil
	})
	g.Expect(err).NotTo(HaveOccurred(), "rendering %s", file)
	objs, err := utilyaml.ToUnstructured(out)
	g.Expect(err).NotTo(HaveOccurred())
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: identitySecret},
		Data:       map[string][]byte{"clientSecret": []byte(FakeClientSecret)},
	}
	g.Expect(env.Env.Create(ctx, secret)).To(Succeed())
	var created []*unstructured.Unstructured
	for i := range objs {
		obj := objs[i].DeepCopy()
		if _, asoCredential, _ := unstructured.NestedString(obj.Object, "stringData", "AUTH_MODE"); obj.GetKind() == "Secret" && asoCredential {
			g.Expect(unstructured.SetNestedField(obj.Object, FakeClientSecret, "stringData", "AZURE_CLIENT_SECRET")).To(Succeed())
		}
		g.Expect(env.Env.Create(ctx, obj)).To(Succeed(), "%s %s", obj.GetKind(), obj.GetName())
		f.objects = append(f.objects, obj)
		created = append(created, obj)
	}
	return created
}
