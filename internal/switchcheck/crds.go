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

package switchcheck

import (
	"context"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// checkCRDVersions reports the CRDs of the provider's kinds that have stored objects in another version than
// v1beta1, the one version the provider serves: the API server refuses to replace a CRD with one that drops a
// version of its status.storedVersions, so `clusterctl init` would fail (docs/migrating-from-capz.md, "Before you
// start", step 2). CRDs of other providers of the group (DockerCluster, ...) are not the switch's.
func checkCRDVersions(ctx context.Context, c client.Reader, _ Options) ([]Finding, error) {
	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := c.List(ctx, crds); err != nil {
		return nil, fmt.Errorf("failed to list CRDs: %w", err)
	}
	var findings []Finding
	for i := range crds.Items {
		crd := &crds.Items[i]
		if !isProviderKind(crd.Spec.Group, crd.Spec.Names.Kind) {
			continue
		}
		var others []string
		for _, v := range crd.Status.StoredVersions {
			if v != infrav1.GroupVersion.Version {
				others = append(others, v)
			}
		}
		if len(others) == 0 {
			continue
		}
		findings = append(findings, Finding{
			Severity: Block, Check: CheckCRDVersions, Object: objectName("CustomResourceDefinition", crd),
			Message: fmt.Sprintf("status.storedVersions lists %s (all: %s): the provider serves %s only, and the API "+
				"server refuses a CRD that drops a stored version, so clusterctl init would fail. Rewrite every %s in %s "+
				"(read and write each one back), then remove %s from the CRD's status.storedVersions "+
				"(docs/migrating-from-capz.md, Before you start, step 2)",
				strings.Join(others, ", "), strings.Join(crd.Status.StoredVersions, ", "), infrav1.GroupVersion.Version,
				crd.Spec.Names.Kind, infrav1.GroupVersion.Version, strings.Join(others, ", ")),
		})
	}
	return findings, nil
}
