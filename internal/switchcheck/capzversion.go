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

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterctlv1 "sigs.k8s.io/cluster-api/cmd/clusterctl/api/v1alpha3"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CAPZVersion is the one CAPZ release the switch is tried from (docs/migrating-from-capz.md, "Before you start",
// step 1).
const CAPZVersion = "v1.26.0"

// checkCAPZVersion reports an infrastructure provider azure that clusterctl's inventory records at another version
// than CAPZVersion: the switch is tried from that release only. A management cluster without clusterctl's inventory
// (its Provider CRD), or without an azure provider in it, gives no finding. Providers are read in every namespace.
func checkCAPZVersion(ctx context.Context, c client.Reader, _ Options) ([]Finding, error) {
	providers := &unstructured.UnstructuredList{}
	providers.SetGroupVersionKind(clusterctlv1.GroupVersion.WithKind("ProviderList"))
	found, err := list(ctx, c, Options{}, providers)
	if err != nil || !found {
		return nil, err
	}
	var findings []Finding
	for i := range providers.Items {
		p := &providers.Items[i]
		name, _, _ := unstructured.NestedString(p.Object, "providerName")
		kind, _, _ := unstructured.NestedString(p.Object, "type")
		version, _, _ := unstructured.NestedString(p.Object, "version")
		if name != "azure" || kind != string(clusterctlv1.InfrastructureProviderType) || version == CAPZVersion {
			continue
		}
		findings = append(findings, Finding{
			Severity: Block, Check: CheckCAPZVersion, Object: objectName("Provider", p),
			Message: fmt.Sprintf("clusterctl records the infrastructure provider azure at %s: the switch is tried from CAPZ %s "+
				"only. Upgrade CAPZ first (clusterctl upgrade apply --infrastructure %s/azure:%s), or, if this is the provider "+
				"already, there is nothing to switch (docs/migrating-from-capz.md, Before you start, step 1)",
				version, CAPZVersion, p.GetNamespace(), CAPZVersion),
		})
	}
	return findings, nil
}
