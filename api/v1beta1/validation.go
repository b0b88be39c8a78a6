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
	"encoding/base64"
	"fmt"
	"net/netip"
	"regexp"
	"strings"

	"golang.org/x/crypto/ssh"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/capzaso/cluster-api-provider-azure/api/patch"
)

// Validators shared by the webhooks of the package. Each returns field errors naming the offending path.

// nameRule is an Azure naming rule for one resource type
// (https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules).
type nameRule struct {
	min, max int
	pattern  *regexp.Regexp
	describe string
}

var (
	resourceGroupNameRule = nameRule{1, 90, regexp.MustCompile(`^[-\w.()]*[-\w()]$`),
		"letters, digits, underscores, hyphens, periods and parentheses, not ending with a period"}
	vnetNameRule = nameRule{2, 64, regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9_])?$`),
		"letters, digits, underscores, periods and hyphens, starting with a letter or digit and ending with a letter, digit or underscore"}
	networkResourceNameRule = nameRule{1, 80, vnetNameRule.pattern, vnetNameRule.describe}
	dnsLabelRule            = nameRule{1, 63, regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`),
		"lowercase letters, digits and hyphens, starting with a letter and ending with a letter or digit"}
)

// validateName checks a name against a rule; an empty name is left to defaulting or required-field checks.
func validateName(path *field.Path, name string, rule nameRule) field.ErrorList {
	if name == "" {
		return nil
	}
	if len(name) < rule.min || len(name) > rule.max {
		return field.ErrorList{field.Invalid(path, name, fmt.Sprintf("must be %d to %d characters long", rule.min, rule.max))}
	}
	if !rule.pattern.MatchString(name) {
		return field.ErrorList{field.Invalid(path, name, "may contain only "+rule.describe)}
	}
	return nil
}

// validateDNSName checks a fully qualified DNS name whose first label becomes an Azure domain name label.
func validateDNSName(path *field.Path, name string) field.ErrorList {
	if name == "" {
		return nil
	}
	if len(name) > 253 {
		return field.ErrorList{field.Invalid(path, name, "must be at most 253 characters long")}
	}
	for _, label := range strings.Split(name, ".") {
		if errs := validateName(path, label, dnsLabelRule); len(errs) > 0 {
			return field.ErrorList{field.Invalid(path, name, "every label must be 1 to 63 "+dnsLabelRule.describe)}
		}
	}
	return nil
}

// parseCIDRs parses CIDR blocks, reporting each one that does not parse.
func parseCIDRs(path *field.Path, cidrs []string) ([]netip.Prefix, field.ErrorList) {
	var prefixes []netip.Prefix
	var errs field.ErrorList
	for i, cidr := range cidrs {
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			errs = append(errs, field.Invalid(path.Index(i), cidr, "invalid CIDR block"))
			continue
		}
		if p.Masked() != p {
			errs = append(errs, field.Invalid(path.Index(i), cidr, fmt.Sprintf("host bits are set; did you mean %s?", p.Masked())))
			continue
		}
		prefixes = append(prefixes, p)
	}
	return prefixes, errs
}

// labelledPrefix is a CIDR block with the path it came from, to name both sides of an overlap.
type labelledPrefix struct {
	path   *field.Path
	prefix netip.Prefix
}

// validateNoOverlap reports every pair of overlapping CIDR blocks.
func validateNoOverlap(prefixes []labelledPrefix) field.ErrorList {
	var errs field.ErrorList
	for i := range prefixes {
		for j := i + 1; j < len(prefixes); j++ {
			a, b := prefixes[i], prefixes[j]
			if a.prefix.Overlaps(b.prefix) {
				errs = append(errs, field.Invalid(b.path, b.prefix.String(),
					fmt.Sprintf("overlaps %s (%s)", a.prefix, a.path)))
			}
		}
	}
	return errs
}

// validateWithin reports CIDR blocks that are not inside any of the parent blocks.
func validateWithin(parents []netip.Prefix, prefixes []labelledPrefix, parentPath *field.Path) field.ErrorList {
	if len(parents) == 0 {
		return nil
	}
	var errs field.ErrorList
	for _, p := range prefixes {
		inside := false
		for _, parent := range parents {
			if parent.Bits() <= p.prefix.Bits() && parent.Contains(p.prefix.Addr()) {
				inside = true
				break
			}
		}
		if !inside {
			errs = append(errs, field.Invalid(p.path, p.prefix.String(), fmt.Sprintf("is not within the address space %s", parentPath)))
		}
	}
	return errs
}

