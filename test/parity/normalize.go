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

package parity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/capzaso/cluster-api-provider-azure/test/armnorm"
	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// Request is one ARM request as the fake received it, and the status it answered.
type Request struct {
	Method string
	// Path is the request's URL path (an ARM ID for a write).
	Path       string
	APIVersion string `json:",omitempty"`
	Status     int    `json:",omitempty"`
	Body       []byte
}

// Write is a normalized write (PUT, PATCH, DELETE or POST): the resource it is to, its body, its api-version and the
// status Azure answered.
type Write struct {
	Resource   Resource
	Body       map[string]any
	APIVersion string
	Status     int
}

// GUIDPlaceholder is what replaces the n-th GUID a side generated (a role assignment's name, an identity's
// principal), counted from 1 by first appearance in the side's requests: <guid-1>, <guid-2>, …
func GUIDPlaceholder(n int) string { return fmt.Sprintf("<guid-%d>", n) }

// capzCommunityGallery is the GUID in the name of CAPZ's community gallery of reference images
// (ClusterAPI-<guid>, azure/defaults.go DefaultPublicGalleryName): a constant, compared as it is.
const capzCommunityGallery = "f72ceb4f-5159-4c26-a0fe-2ea738f0d019"

// secretKeys are body fields whose values are secrets, or bootstrap data that holds them (tokens, certificates),
// or are derived from them (the capz-custom-data-hash tag of a scale set: the hash of its custom data): only their
// presence is compared.
var secretKeys = map[string]bool{
	"customdata": true, "adminpassword": true, "protectedsettings": true, "clientsecret": true, "secret": true, "password": true,
	"capz-custom-data-hash": true,
}

// computedKeys are fields a client may echo from what it read (CAPZ's services start a PUT from the resource they
// GET) and that ARM ignores in a request, because Azure computes them.
var computedKeys = map[string]bool{"etag": true, "provisioningstate": true, "resourceguid": true}

// topLevelKeys are the body fields that only repeat the request's URL.
var topLevelKeys = map[string]bool{"id": true, "name": true, "type": true}

var guidPattern = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// Normalizer makes the writes of two runs comparable.
type Normalizer struct {
	// Names are generated names (a Machine's, which ends in random characters) and what replaces them, e.g.
	// "pdef-control-plane-x7k2p" → "${CLUSTER_NAME}-control-plane-*". Every occurrence in IDs, keys and values is
	// replaced, the longest name first.
	Names map[string]string
	// KeepGUIDs are the GUIDs that mean the same on both sides (the subscription, the tenant, built-in role
	// definitions, CAPZ's community gallery); every other GUID becomes a GUIDPlaceholder, or a placeholder that says
	// what it is (see learnMeanings).
	KeepGUIDs []string
	// Earlier are the side's requests before those normalized (its earlier phases): the GUIDs they give a meaning
	// keep it (a role assignment deleted with the Cluster was created with its machine).
	Earlier []Request
}

// writeMethods are the methods of the requests compared: every request that may change Azure.
var writeMethods = map[string]bool{"PUT": true, "PATCH": true, "DELETE": true, "POST": true}

// Writes normalizes the writes (PUT, PATCH, DELETE, POST) of one side, in the order it sent them; reads are left
// out. GUIDs are numbered by first appearance in that order. A body that is not JSON is an error.
func (n Normalizer) Writes(requests []Request) ([]Write, error) {
	r := n.replacer()
	r.learnMeanings(append(slices.Clone(n.Earlier), requests...))
	var out []Write
	var errs []error
	for _, req := range requests {
		if !writeMethods[req.Method] {
			continue
		}
		path, err := url.PathUnescape(req.Path)
		if err != nil {
			path = req.Path
		}
		id := r.text(strings.ToLower(strings.TrimRight(path, "/")))
		w := Write{Resource: Resource{Method: req.Method, Type: armnorm.ResourceType(path), ID: id}, Body: map[string]any{},
			APIVersion: req.APIVersion, Status: req.Status}
		if len(bytes.TrimSpace(req.Body)) > 0 {
			dec := json.NewDecoder(bytes.NewReader(req.Body))
			dec.UseNumber()
			var body map[string]any
			if err := dec.Decode(&body); err != nil {
				errs = append(errs, fmt.Errorf("the body of %s %s is not a JSON object: %w", req.Method, req.Path, err))
				continue
			}
			for k := range body {
				if topLevelKeys[strings.ToLower(k)] {
					delete(body, k)
				}
			}
			w.Body, _ = r.rules().Value(body).(map[string]any)
		}
		if w.Resource.Method == "PUT" {
			dropEmpty(w.Body)
			out = append(out, explodeChildren(&w)...)
		}
		out = append(out, w)
	}
	return out, errors.Join(errs...)
}

// inlineChildren are the child collections that a client may write inline in its parent's PUT (CAPZ's services do)
// or as child resources of their own (ASO does): by parent type (lower case), the child type and the body's list.
var inlineChildren = map[string]struct{ childType, list string }{
	"microsoft.network/networksecuritygroups": {"securityRules", "securityRules"},
	"microsoft.network/routetables":           {"routes", "routes"},
	"microsoft.network/loadbalancers":         {"inboundNatRules", "inboundNatRules"},
}

