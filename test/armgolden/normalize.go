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

package armgolden

import (
	"strings"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/test/armnorm"
)

// Placeholders of the values that change from run to run.
const (
	SubscriptionPlaceholder  = "${SUBSCRIPTION}"
	ClusterPlaceholder       = "${CLUSTER}"
	NamespacePlaceholder     = "${NAMESPACE}"
	MachinePlaceholder       = "${MACHINE}"
	DNSLabelPlaceholder      = "${APISERVER_DNS_LABEL}"
	FailureDomainPlaceholder = "${FAILURE_DOMAIN}"
)

// Names are the run's values that normalising replaces.
type Names struct {
	// Subscription, Cluster and Namespace are the cluster's.
	Subscription, Cluster, Namespace string
}

// apiServerDNSLabel is the default DNS label of the cluster's API server, whose resource group is named after the
// cluster in every flavor.
func (n Names) apiServerDNSLabel() string {
	return infrav1.APIServerDNSLabel(n.Subscription, n.Cluster, infrav1.APIServerPublicIPName(n.Cluster), n.Cluster)
}

// redactedKeys are the properties whose values are secret or random in every run: bootstrap data, passwords, SSH
// keys, the principals ARM assigns, and CAPZ's hash of a scale set's custom data.
var redactedKeys = map[string]bool{
	"customData": true, "adminPassword": true, "keyData": true, "principalId": true, "capz-custom-data-hash": true,
}

// Normalize returns a request body with the run's names replaced by placeholders (in values and keys: tags are
// named after the cluster), instance (a machine's VM name, if any) by MachinePlaceholder, secrets and random values
// redacted, protected settings' values redacted, and the agent pool profiles of a managed cluster sorted by name
// (ASO adds them in no fixed order). resourceType is the ARM type of the body's resource; a role assignment's name
// is a GUID of the run and is redacted, and a VM's zone is the failure domain Cluster API chose for its machine.
func Normalize(body map[string]any, names Names, instance, resourceType string) map[string]any {
	rules := armnorm.Rules{Field: redact, Text: names.replacer(instance).Replace, SortByName: []string{"agentPoolProfiles"}}
	out := rules.Value(body).(map[string]any)
	switch {
	case strings.EqualFold(resourceType, roleAssignmentType):
		if _, ok := out["name"]; ok {
			out["name"] = armnorm.Redacted
		}
	case strings.EqualFold(resourceType, "Microsoft.Compute/virtualMachines"):
		if zones, ok := out["zones"].([]any); ok {
			for i := range zones {
				zones[i] = FailureDomainPlaceholder
			}
		}
	}
	return out
}

// roleAssignmentType is the ARM type of role assignments, whose names are GUIDs of the run.
const roleAssignmentType = "Microsoft.Authorization/roleAssignments"

// NormalizeID normalises a resource ID as bodies are, the name of a role assignment redacted.
func (n Names) NormalizeID(id, instance string) string {
	id = n.replacer(instance).Replace(id)
	if strings.EqualFold(armnorm.ResourceType(id), roleAssignmentType) {
		id = id[:strings.LastIndex(id, "/")+1] + armnorm.Redacted
	}
	return id
}

// NormalizeName normalises a resource's name as its body is.
func (n Names) NormalizeName(name, instance string) string {
	return n.replacer(instance).Replace(name)
}

func (n Names) replacer(instance string) *strings.Replacer {
	var pairs []string
	if instance != "" {
		pairs = append(pairs, instance, MachinePlaceholder)
		// A Windows VM's computer name is its name shortened to 15 characters.
		if short := compute.ComputerName(instance, "Windows"); short != instance {
			pairs = append(pairs, short, MachinePlaceholder)
		}
	}
	if n.Cluster != "" {
		pairs = append(pairs, n.apiServerDNSLabel(), DNSLabelPlaceholder)
	}
	for _, p := range [][2]string{{n.Cluster, ClusterPlaceholder}, {n.Namespace, NamespacePlaceholder}, {n.Subscription, SubscriptionPlaceholder}} {
		if p[0] != "" {
			pairs = append(pairs, p[0], p[1])
			if lower := strings.ToLower(p[0]); lower != p[0] {
				pairs = append(pairs, lower, p[1])
			}
		}
	}
	return strings.NewReplacer(pairs...)
}

// redact redacts the fields in redactedKeys and the values of protected settings.
func redact(key string, _ any) armnorm.Action {
	switch {
	case redactedKeys[key]:
		return armnorm.Redact
	case key == "protectedSettings":
		return armnorm.RedactValues
	}
	return armnorm.Keep
}
