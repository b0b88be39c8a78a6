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

package armgolden

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/test/armnorm"
)

// UpdateEnv is the environment variable that makes Check rewrite the golden files: UPDATE_GOLDENS=1.
const UpdateEnv = "UPDATE_GOLDENS"

// Entry is one golden file: the normalised first PUT of the resources of one kind and role.
type Entry struct {
	// Resource is the ARM resource type; Role the role of the resources in the cluster: "cluster" for the
	// cluster's own, "control-plane", or the MachineDeployment or MachinePool (without the cluster's name) of a
	// machine's; Name the normalised Azure name.
	Resource string `json:"resource"`
	Role     string `json:"role"`
	Name     string `json:"name"`
	// ID is the normalised resource ID the body is PUT to (a role assignment's scope is in it).
	ID string `json:"id"`
	// Body is the normalised request body.
	Body map[string]any `json:"body"`
}

// File is the golden file's name: role, kind and name, with the placeholders' punctuation dropped.
func (e Entry) File() string {
	kind := e.Resource[strings.LastIndex(e.Resource, "/")+1:]
	return fileSafe.ReplaceAllString(e.Role+"--"+kind+"--"+strings.NewReplacer("${", "", "}", "").Replace(e.Name), "_") + ".yaml"
}

var fileSafe = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// Set is a flavor's golden entries, by file name.
type Set map[string]Entry

// Add adds an entry. Resources of one kind and role share an entry: a second one with another body is an error.
func (s Set) Add(e Entry) error {
	file := e.File()
	if old, ok := s[file]; ok {
		if diff := cmp.Diff(old.Body, e.Body); diff != "" {
			return fmt.Errorf("two %s resources of role %s named %s differ (-one +other):\n%s", e.Resource, e.Role, e.Name, diff)
		}
		return nil
	}
	s[file] = e
	return nil
}

// Diff describes how two sets differ, or "" when they are equal.
func Diff(a, b Set, aName, bName string) string {
	var out []string
	for _, file := range sortedKeys(a, b) {
		ea, inA := a[file]
		eb, inB := b[file]
		switch {
		case !inB:
			out = append(out, fmt.Sprintf("%s: only in %s", file, aName))
		case !inA:
			out = append(out, fmt.Sprintf("%s: only in %s", file, bName))
		default:
			if diff := cmp.Diff(ea, eb); diff != "" {
				out = append(out, fmt.Sprintf("%s (-%s +%s):\n%s", file, aName, bName, diff))
			}
		}
	}
	return strings.Join(out, "\n")
}

func sortedKeys(sets ...Set) []string {
	var keys []string
	for _, s := range sets {
		for k := range s {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// Check compares a set with the golden files of dir (one flavor's), or rewrites them when UPDATE_GOLDENS=1. It
// reports every missing, extra and differing file.
func Check(dir string, got Set) error {
	if os.Getenv(UpdateEnv) == "1" {
		return write(dir, got)
	}
	return Compare(dir, got)
}

// Compare compares a set with the golden files of dir, whatever UPDATE_GOLDENS says.
func Compare(dir string, got Set) error {
	want, err := Read(dir)
	if err != nil {
		return err
	}
	if diff := Diff(want, got, "golden", "got"); diff != "" {
		return fmt.Errorf("the ARM requests differ from the golden files in %s (%s=1 rewrites them; review the diff):\n%s", dir, UpdateEnv, diff)
	}
	return nil
}

// Read reads the golden files of dir.
func Read(dir string) (Set, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no golden files in %s (%s=1 writes them)", dir, UpdateEnv)
	}
	out := Set{}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var e Entry
		if err := yaml.UnmarshalStrict(raw, &e); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		out[filepath.Base(file)] = e
	}
	return out, nil
}

// write replaces the golden files of dir with the set.
func write(dir string, s Set) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for file, e := range s {
		raw, err := yaml.Marshal(e)
		if err != nil {
			return err
		}
		header := fmt.Sprintf("# The first PUT of %s (role %s), normalised: test/armgolden; %s=1 make goldens rewrites it.\n", e.Resource, e.Role, UpdateEnv)
		if err := os.WriteFile(filepath.Join(dir, file), append([]byte(header), raw...), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Role is where an ASO object sits in a cluster: its role and, for a machine's objects, the machine's VM name.
type Role struct {
	Name, Instance string
}

// RoleOf finds the role of an ASO object from the object that owns it: "cluster" for the cluster's own objects;
// for a machine's, "control-plane" or its MachineDeployment's name and the VM's name; for a machine pool's, the
// pool's name (and an instance's VM name). Names lose the cluster's name.
func RoleOf(ctx context.Context, reader client.Reader, obj client.Object, cluster string) (Role, error) {
	owner := metav1.GetControllerOf(obj)
	if owner == nil {
		return Role{Name: "cluster"}, nil
	}
	short := func(name string) string { return strings.TrimPrefix(strings.TrimPrefix(name, cluster), "-") }
	key := client.ObjectKey{Namespace: obj.GetNamespace(), Name: owner.Name}
	switch owner.Kind {
	case "AzureMachine":
		am := &infrav1.AzureMachine{}
		if err := reader.Get(ctx, key, am); err != nil {
			return Role{}, fmt.Errorf("failed to get the AzureMachine of %s: %w", obj.GetName(), err)
		}
		role := "machine"
		if _, ok := am.Labels[clusterv1.MachineControlPlaneLabel]; ok {
			role = "control-plane"
		} else if md := am.Labels[clusterv1.ClusterTopologyMachineDeploymentNameLabel]; md != "" {
			role = md // the class's name of a topology's MachineDeployment, whose own name is random
		} else if md := am.Labels[clusterv1.MachineDeploymentNameLabel]; md != "" {
			role = short(md)
		}
		return Role{Name: role, Instance: compute.VMName(am)}, nil
	case "AzureMachinePoolMachine":
		m := &infrav1exp.AzureMachinePoolMachine{}
		if err := reader.Get(ctx, key, m); err != nil {
			return Role{}, fmt.Errorf("failed to get the AzureMachinePoolMachine of %s: %w", obj.GetName(), err)
		}
		return Role{Name: short(m.Labels[clusterv1.MachinePoolNameLabel]), Instance: m.Name}, nil
	case "AzureMachinePool":
		return Role{Name: short(owner.Name)}, nil
	case "AzureManagedMachinePool", "AzureASOManagedMachinePool":
		// An agent pool's Azure name: a topology's pools have random names.
		if pool, ok := obj.(interface{ AzureName() string }); ok {
			return Role{Name: pool.AzureName()}, nil
		}
		return Role{Name: short(owner.Name)}, nil
	}
	return Role{Name: "cluster"}, nil
}

// NewEntry makes the entry of a first PUT: the resource ID it went to (an ASO object's resource-id annotation), the
// object's role and the raw body.
func NewEntry(id string, role Role, names Names, body map[string]any) (Entry, error) {
	resourceType := armnorm.ResourceType(id)
	if resourceType == "" {
		return Entry{}, errors.New("no ARM resource type in the ID " + id)
	}
	name := names.NormalizeName(armnorm.NameOf(id), role.Instance)
	if strings.EqualFold(resourceType, roleAssignmentType) {
		name = "system-identity" // a GUID of the run
	}
	return Entry{
		Resource: resourceType, Role: role.Name, Name: name, ID: names.NormalizeID(id, role.Instance),
		Body: Normalize(body, names, role.Instance, resourceType),
	}, nil
}