// ValidateSSHPublicKey checks a base64-encoded OpenSSH public key.
func ValidateSSHPublicKey(path *field.Path, key string) field.ErrorList {
	if key == "" {
		return nil
	}
	decoded, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return field.ErrorList{field.Invalid(path, key, "must be a base64-encoded OpenSSH public key (base64 -w0 ~/.ssh/id_rsa.pub)")}
	}
	if _, _, _, _, err := ssh.ParseAuthorizedKey(decoded); err != nil {
		return field.ErrorList{field.Invalid(path, key, "is not an OpenSSH public key: "+err.Error())}
	}
	return nil
}

// ValidateASOPatches checks that every patch parses and leaves the identity of the objects alone.
func ValidateASOPatches(path *field.Path, patches []ASOPatch) field.ErrorList {
	var errs field.ErrorList
	for i, p := range patches {
		if p.Target.Kind == "Secret" || p.Target.Kind == "ConfigMap" {
			errs = append(errs, field.Invalid(path.Index(i).Child("target", "kind"), p.Target.Kind,
				"patches apply to ASO objects only; the Secrets the provider writes for them (kubeconfigs, passwords, extension settings) cannot be patched"))
		}
		if _, err := patch.Parse(patch.Format(p.Type), p.Patch); err != nil {
			errs = append(errs, field.Invalid(path.Index(i).Child("patch"), p.Patch, err.Error()))
		}
	}
	return errs
}

// validateMergePatches checks CAPZ-style merge patches given as plain JSON or YAML strings.
func validateMergePatches(path *field.Path, patches []string) field.ErrorList {
	var errs field.ErrorList
	for i, p := range patches {
		if _, err := patch.Parse(patch.Merge, p); err != nil {
			errs = append(errs, field.Invalid(path.Index(i), p, err.Error()))
		}
	}
	return errs
}

var guidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// validateGUID checks an Azure ID such as a subscription, tenant or client ID.
func validateGUID(path *field.Path, value string) field.ErrorList {
	if value == "" || guidPattern.MatchString(value) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, value, "must be a GUID such as 00000000-0000-0000-0000-000000000000")}
}

// validateIP checks an IP address.
func validateIP(path *field.Path, value string) field.ErrorList {
	if value == "" {
		return nil
	}
	if _, err := netip.ParseAddr(value); err != nil {
		return field.ErrorList{field.Invalid(path, value, "must be an IP address")}
	}
	return nil
}

// ValidateTags checks Azure's limits on tags: at most 50 per resource, keys up to 512 characters without
// < > % & \ ? /, values up to 256 characters.
func ValidateTags(path *field.Path, tags map[string]string) field.ErrorList {
	var errs field.ErrorList
	if len(tags) > 50 {
		errs = append(errs, field.TooMany(path, len(tags), 50))
	}
	for k, v := range tags {
		switch {
		case k == "" || len(k) > 512:
			errs = append(errs, field.Invalid(path.Key(k), k, "tag keys must be 1 to 512 characters long"))
		case strings.ContainsAny(k, `<>%&\?/`):
			errs = append(errs, field.Invalid(path.Key(k), k, `tag keys may not contain any of < > % & \ ? /`))
		}
		if len(v) > 256 {
			errs = append(errs, field.TooLong(path.Key(k), v, 256))
		}
	}
	return errs
}

// validateUniqueNames reports a name used twice in a list.
func validateUniqueNames(path *field.Path, names []string) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, n := range names {
		if n == "" {
			continue
		}
		if seen[n] {
			errs = append(errs, field.Duplicate(path.Index(i).Child("name"), n))
		}
		seen[n] = true
	}
	return errs
}

// validateIdentityRef checks a reference to an AzureClusterIdentity.
func validateIdentityRef(path *field.Path, ref *corev1.ObjectReference) field.ErrorList {
	if ref == nil {
		return nil
	}
	var errs field.ErrorList
	if ref.Kind != "" && ref.Kind != "AzureClusterIdentity" {
		errs = append(errs, field.NotSupported(path.Child("kind"), ref.Kind, []string{"AzureClusterIdentity"}))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), "the name of an AzureClusterIdentity"))
	}
	return errs
}
