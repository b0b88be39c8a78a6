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

package env

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"
)

// The provider's ServiceAccount, named as config/default deploys it. Tests run the provider's manager as this
// ServiceAccount, bound to the roles the release manifests bind it to.
const (
	ProviderNamespace      = "capz-system"
	ProviderServiceAccount = "capz-manager"
)

// ProviderUser is the user name the API server gives the provider's ServiceAccount.
const ProviderUser = "system:serviceaccount:" + ProviderNamespace + ":" + ProviderServiceAccount

// The provider's roles, relative to the repository root: the ClusterRole that controller-gen generates from the
// +kubebuilder:rbac markers, and the Role of leader election in the provider's namespace.
var (
	ManagerRoleFile        = filepath.Join("config", "rbac", "role.yaml")
	LeaderElectionRoleFile = filepath.Join("config", "rbac", "leader_election_role.yaml")
)

// rbacFieldOwner is the field manager of the RBAC objects the test environment applies.
const rbacFieldOwner = "capzaso-test-env"

// providerGroups are the groups the API server gives the provider's ServiceAccount.
var providerGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + ProviderNamespace, "system:authenticated"}

// rbacPlanes maps the host of every control plane with the provider's RBAC installed to its *providerUser.
var rbacPlanes sync.Map

// providerUser is the provider's ServiceAccount on one control plane.
type providerUser struct {
	cp *ControlPlane

	once   sync.Once
	config *rest.Config
	err    error
}

// ProviderConfig returns a client configuration for the control plane that cfg talks to, which must have the
// provider's RBAC installed (InstallProviderRBAC), that authenticates as the provider's ServiceAccount: its user name
// and groups, in a client certificate. A client built from it is authorized exactly as the provider's manager in a
// real management cluster, and the API server's audit log attributes its requests to that user.
func ProviderConfig(cfg *rest.Config) (*rest.Config, error) {
	v, ok := rbacPlanes.Load(cfg.Host)
	if !ok {
		return nil, fmt.Errorf("the provider's RBAC is not installed on %s", cfg.Host)
	}
	u := v.(*providerUser)
	u.once.Do(func() {
		var au *envtest.AuthenticatedUser
		au, u.err = u.cp.AddUser(envtest.User{Name: ProviderUser, Groups: providerGroups}, &rest.Config{QPS: u.cp.Config.QPS, Burst: u.cp.Config.Burst})
		if u.err != nil {
			u.err = fmt.Errorf("failed to provision the provider's user: %w", u.err)
			return
		}
		u.config = au.Config()
	})
	if u.err != nil {
		return nil, u.err
	}
	return rest.CopyConfig(u.config), nil
}

// AdminConfig returns a copy of the admin configuration of the control plane that cfg talks to, or cfg when it is
// not one with the provider's RBAC installed. Components that play other actors (the ASO simulator, Cluster API)
// take it from the manager's configuration: AdminConfig(mgr.GetConfig()).
func AdminConfig(cfg *rest.Config) *rest.Config {
	if v, ok := rbacPlanes.Load(cfg.Host); ok {
		return rest.CopyConfig(v.(*providerUser).cp.Config)
	}
	return cfg
}

// InstallProviderRBAC creates the provider's namespace and ServiceAccount, its ClusterRole (ManagerRoleFile) and
// leader election Role (LeaderElectionRoleFile) from the repository's generated files, and binds them to the
// ServiceAccount, as config/rbac does; then ProviderConfig works for the control plane. Applying them again updates
// them.
func (c *ControlPlane) InstallProviderRBAC(ctx context.Context) error {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return err
	}
	cl, err := client.New(c.Config, client.Options{Scheme: s})
	if err != nil {
		return fmt.Errorf("failed to create a client: %w", err)
	}
	role := &rbacv1.ClusterRole{}
	if err := readManifest(filepath.Join(c.RootDir, ManagerRoleFile), role); err != nil {
		return err
	}
	electionRole := &rbacv1.Role{}
	if err := readManifest(filepath.Join(c.RootDir, LeaderElectionRoleFile), electionRole); err != nil {
		return err
	}
	role.ObjectMeta = metav1.ObjectMeta{Name: "capz-" + role.Name}
	electionRole.ObjectMeta = metav1.ObjectMeta{Name: "capz-" + electionRole.Name, Namespace: ProviderNamespace}
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ProviderServiceAccount, Namespace: ProviderNamespace}}

	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ProviderNamespace}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: ProviderServiceAccount, Namespace: ProviderNamespace}},
		role,
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   subjects,
		},
		electionRole,
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: electionRole.Name, Namespace: ProviderNamespace},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: electionRole.Name},
			Subjects:   subjects,
		},
	}
	for _, obj := range objs {
		if err := applyObject(ctx, cl, obj); err != nil {
			return err
		}
	}
	rbacPlanes.Store(c.Config.Host, &providerUser{cp: c})
	c.rbacInstalled.Store(true)
	return nil
}

// forgetProviderRBAC forgets a stopped control plane: another may take its address.
func forgetProviderRBAC(c *ControlPlane) {
	rbacPlanes.Delete(c.Config.Host)
}

// readManifest reads a YAML file holding one object.
func readManifest(path string, into runtime.Object) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("failed to read %s: %w", path, err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		return fmt.Errorf("failed to decode %s: %w", path, err)
	}
	return nil
}

// applyObject server-side applies a typed object of client-go's scheme.
func applyObject(ctx context.Context, c client.Client, obj client.Object) error {
	gvk, err := c.GroupVersionKindFor(obj)
	if err != nil {
		return err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(gvk)
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(rbacFieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("failed to apply %s %s: %w", gvk.Kind, client.ObjectKeyFromObject(obj), err)
	}
	return nil
}
