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
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

func requests(rs ...env.RBACRequest) []env.RBACUsage {
	u := env.RBACUsage{Source: "/repo/controllers/azurecluster"}
	for _, r := range rs {
		u.Requests = append(u.Requests, env.RBACRequestCount{RBACRequest: r, Count: 1})
	}
	return []env.RBACUsage{u}
}

func TestCheck(t *testing.T) {
	secrets := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "create", "patch"}}
	crdPatch := rbacv1.PolicyRule{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"},
		ResourceNames: []string{"disks.compute.azure.com", "virtualmachines.compute.azure.com"}, Verbs: []string{"patch"}}
	aso := rbacv1.PolicyRule{APIGroups: []string{"compute.azure.com"}, Resources: []string{"disks", "virtualmachines"}, Verbs: []string{"get", "delete"}}
	status := rbacv1.PolicyRule{APIGroups: []string{"infrastructure.cluster.x-k8s.io"}, Resources: []string{"azureclusters/status", "azureclusters/finalizers"},
		Verbs: []string{"patch", "update"}}
	leases := rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get"}}
	metrics := rbacv1.PolicyRule{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}

	tests := []struct {
		name   string
		roles  []role
		usages []env.RBACUsage
		want   []string
	}{
		{
			name:  "every grant used; an applied create counts as create",
			roles: []role{{kind: "ClusterRole", name: "r", rules: []rbacv1.PolicyRule{secrets, metrics}}},
			usages: requests(
				env.RBACRequest{Verb: "get", Resource: "secrets"},
				env.RBACRequest{Verb: "patch", Resource: "secrets", Created: true},
			),
		},
		{
			name:  "a grant nobody used",
			roles: []role{{kind: "ClusterRole", name: "r", rules: []rbacv1.PolicyRule{secrets}}},
			usages: requests(
				env.RBACRequest{Verb: "get", Resource: "secrets"},
				env.RBACRequest{Verb: "patch", Resource: "secrets"},
			),
			want: []string{"ClusterRole r grants create core/secrets, which the provider never used"},
		},
		{
			name:   "a denied request",
			roles:  []role{{kind: "ClusterRole", name: "r", rules: []rbacv1.PolicyRule{leases}}},
			usages: requests(env.RBACRequest{Verb: "get", APIGroup: "coordination.k8s.io", Resource: "leases"}, env.RBACRequest{Verb: "list", Resource: "nodes", Forbidden: true}),
			want:   []string{"denied list core/nodes (in azurecluster): a rule is missing"},
		},
		{
			name:   "a wildcard",
			roles:  []role{{kind: "ClusterRole", name: "r", rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"*"}, Verbs: []string{"get"}}}}},
			usages: requests(env.RBACRequest{Verb: "get", Resource: "*"}),
			want:   []string{`ClusterRole r grants a wildcard: {Verbs:[get] APIGroups:[] Resources:[*] ResourceNames:[] NonResourceURLs:[]}`},
		},
		{
			name:   "resource names are used one by one",
			roles:  []role{{kind: "ClusterRole", name: "r", rules: []rbacv1.PolicyRule{crdPatch}}},
			usages: requests(env.RBACRequest{Verb: "patch", APIGroup: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "virtualmachines.compute.azure.com"}),
			want:   []string{"ClusterRole r grants patch apiextensions.k8s.io/customresourcedefinitions disks.compute.azure.com, which the provider never used"},
		},
		{
			name:   "a verb used on one ASO kind is used on all",
			roles:  []role{{kind: "ClusterRole", name: "r", rules: []rbacv1.PolicyRule{aso}}},
			usages: requests(env.RBACRequest{Verb: "get", APIGroup: "compute.azure.com", Resource: "virtualmachines"}),
			want: []string{
				"ClusterRole r grants delete compute.azure.com/disks, which the provider never used",
				"ClusterRole r grants delete compute.azure.com/virtualmachines, which the provider never used",
			},
		},
		{
			name:   "subresources are resources of their own; update on finalizers is never requested",
			roles:  []role{{kind: "ClusterRole", name: "r", rules: []rbacv1.PolicyRule{status}}},
			usages: requests(env.RBACRequest{Verb: "patch", APIGroup: "infrastructure.cluster.x-k8s.io", Resource: "azureclusters", Subresource: "status"}),
			want: []string{
				"ClusterRole r grants patch infrastructure.cluster.x-k8s.io/azureclusters/finalizers, which the provider never used",
				"ClusterRole r grants update infrastructure.cluster.x-k8s.io/azureclusters/status, which the provider never used",
			},
		},
		{
			name:   "an informer's watch uses get and list",
			roles:  []role{{kind: "ClusterRole", name: "r", rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch"}}}}},
			usages: requests(env.RBACRequest{Verb: "watch", Resource: "secrets"}),
		},
		{
			name:   "a get does not use list or watch",
			roles:  []role{{kind: "ClusterRole", name: "r", rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch"}}}}},
			usages: requests(env.RBACRequest{Verb: "get", Resource: "secrets"}),
			want: []string{
				"ClusterRole r grants list core/secrets, which the provider never used",
				"ClusterRole r grants watch core/secrets, which the provider never used",
			},
		},
		{
			name: "a grant on a path the tests cannot order",
			roles: []role{{kind: "ClusterRole", name: "r", rules: []rbacv1.PolicyRule{{APIGroups: []string{"infrastructure.cluster.x-k8s.io"},
				Resources: []string{"azuremachinepoolmachines", "azuremachinepools"}, Verbs: []string{"delete"}}}}},
			want: []string{"ClusterRole r grants delete infrastructure.cluster.x-k8s.io/azuremachinepools, which the provider never used"},
		},
		{
			name:   "a Role is used in its namespace only",
			roles:  []role{{kind: "Role", name: "election", namespace: env.ProviderNamespace, rules: []rbacv1.PolicyRule{leases}}},
			usages: requests(env.RBACRequest{Verb: "get", APIGroup: "coordination.k8s.io", Resource: "leases"}),
			want:   []string{"Role election grants get coordination.k8s.io/leases, which the provider never used"},
		},
		{
			name:   "a Role used in its namespace",
			roles:  []role{{kind: "Role", name: "election", namespace: env.ProviderNamespace, rules: []rbacv1.PolicyRule{leases}}},
			usages: requests(env.RBACRequest{Verb: "get", APIGroup: "coordination.k8s.io", Resource: "leases", Namespace: env.ProviderNamespace}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(check(tt.roles, tt.usages)).To(Equal(tt.want))
		})
	}
}

// The roles in the repository decode, and the generated ClusterRole is not empty.
func TestReadRoles(t *testing.T) {
	g := NewWithT(t)
	t.Chdir("../..")
	roles, err := readRoles()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(roles).To(HaveLen(2))
	g.Expect(roles[0].rules).NotTo(BeEmpty())
	g.Expect(roles[1].namespace).To(Equal(env.ProviderNamespace))
}

// TestCheck_RecordedOnAPIServer runs the check on requests a real API server recorded (test/env's audit log) for the
// provider's ServiceAccount under its generated roles: a rule the provider needs and no longer has, and a request
// no rule allows, are denied and reported as missing rules; a rule it did not use is reported as excessive; a
// request its rules allow and admission refuses (403 as well) used its rule.
func TestCheck_RecordedOnAPIServer(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	t.Setenv(env.RBACUsageDirEnvVar, dir)
	ctx := t.Context()
	cp, err := env.StartControlPlane(ctx, env.ControlPlaneOptions{WithoutASO: true})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = cp.Stop() })
	g.Expect(cp.InstallProviderRBAC(ctx)).To(Succeed())
	cfg, err := env.ProviderConfig(cp.Config)
	g.Expect(err).NotTo(HaveOccurred())
	provider, err := kubernetes.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	admin, err := kubernetes.NewForConfig(cp.Config)
	g.Expect(err).NotTo(HaveOccurred())

	// The generated role allows reading a Namespace (allowedNamespaces selectors), and no ConfigMap.
	_, err = provider.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = provider.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%v", err)

	// Admission refuses a new Secret in a terminating namespace (no namespace controller finishes it here) with 403;
	// RBAC allowed it.
	closing, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "closing-"}}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(admin.CoreV1().Namespaces().Delete(ctx, closing.Name, metav1.DeleteOptions{})).To(Succeed())
	_, err = provider.CoreV1().Secrets(closing.Name).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{})
	g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%v", err)
	g.Expect(err.Error()).To(ContainSubstring("being terminated"))

	// Without its rule for Namespaces, the same request is denied.
	installed, err := admin.RbacV1().ClusterRoles().Get(ctx, "capz-manager-role", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	var namespaces rbacv1.PolicyRule
	installed.Rules = slices.DeleteFunc(installed.Rules, func(r rbacv1.PolicyRule) bool {
		if slices.Contains(r.Resources, "namespaces") {
			namespaces = r
			return true
		}
		return false
	})
	g.Expect(namespaces.Verbs).To(Equal([]string{"get"}))
	_, err = admin.RbacV1().ClusterRoles().Update(ctx, installed, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func() bool {
		_, err := provider.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		return apierrors.IsForbidden(err)
	}, 30*time.Second).Should(BeTrue())

	g.Expect(cp.Stop()).To(Succeed())
	files, err := filepath.Glob(filepath.Join(dir, "rbac-usage-*.json"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(files).To(HaveLen(1))
	data, err := os.ReadFile(files[0])
	g.Expect(err).NotTo(HaveOccurred())
	var usage env.RBACUsage
	g.Expect(json.Unmarshal(data, &usage)).To(Succeed())

	secrets := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "create"}}
	g.Expect(check([]role{{kind: "ClusterRole", name: "r", rules: []rbacv1.PolicyRule{namespaces, secrets}}}, []env.RBACUsage{usage})).To(Equal([]string{
		"ClusterRole r grants get core/secrets, which the provider never used",
		"denied get core/namespaces (in rbaccheck): a rule is missing",
		"denied list core/configmaps (in rbaccheck): a rule is missing",
	}))
}
