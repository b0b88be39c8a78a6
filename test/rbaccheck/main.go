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
	"fmt"
	"os"
	"path/filepath"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/capzaso/cluster-api-provider-azure/test/env"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: rbaccheck DIR (the usage files of a test run)")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "rbaccheck: %v\n", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	roles, err := readRoles()
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(dir, "rbac-usage-*.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no usage files in %s", dir)
	}
	var usages []env.RBACUsage
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var u env.RBACUsage
		if err := json.Unmarshal(data, &u); err != nil {
			return fmt.Errorf("failed to read %s: %w", f, err)
		}
		usages = append(usages, u)
	}
	problems := check(roles, usages)
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, "rbaccheck: "+p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d problem(s) with the provider's roles (%s, %s); fix the +kubebuilder:rbac markers and run make generate-manifests",
			len(problems), env.ManagerRoleFile, env.LeaderElectionRoleFile)
	}
	fmt.Printf("rbaccheck: the provider used every rule of its roles in %d test environments, and was denied nothing\n", len(usages))
	return nil
}

// readRoles reads the provider's ClusterRole and leader election Role (in the provider's namespace, as test/env
// binds it) from the repository, from the working directory.
func readRoles() ([]role, error) {
	clusterRole := &rbacv1.ClusterRole{}
	if err := readYAML(env.ManagerRoleFile, clusterRole); err != nil {
		return nil, err
	}
	electionRole := &rbacv1.Role{}
	if err := readYAML(env.LeaderElectionRoleFile, electionRole); err != nil {
		return nil, err
	}
	return []role{
		{kind: "ClusterRole", name: clusterRole.Name, rules: clusterRole.Rules},
		{kind: "Role", name: electionRole.Name, namespace: env.ProviderNamespace, rules: electionRole.Rules},
	}, nil
}

func readYAML(path string, into any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		return fmt.Errorf("failed to decode %s: %w", path, err)
	}
	return nil
}
