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
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// convertCRDs points the conversion of the multi-version CRDs among crds that match at the conversion webhook at url
// (trusted through caBundle), as the release of their project does (Cluster API's, ASO's), and waits until the API
// server serves them again.
func convertCRDs(ctx context.Context, cfg *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition, match func(*apiextensionsv1.CustomResourceDefinition) bool, url string, caBundle []byte) error {
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	var converted []*apiextensionsv1.CustomResourceDefinition
	for _, crd := range crds {
		if !match(crd) || len(crd.Spec.Versions) < 2 {
			continue
		}
		live := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: crd.Name}, live); err != nil {
			return fmt.Errorf("failed to get CRD %s: %w", crd.Name, err)
		}
		setConversionWebhook(live, url, caBundle)
		if err := c.Update(ctx, live); err != nil {
			return fmt.Errorf("failed to set the conversion of CRD %s: %w", crd.Name, err)
		}
		converted = append(converted, live)
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, startTimeout, true, func(ctx context.Context) (bool, error) {
		for _, crd := range converted {
			live := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKey{Name: crd.Name}, live); err != nil || !apihelpers.IsCRDConditionTrue(live, apiextensionsv1.Established) {
				return false, nil
			}
		}
		return true, nil
	})
}

// setConversionWebhook makes the API server convert the versions of crd with the conversion webhook at url.
func setConversionWebhook(crd *apiextensionsv1.CustomResourceDefinition, url string, caBundle []byte) {
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{
			ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
			ConversionReviewVersions: []string{"v1"},
		},
	}
}