// explodeChildren takes a parent's inline children out of its body and returns them as the PUTs of the child
// resources they create, so that a rule written inline compares with one written on its own.
func explodeChildren(w *Write) []Write {
	c, ok := inlineChildren[strings.ToLower(w.Resource.Type)]
	if !ok {
		return nil
	}
	props, _ := w.Body["properties"].(map[string]any)
	items, _ := props[c.list].([]any)
	if len(items) == 0 {
		return nil
	}
	delete(props, c.list)
	if len(props) == 0 {
		delete(w.Body, "properties")
	}
	var out []Write
	for _, item := range items {
		m, _ := item.(map[string]any)
		name, _ := m["name"].(string)
		if name == "" {
			continue
		}
		body := map[string]any{}
		for k, v := range m {
			if !topLevelKeys[strings.ToLower(k)] {
				body[k] = v
			}
		}
		// A child written inline is written with its parent: the parent's api-version and status.
		out = append(out, Write{
			Resource:   Resource{Method: "PUT", Type: w.Resource.Type + "/" + c.childType, ID: w.Resource.ID + "/" + strings.ToLower(c.childType) + "/" + strings.ToLower(name)},
			Body:       body,
			APIVersion: w.APIVersion,
			Status:     w.Status,
		})
	}
	return out
}

// dropEmpty removes empty objects and lists from a PUT's body, deepest first: a PUT replaces the whole resource, so
// an empty list or object means what its absence means.
func dropEmpty(m map[string]any) {
	for k, v := range m {
		switch t := v.(type) {
		case map[string]any:
			dropEmpty(t)
			if len(t) == 0 {
				delete(m, k)
			}
		case []any:
			for _, e := range t {
				if em, ok := e.(map[string]any); ok {
					dropEmpty(em)
				}
			}
			if len(t) == 0 {
				delete(m, k)
			}
		}
	}
}

// replacer is a Normalizer ready to rewrite values.
type replacer struct {
	names *strings.Replacer
	keep  map[string]bool
	// guids are the numbered placeholders of the generated GUIDs met so far, by GUID in lower case.
	guids map[string]string
	// meanings are the placeholders of the generated GUIDs whose meaning the requests say (learnMeanings).
	meanings map[string]string
}

func (n Normalizer) replacer() replacer {
	names := make([]string, 0, len(n.Names))
	for name := range n.Names {
		if name != "" {
			names = append(names, name)
		}
	}
	// Longest first, so that a name that contains another is replaced whole.
	sort.Slice(names, func(i, j int) bool {
		if len(names[i]) != len(names[j]) {
			return len(names[i]) > len(names[j])
		}
		return names[i] < names[j]
	})
	pairs := make([]string, 0, 2*len(names))
	for _, name := range names {
		pairs = append(pairs, name, n.Names[name])
	}
	keep := map[string]bool{capzCommunityGallery: true}
	for _, g := range n.KeepGUIDs {
		keep[strings.ToLower(g)] = true
	}
	return replacer{names: strings.NewReplacer(pairs...), keep: keep, guids: map[string]string{}, meanings: map[string]string{}}
}

// text replaces generated names and GUIDs in a string.
func (r replacer) text(s string) string {
	s = r.names.Replace(s)
	return guidPattern.ReplaceAllStringFunc(s, func(g string) string {
		g = strings.ToLower(g)
		if r.keep[g] {
			return g
		}
		if m, ok := r.meanings[g]; ok {
			return m
		}
		if _, ok := r.guids[g]; !ok {
			r.guids[g] = GUIDPlaceholder(len(r.guids) + 1)
		}
		return r.guids[g]
	})
}

// learnMeanings names the GUIDs the requests say the meaning of: the principal of a resource's system-assigned
// identity (the fake ARM derives it from the resource's ID: fakearm.PrincipalID) becomes "<principal of NAME>",
// and a role assignment's name "<role assignment of NAME>", NAME being the resource's name, normalized. Such GUIDs
// pair across the sides by what they are for, not by order of appearance: the sides create machines and their role
// assignments in other orders, and CAPZ writes a role assignment again in every phase.
func (r replacer) learnMeanings(requests []Request) {
	subjects := map[string]string{}
	type assignment struct{ name, principal string }
	var assignments []assignment
	for _, req := range requests {
		var body struct {
			Identity   struct{ Type string }
			Properties struct{ PrincipalID string }
		}
		path, err := url.PathUnescape(strings.TrimRight(req.Path, "/"))
		if req.Method != "PUT" || err != nil || json.Unmarshal(req.Body, &body) != nil {
			continue
		}
		name := strings.ToLower(path[strings.LastIndex(path, "/")+1:])
		if strings.Contains(strings.ToLower(body.Identity.Type), "systemassigned") {
			subjects[strings.ToLower(fakearm.PrincipalID(path))] = r.names.Replace(name)
		}
		if strings.EqualFold(armnorm.ResourceType(path), "Microsoft.Authorization/roleAssignments") && guidPattern.MatchString(name) {
			assignments = append(assignments, assignment{name: name, principal: strings.ToLower(body.Properties.PrincipalID)})
		}
	}
	for principal, name := range subjects {
		r.meanings[principal] = "<principal of " + name + ">"
	}
	for _, a := range assignments {
		if name, ok := subjects[a.principal]; ok {
			r.meanings[a.name] = "<role assignment of " + name + ">"
		}
	}
}

// rules normalize a decoded JSON value: computed fields dropped, secrets redacted, IDs in lower case, generated
// names and GUIDs replaced in keys and strings (GUIDs numbered alike from run to run, since keys are visited sorted).
func (r replacer) rules() armnorm.Rules {
	return armnorm.Rules{Text: r.text, LowerIDs: true, Field: func(key string, value any) armnorm.Action {
		switch lower := strings.ToLower(key); {
		case computedKeys[lower]:
			return armnorm.Drop
		case secretKeys[lower] && value != nil:
			return armnorm.Redact
		}
		return armnorm.Keep
	}}
}
