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

// Package tenant makes the tenants of the tenancy suites: real users of the test API server whose RBAC allows the
// provider's kinds, Cluster API's Clusters and Secrets in one namespace of their own, and nothing else.
package tenant

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

// Tenant is a user of the API server who may work in one namespace, and nowhere else.
type Tenant struct {
	client.Client
	Namespace string
}

// New creates a namespace (its name starts with prefix) and a user who may manage the provider's kinds, Clusters
// and Secrets in it; both go when the test ends.
func New(ctx context.Context, t *testing.T, g *WithT, prefix string) *Tenant {
	ns, err := env.Env.CreateNamespace(ctx, prefix)
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Env.Cleanup(context.Background(), ns) })
	user := "tenant-of-" + ns.Name
	verbs := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "tenant", Namespace: ns.Name}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{infrav1.GroupVersion.Group}, Resources: []string{"*"}, Verbs: verbs},
		{APIGroups: []string{clusterv1.GroupVersion.Group}, Resources: []string{"clusters"}, Verbs: verbs},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: verbs},
	}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "tenant", Namespace: ns.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}
	g.Expect(env.Env.Create(ctx, role)).To(Succeed())
	g.Expect(env.Env.Create(ctx, binding)).To(Succeed())
	au, err := env.Env.ControlPlane.AddUser(envtest.User{Name: user, Groups: []string{"tenants"}}, &rest.Config{QPS: 50, Burst: 100})
	g.Expect(err).NotTo(HaveOccurred())
	c, err := client.New(au.Config(), client.Options{Scheme: env.Env.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	return &Tenant{Client: c, Namespace: ns.Name}
}

// Cluster creates, as the tenant, a Cluster and its infrastructure object owned by it, as Cluster API would.
func (tn *Tenant) Cluster(ctx context.Context, g *WithT, infra client.Object) {
	gvk, err := apiutil.GVKForObject(infra, env.Env.Scheme())
	g.Expect(err).NotTo(HaveOccurred())
	cluster := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: infra.GetName(), Namespace: tn.Namespace},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: gvk.Group, Kind: gvk.Kind, Name: infra.GetName()}},
	}
	g.Expect(tn.Create(ctx, cluster)).To(Succeed())
	infra.SetNamespace(tn.Namespace)
	infra.SetLabels(map[string]string{clusterv1.ClusterNameLabel: cluster.Name})
	infra.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster", Name: cluster.Name, UID: cluster.UID}})
	g.Expect(tn.Create(ctx, infra)).To(Succeed())
}
