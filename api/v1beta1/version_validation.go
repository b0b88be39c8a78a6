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
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
)

// Kubernetes versions of managed control planes (AzureManagedControlPlane, AzureASOManagedControlPlane): their
// syntax, and how they may change. AKS upgrades a cluster one minor version at a time and never downgrades it.

// parseKubernetesVersion parses vX.Y.Z or X.Y.Z, optionally followed by a pre-release or build suffix.
func parseKubernetesVersion(v string) (*version.Version, error) {
	if strings.TrimSpace(v) != v {
		return nil, fmt.Errorf("version %q has surrounding spaces", v)
	}
	return version.ParseSemantic(v)
}

// validateKubernetesVersion checks the syntax of a Kubernetes version; an empty version is left to the caller.
func validateKubernetesVersion(path *field.Path, v string) field.ErrorList {
	if v == "" {
		return nil
	}
	if _, err := parseKubernetesVersion(v); err != nil {
		return field.ErrorList{field.Invalid(path, v, "must be a Kubernetes version vX.Y.Z, such as v1.33.2")}
	}
	return nil
}

// validateVersionUpgrade checks a change of version: the new version may not be older than the old one, nor than
// the version AKS auto-upgraded the cluster to (autoUpgraded, may be empty), and it may move at most one minor
// version past the newer of the two. An unchanged version is always accepted.
func validateVersionUpgrade(path *field.Path, oldVersion, newVersion, autoUpgraded string) field.ErrorList {
	if oldVersion == newVersion || oldVersion == "" || newVersion == "" {
		return nil
	}
	next, err := parseKubernetesVersion(newVersion)
	if err != nil {
		return nil // reported by validateKubernetesVersion
	}
	running, err := parseKubernetesVersion(oldVersion)
	if err != nil {
		return nil // an invalid old version must not block its own correction
	}
	from := "the current version " + oldVersion
	if auto, err := parseKubernetesVersion(autoUpgraded); err == nil && auto.GreaterThan(running) {
		running = auto
		from = "the version AKS auto-upgraded the cluster to, " + autoUpgraded
	}
	if next.LessThan(running) {
		return field.ErrorList{field.Invalid(path, newVersion, "cannot be downgraded from "+from)}
	}
	if next.Major() != running.Major() || next.Minor() > running.Minor()+1 {
		return field.ErrorList{field.Invalid(path, newVersion, fmt.Sprintf(
			"AKS upgrades one minor version at a time: from %s, upgrade to v%d.%d first",
			from, running.Major(), running.Minor()+1))}
	}
	return nil
}
