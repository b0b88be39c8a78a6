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
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
)

// Severity tells whether a finding blocks the switch or only endangers it.
type Severity string

const (
	// Block: the switch must not start; the dry run exits non-zero.
	Block Severity = "block"
	// Warn: the dry run cannot tell whether it is handled (the cluster-autoscaler runs elsewhere); the message says
	// what to do.
	Warn Severity = "warn"
)

// The checks, as findings name them.
const (
	CheckCAPZVersion = "capz-version"
	CheckCRDVersions = "crd-versions"
	CheckFields      = "fields"
	CheckReadiness   = "readiness"
	CheckRemediation = "remediation"
)

// Finding is one thing that blocks or endangers the switch.
type Finding struct {
	Severity Severity
	// Check is one of the Check* constants.
	Check string
	// Object is the object's kind and namespace/name (a cluster-scoped object's name alone).
	Object string
	// Message says what is wrong and what to do.
	Message string
}

// Options narrow the dry run.
type Options struct {
	// Namespace, when set, limits the namespaced objects read to that namespace; CRDs are always read.
	Namespace string
	// Checks are the checks to run (the Check* constants); all of them when empty.
	Checks []string
}

// Blocks reports whether any finding blocks the switch.
func Blocks(findings []Finding) bool {
	for _, f := range findings {
		if f.Severity == Block {
			return true
		}
	}
	return false
}

// Run reads the management cluster through c and returns every finding, blocking ones first, then by check and
// object. It only reads. c's scheme must hold Cluster API's v1beta2 types (core and kubeadm control plane) and the API extensions
// types; the provider's kinds are read as unstructured objects, as CAPZ's CRDs serve them. A kind whose CRD is not
// installed (no KubeadmControlPlane on an AKS-only management cluster) is skipped.
func Run(ctx context.Context, c client.Reader, opts Options) ([]Finding, error) {
	var findings []Finding
	for _, check := range []struct {
		name string
		run  func(context.Context, client.Reader, Options) ([]Finding, error)
	}{
		{CheckCAPZVersion, checkCAPZVersion}, {CheckCRDVersions, checkCRDVersions}, {CheckFields, checkFields}, {CheckReadiness, checkReadiness}, {CheckRemediation, checkRemediation},
	} {
		if len(opts.Checks) > 0 && !slices.Contains(opts.Checks, check.name) {
			continue
		}
		f, err := check.run(ctx, c, opts)
		if err != nil {
			return nil, err
		}
		findings = append(findings, f...)
	}
	sort.SliceStable(findings, func(i, j int) bool {
		a, b := findings[i], findings[j]
		if a.Severity != b.Severity {
			return a.Severity == Block
		}
		if a.Check != b.Check {
			return checkOrder(a.Check) < checkOrder(b.Check)
		}
		return a.Object < b.Object
	})
	return findings, nil
}

func checkOrder(check string) int {
	return map[string]int{CheckCAPZVersion: 0, CheckCRDVersions: 1, CheckFields: 2, CheckReadiness: 3, CheckRemediation: 4}[check]
}

// providerScheme holds the provider's kinds, api/v1beta1 and exp/api/v1beta1: the kinds whose CRDs the switch
// replaces.
var providerScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(infrav1.AddToScheme(s))
	utilruntime.Must(infrav1exp.AddToScheme(s))
	return s
}()

// providerKinds are the kinds of the provider: those of providerScheme with an admission (every kind the provider
// serves has webhooks), sorted.
func providerKinds() []schema.GroupVersionKind {
	var kinds []schema.GroupVersionKind
	for gvk := range providerScheme.AllKnownTypes() {
		if gvk.Group != infrav1.GroupVersion.Group || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		obj, err := providerScheme.New(gvk)
		if err != nil || admissionFor(obj) == nil {
			continue
		}
		kinds = append(kinds, gvk)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].Kind < kinds[j].Kind })
	return kinds
}

// admissionFor is the provider's in-memory admission of an object of its kinds, nil for any other.
func admissionFor(obj runtime.Object) infrav1.Admission {
	if a := infrav1.AdmissionFor(obj); a != nil {
		return a
	}
	return infrav1exp.AdmissionFor(obj)
}

// isProviderKind reports whether a group and kind are one of the provider's.
func isProviderKind(group, kind string) bool {
	if group != infrav1.GroupVersion.Group {
		return false
	}
	for _, gvk := range providerKinds() {
		if gvk.Kind == kind {
			return true
		}
	}
	return false
}

// list lists a kind into list, in the namespace of opts when set; a kind whose CRD is not installed lists nothing
// (found false).
func list(ctx context.Context, c client.Reader, opts Options, l client.ObjectList) (found bool, err error) {
	var listOpts []client.ListOption
	if opts.Namespace != "" {
		listOpts = append(listOpts, client.InNamespace(opts.Namespace))
	}
	if err := c.List(ctx, l, listOpts...); err != nil {
		if meta.IsNoMatchError(err) {
			return false, nil
		}
		return false, fmt.Errorf("failed to list %T: %w", l, err)
	}
	return true, nil
}

// objectName is a finding's Object: kind and namespace/name.
func objectName(kind string, obj client.Object) string {
	if obj.GetNamespace() == "" {
		return kind + " " + obj.GetName()
	}
	return kind + " " + obj.GetNamespace() + "/" + obj.GetName()
}
