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
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// asoGroupSuffix marks the API groups of ASO kinds. The engine treats every ASO kind alike, and config/config_test.go
// checks that the role grants every kind of aso.Kinds() the same verbs: a verb the provider used on one ASO kind is
// used on all (the tests need not write a Disk to prove that the engine creates objects).
const asoGroupSuffix = ".azure.com"

// unreachable are grants the provider needs on a path the tests cannot take on purpose (a race they cannot order),
// so that the check does not depend on timing; each says why it is needed.
var unreachable = map[grant]string{
	{verb: "delete", group: "infrastructure.cluster.x-k8s.io", resource: "azuremachinepoolmachines"}: "the AzureMachinePool " +
		"controller deletes an instance it scales down directly when Cluster API has not made its Machine yet",
}

// role is the rules of one role; a Role (namespace set) applies in its namespace only.
type role struct {
	kind, name, namespace string
	rules                 []rbacv1.PolicyRule
}

// grant is one verb on one resource (resource[/subresource]) of a group, of one object when name is set.
type grant struct {
	verb, group, resource, name string
}

func (g grant) String() string {
	group := g.group
	if group == "" {
		group = "core"
	}
	s := g.verb + " " + group + "/" + g.resource
	if g.name != "" {
		s += " " + g.name
	}
	return s
}

// check returns what is wrong with the roles given the provider's requests: a wildcard, a request the API server
// denied (a missing rule), a grant no request used (an excessive rule).
func check(roles []role, usages []env.RBACUsage) []string {
	var problems []string
	denied := map[grant][]string{}
	// used holds, by namespace ("" for any other namespace and cluster-scoped objects), what was granted and used.
	used := map[string]sets.Set[grant]{}
	asoVerbs := sets.New[string]()
	use := func(namespace string, g grant) {
		if used[namespace] == nil {
			used[namespace] = sets.New[grant]()
		}
		used[namespace].Insert(g)
		if strings.HasSuffix(g.group, asoGroupSuffix) {
			asoVerbs.Insert(g.verb)
		}
	}
	for _, u := range usages {
		for _, r := range u.Requests {
			resource := r.Resource
			if r.Subresource != "" {
				resource += "/" + r.Subresource
			}
			g := grant{verb: r.Verb, group: r.APIGroup, resource: resource, name: r.Name}
			if r.Forbidden {
				denied[g] = append(denied[g], filepath.Base(u.Source))
				continue
			}
			use(r.Namespace, g)
			if r.Created {
				// Server-side apply that creates an object is authorized as a create as well.
				g.verb = "create"
				use(r.Namespace, g)
			}
		}
	}
	for g, sources := range denied {
		problems = append(problems, fmt.Sprintf("denied %s (in %s): a rule is missing", g, strings.Join(sets.List(sets.New(sources...)), ", ")))
	}

	for _, r := range roles {
		for _, rule := range r.rules {
			for _, field := range [][]string{rule.Verbs, rule.APIGroups, rule.Resources, rule.ResourceNames, rule.NonResourceURLs} {
				if slices.ContainsFunc(field, func(s string) bool { return strings.Contains(s, "*") }) {
					problems = append(problems, fmt.Sprintf("%s %s grants a wildcard: %+v", r.kind, r.name, rule))
				}
			}
			for _, g := range grantsOf(rule) {
				if !isUsed(g, r.namespace, used, asoVerbs) {
					problems = append(problems, fmt.Sprintf("%s %s grants %s, which the provider never used", r.kind, r.name, g))
				}
			}
		}
	}
	sort.Strings(problems)
	return problems
}

// grantsOf expands a rule into its grants. Non-resource rules are not requested by the provider (metrics-reader is
// for Prometheus) and expand to nothing.
func grantsOf(rule rbacv1.PolicyRule) []grant {
	names := rule.ResourceNames
	if len(names) == 0 {
		names = []string{""}
	}
	var out []grant
	for _, group := range rule.APIGroups {
		for _, resource := range rule.Resources {
			for _, verb := range rule.Verbs {
				for _, name := range names {
					out = append(out, grant{verb: verb, group: group, resource: resource, name: name})
				}
			}
		}
	}
	return out
}

// isUsed tells whether a request used a grant of a role in namespace ("" for a ClusterRole).
func isUsed(g grant, namespace string, used map[string]sets.Set[grant], asoVerbs sets.Set[string]) bool {
	if strings.HasSuffix(g.group, asoGroupSuffix) && asoVerbs.Has(g.verb) {
		return true
	}
	// Setting blockOwnerDeletion on an owner reference requires update on the owner's finalizers where the
	// OwnerReferencesPermissionEnforcement admission plugin runs (OpenShift); no request asks for it.
	if g.verb == "update" && strings.HasSuffix(g.resource, "/finalizers") {
		return true
	}
	if _, ok := unreachable[g]; ok {
		return true
	}
	verbs := impliedBy(g.verb)
	matches := func(set sets.Set[grant]) bool {
		for u := range set {
			if verbs.Has(u.verb) && u.group == g.group && u.resource == g.resource && (g.name == "" || u.name == g.name) {
				return true
			}
		}
		return false
	}
	if namespace != "" {
		return matches(used[namespace])
	}
	for _, set := range used {
		if matches(set) {
			return true
		}
	}
	return false
}

// impliedBy returns the verbs whose use shows that a granted verb is needed too. An informer's watch needs list (it
// lists first; with streaming lists the API server sends the list over the watch, and the audit log shows a watch
// only), and a get reveals nothing that list or watch does not: reads from the manager's cache never get, and a
// role that may list a resource gains nothing by being denied get on it.
func impliedBy(verb string) sets.Set[string] {
	switch verb {
	case "list":
		return sets.New("list", "watch")
	case "get":
		return sets.New("get", "list", "watch")
	}
	return sets.New(verb)
}
