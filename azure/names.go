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

package azure

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// maxObjectName is the longest Kubernetes object name (a DNS subdomain).
const maxObjectName = 253

var invalidNameChars = regexp.MustCompile(`[^a-z0-9.-]+`)

// ObjectName returns the Kubernetes name of the ASO object for an Azure resource: the Azure name, or, for a child
// resource whose Azure name is only unique within its parent, "<parent>-<name>". Azure names may hold what
// Kubernetes names may not (upper case, underscores, a period next to a hyphen or another period); those are
// lower-cased, replaced or dropped, and a short hash keeps names that differ only by them apart. The ASO object's
// spec.azureName always carries the exact Azure name.
func ObjectName(parts ...string) string {
	joined := strings.Join(parts, "-")
	name := kubernetesName(joined)
	if name == joined && len(name) <= maxObjectName {
		return name
	}
	sum := sha256.Sum256([]byte(joined))
	hash := hex.EncodeToString(sum[:4])
	if name == "" {
		return hash
	}
	if len(name) > maxObjectName-len(hash)-1 {
		name = kubernetesName(name[:maxObjectName-len(hash)-1])
	}
	return name + "-" + hash
}

// kubernetesName makes a DNS subdomain of a name: lower case, hyphens for characters a subdomain may not hold, and
// no empty labels or labels that start or end with a hyphen.
func kubernetesName(s string) string {
	labels := strings.Split(invalidNameChars.ReplaceAllString(strings.ToLower(s), "-"), ".")
	out := labels[:0]
	for _, label := range labels {
		if label = strings.Trim(label, "-"); label != "" {
			out = append(out, label)
		}
	}
	return strings.Join(out, ".")
}
