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

package env

import (
	"context"
	"fmt"
	"path/filepath"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Cluster API's webhook manifests, relative to its module, and the prefix of their names here: each provider names
// its configurations mutating-webhook-configuration and validating-webhook-configuration, as ours does, and a
// real installation prefixes them (capi-, capi-kubeadm-bootstrap-, ...).
var clusterAPIWebhookManifests = map[string]string{
	"capi-":                       filepath.Join("core", "config", "webhook", "manifests.yaml"),
	"capi-kubeadm-bootstrap-":     filepath.Join("bootstrap", "kubeadm", "config", "webhook", "manifests.yaml"),
	"capi-kubeadm-control-plane-": filepath.Join("controlplane", "kubeadm", "config", "webhook", "manifests.yaml"),
}

// clusterAPIGroups are the API groups whose multi-version CRDs Cluster API's conversion webhooks serve.
var clusterAPIGroups = map[string]bool{
	"cluster.x-k8s.io": true, "bootstrap.cluster.x-k8s.io": true, "controlplane.cluster.x-k8s.io": true,
	"addons.cluster.x-k8s.io": true, "ipam.cluster.x-k8s.io": true, "runtime.cluster.x-k8s.io": true,
}

// clusterAPIWebhookConfigurations reads Cluster API's webhook configurations from its module, with their names
// prefixed as in a real installation; envtest points them at the local webhook server.
func clusterAPIWebhookConfigurations(capiDir string) ([]*admissionv1.MutatingWebhookConfiguration, []*admissionv1.ValidatingWebhookConfiguration, error) {
	var mutating []*admissionv1.MutatingWebhookConfiguration
	var validating []*admissionv1.ValidatingWebhookConfiguration
	for prefix, file := range clusterAPIWebhookManifests {
		m, v, err := readWebhookConfigurations(filepath.Join(capiDir, file), prefix)
		if err != nil {
			return nil, nil, fmt.Errorf("failed to read Cluster API's webhooks: %w", err)
		}
		mutating, validating = append(mutating, m...), append(validating, v...)
	}
	return mutating, validating, nil
}

// convertClusterAPICRDs points the conversion of Cluster API's multi-version CRDs at the local webhook server, where
// Cluster API's conversion webhooks run (test/capiplane.Webhooks), as Cluster API's release does.
func convertClusterAPICRDs(ctx context.Context, cfg *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition, webhooks envtest.WebhookInstallOptions) error {
	url := fmt.Sprintf("https://%s:%d/convert", webhooks.LocalServingHost, webhooks.LocalServingPort)
	isClusterAPI := func(crd *apiextensionsv1.CustomResourceDefinition) bool { return clusterAPIGroups[crd.Spec.Group] }
	return convertCRDs(ctx, cfg, crds, isClusterAPI, url, webhooks.LocalServingCAData)
}
