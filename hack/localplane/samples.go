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

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/yamlprocessor"
	utilyaml "sigs.k8s.io/cluster-api/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	// sampleNamespace is where the sample clusters go.
	sampleNamespace = "default"
	// fieldOwner is the field manager of what the local plane applies.
	fieldOwner = "capzaso-localplane"
	// identityName and identitySecret are the AzureClusterIdentity the templates create and its Secret, which a
	// user creates (the simulated Azure takes any secret).
	identityName   = "cluster-identity"
	identitySecret = "cluster-identity-secret"
)

// sampleSettings are the values of the samples' clusterctl variables that the flags choose.
type sampleSettings struct {
	kubernetesVersion        string
	controlPlaneMachines     int
	workerMachines           int
	location, subscriptionID string
	// templatesDir holds the templates (templates/ of the repository).
	templatesDir string
	// asoClientSecret, when set, goes into the ASO credential Secrets of the samples (AZURE_CLIENT_SECRET): ASO's
	// own controllers then authenticate as a service principal, which a fake Azure accepts, instead of the
	// templates' workload identity, whose token file exists only in a pod.
	asoClientSecret string
}

// sample is a cluster rendered from a flavor's template.
type sample struct {
	flavor  string
	cluster string
	// objects are the template's objects, after those of the ClusterClass its Cluster uses, if the flavor is a
	// topology.
	objects []unstructured.Unstructured
}

// templateName is the file of a flavor in templates/, as clusterctl names it.
func templateName(flavor string) string {
	if flavor == "default" {
		flavor = ""
	}
	return yamlprocessor.NewSimpleProcessor().GetTemplateName("", flavor)
}

// sampleClusterName is the name of a flavor's sample cluster: capz-sample for the default flavor, <flavor>-sample
// for the others.
func sampleClusterName(flavor string) string {
	if flavor == "default" {
		return "capz-sample"
	}
	return flavor + "-sample"
}

// variables are the clusterctl variables of a sample cluster: what clusterctl generate cluster sets from its
// arguments, and the documented variables of the templates (templates/README.md), with simulated values.
func (s sampleSettings) variables(cluster string) map[string]string {
	return map[string]string{
		"CLUSTER_NAME":                            cluster,
		"NAMESPACE":                               sampleNamespace,
		"KUBERNETES_VERSION":                      s.kubernetesVersion,
		"CONTROL_PLANE_MACHINE_COUNT":             strconv.Itoa(s.controlPlaneMachines),
		"WORKER_MACHINE_COUNT":                    strconv.Itoa(s.workerMachines),
		"AZURE_LOCATION":                          s.location,
		"AZURE_SUBSCRIPTION_ID":                   s.subscriptionID,
		"AZURE_TENANT_ID":                         "00000000-0000-0000-0000-00000000000a",
		"AZURE_CLIENT_ID":                         "00000000-0000-0000-0000-00000000000b",
		"CLUSTER_IDENTITY_NAME":                   identityName,
		"AZURE_CLUSTER_IDENTITY_SECRET_NAME":      identitySecret,
		"AZURE_CLUSTER_IDENTITY_SECRET_NAMESPACE": sampleNamespace,
		"AZURE_CONTROL_PLANE_MACHINE_TYPE":        "Standard_D2s_v3",
		"AZURE_NODE_MACHINE_TYPE":                 "Standard_D2s_v3",
		"AZURE_EXTENDEDLOCATION_NAME":             "microsoftlosangeles1",
		"AZURE_SERVER_APP_ID":                     "00000000-0000-0000-0000-00000000000c",
		"FLATCAR_VERSION":                         "4230.2.3",
	}
}

// renderSample renders a flavor's template with clusterctl's variable processor, and the ClusterClass a topology
// flavor's Cluster uses (as clusterctl generate cluster adds it).
func (s sampleSettings) renderSample(flavor string) (*sample, error) {
	smp := &sample{flavor: flavor, cluster: sampleClusterName(flavor)}
	objs, err := s.render(templateName(flavor), smp.cluster)
	if err != nil {
		return nil, err
	}
	for _, obj := range objs {
		class, _, _ := unstructured.NestedString(obj.Object, "spec", "topology", "classRef", "name")
		if obj.GetKind() != "Cluster" || class == "" {
			continue
		}
		classObjs, err := s.render(yamlprocessor.NewSimpleProcessor().GetClusterClassTemplateName("", class), smp.cluster)
		if err != nil {
			return nil, err
		}
		for i := range classObjs {
			if classObjs[i].GetNamespace() == "" {
				classObjs[i].SetNamespace(sampleNamespace)
			}
		}
		smp.objects = append(smp.objects, classObjs...)
	}
	smp.objects = append(smp.objects, objs...)
	if s.asoClientSecret != "" {
		for i := range smp.objects {
			obj := &smp.objects[i]
			if _, isASOCredential, _ := unstructured.NestedString(obj.Object, "stringData", "AUTH_MODE"); obj.GetKind() == "Secret" && isASOCredential {
				if err := unstructured.SetNestedField(obj.Object, s.asoClientSecret, "stringData", "AZURE_CLIENT_SECRET"); err != nil {
					return nil, err
				}
			}
		}
	}
	return smp, nil
}

// render processes a template file of templates/ with the variables of cluster.
func (s sampleSettings) render(file, cluster string) ([]unstructured.Unstructured, error) {
	path := filepath.Join(s.templatesDir, file)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("there is no %s; the flavors are: %s", path, strings.Join(flavors(s.templatesDir), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the template: %w", err)
	}
	vars := s.variables(cluster)
	out, err := yamlprocessor.NewSimpleProcessor().Process(raw, func(name string) (string, error) {
		if v, ok := vars[name]; ok {
			return v, nil
		}
		return "", fmt.Errorf("variable %s is not set", name)
	})
	if err != nil {
		return nil, fmt.Errorf("failed to render %s: %w", path, err)
	}
	objs, err := utilyaml.ToUnstructured(out)
	if err != nil {
		return nil, fmt.Errorf("failed to parse %s: %w", path, err)
	}
	return objs, nil
}

// flavors lists the flavors of the templates in dir.
func flavors(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "cluster-template*.yaml"))
	out := make([]string, 0, len(files))
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "cluster-template"), ".yaml")
		if name == "" {
			name = "default"
		}
		out = append(out, strings.TrimPrefix(name, "-"))
	}
	return out
}

// applySamples applies the samples' objects with server-side apply, so that a run with --keep re-applies them
// unchanged, after the identity's Secret, which a user creates besides a template. Like every self-managed cluster
// applied to the plane, the samples get the simulated workload cluster's kubeconfig from kubeconfigHandout.
func applySamples(ctx context.Context, c client.Client, samples []*sample) error {
	identity := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: sampleNamespace, Name: identitySecret},
		Data:       map[string][]byte{"clientSecret": []byte("simulated-azure-takes-any-secret")},
	}
	if err := apply(ctx, c, identity); err != nil {
		return err
	}
	var errs []error
	for _, smp := range samples {
		for i := range smp.objects {
			if err := apply(ctx, c, &smp.objects[i]); err != nil {
				errs = append(errs, fmt.Errorf("flavor %s: %w", smp.flavor, err))
				break
			}
		}
	}
	return kerrors.NewAggregate(errs)
}

// apply server-side applies an object (with apiVersion and kind) as the local plane.
func apply(ctx context.Context, c client.Client, obj client.Object) error {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	content := &unstructured.Unstructured{Object: u}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(content), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("failed to apply %s %s: %w", content.GetKind(), client.ObjectKeyFromObject(content), err)
	}
	return nil
}
