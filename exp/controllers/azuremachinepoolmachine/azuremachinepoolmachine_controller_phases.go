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

package azuremachinepoolmachine

import (
	"context"
	"fmt"

	asoauthorization "github.com/Azure/azure-service-operator/v2/api/authorization/v1api20220401"
	asocompute "github.com/Azure/azure-service-operator/v2/api/compute/v1api20220301"
	asonetwork "github.com/Azure/azure-service-operator/v2/api/network/v1api20240301"
	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/controller-runtime/pkg/client"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	infrav1exp "github.com/capzaso/cluster-api-provider-azure/exp/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
	"github.com/capzaso/cluster-api-provider-azure/internal/machinesecrets"
)

const (
	// WaitingForPoolReason means the instance's AzureMachinePool or MachinePool is missing.
	WaitingForPoolReason = "WaitingForPool"
	// ModelMissingReason means the instance has no spec.model: nothing says what its VM is made of.
	ModelMissingReason = "ModelMissing"
)

// deleteOrder deletes an instance's resources: the VM's dependents, the VM (its disks go with it), then its
// network interfaces.
var deleteOrder = [][]schema.GroupKind{
	{gk(asoauthorization.GroupVersion, "RoleAssignment"), gk(asocompute.GroupVersion, "VirtualMachinesExtension")},
	{gk(asocompute.GroupVersion, "VirtualMachine")},
	{gk(asonetwork.GroupVersion, "NetworkInterface")},
}

func gk(gv schema.GroupVersion, kind string) schema.GroupKind { return gv.WithKind(kind).GroupKind() }

// reconcileOwners reads the instance's AzureMachinePool (its owner) and the pool's MachinePool.
func (r *Reconciler) reconcileOwners(ctx context.Context, s *scope) error {
	m := s.machine
	if m.Spec.Model == nil {
		s.waiting = lifecycle.Wait{Reason: ModelMissingReason, Message: "the AzureMachinePoolMachine has no spec.model; only the AzureMachinePool controller creates instances"}
		return nil
	}
	for _, ref := range m.OwnerReferences {
		if ref.Kind != "AzureMachinePool" || ref.APIVersion != infrav1exp.GroupVersion.String() {
			continue
		}
		pool := &infrav1exp.AzureMachinePool{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: ref.Name}, pool); err != nil {
			if apierrors.IsNotFound(err) {
				break
			}
			return err
		}
		s.pool = pool
	}
	if s.pool == nil {
		s.waiting = lifecycle.Wait{Reason: WaitingForPoolReason, Message: "waiting for the instance's AzureMachinePool"}
		return nil
	}
	mp, err := util.GetOwnerMachinePool(ctx, r.Client, s.pool.ObjectMeta)
	if err != nil {
		return err
	}
	if mp == nil {
		s.waiting = lifecycle.Wait{Reason: WaitingForPoolReason, Message: fmt.Sprintf("waiting for AzureMachinePool %s to belong to a MachinePool", s.pool.Name)}
		return nil
	}
	s.machinePool = mp
	return nil
}

// reconcileClusterInfrastructure waits for the cluster's infrastructure and reads what the instance needs from it.
func (r *Reconciler) reconcileClusterInfrastructure(ctx context.Context, s *scope) error {
	infra, waiting, err := clusterinfra.Resolve(ctx, r.APIReader, r.Client, s.cluster)
	if err != nil || waiting != "" {
		s.waiting = lifecycle.Wait{Reason: infrav1.WaitingForClusterInfrastructureReason, Message: waiting}
		return err
	}
	creds, err := infra.Credentials(ctx, r.Engine, s.machine, s.cluster.Name, r.kinds)
	if err != nil {
		return err
	}
	s.infra, s.credentials = infra, creds
	if !creds.Ready {
		s.waiting = lifecycle.Wait{Reason: creds.Reason, Message: creds.Message}
	}
	return nil
}

// reconcileBootstrapData reads the MachinePool's bootstrap data until the VM exists; afterwards the data is no
// longer part of the desired VM (Azure keeps it; it cannot change).
func (r *Reconciler) reconcileBootstrapData(ctx context.Context, s *scope) error {
	vm := &asocompute.VirtualMachine{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: s.machine.Namespace, Name: azure.ObjectName(s.machine.Name)}, vm)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err == nil {
		if ready := genruntime.GetReadyCondition(vm); ready != nil && ready.Status == metav1.ConditionTrue {
			return nil
		}
		// The VM's spec lost its custom data once ASO had created it; unlike ASO's status, that survives
		// clusterctl move, where applying custom data again would fail (Azure cannot change it).
		if vm.Spec.OsProfile != nil && vm.Spec.OsProfile.CustomData == nil {
			return nil
		}
	}
	name := s.machinePool.Spec.Template.Spec.Bootstrap.DataSecretName
	if name == nil {
		s.waiting = lifecycle.Wait{Reason: infrav1.WaitingForBootstrapDataReason, Message: "waiting for the MachinePool's bootstrap data secret"}
		return nil
	}
	s.bootstrapData, err = machinesecrets.BootstrapData(ctx, r.APIReader, s.machinePool.Namespace, *name)
	return err
}

// reconcileResources translates the instance's model and hands its objects to the engine, with the pool's
// patches.
func (r *Reconciler) reconcileResources(ctx context.Context, s *scope) error {
	m, pool := s.machine, s.pool
	c := s.infra.AzureCluster(s.cluster.Name)
	if pool.Spec.Location != "" {
		c.Location = pool.Spec.Location
	}
	in := compute.ReplicaInput{
		Cluster:       c,
		ScaleSet:      pool.Name,
		Name:          m.Name,
		Model:         *m.Spec.Model,
		VNet:          s.infra.VNet(),
		DefaultSubnet: s.infra.SubnetFor(infrav1.SubnetNode),
		BootstrapData: s.bootstrapData,
	}
	for _, p := range s.infra.LBPools(false, false, false) {
		in.BackendPools = append(in.BackendPools, compute.BackendPoolRef{LoadBalancer: p.LoadBalancer, Pool: p.Pool})
	}
	if m.Spec.Model.Template.OSDisk.OSType == "Windows" {
		password, err := machinesecrets.WindowsPassword(ctx, r.APIReader, m.Namespace, m.Name)
		if err != nil {
			return err
		}
		in.WindowsAdminPassword = password
	}
	result, err := r.Engine.Reconcile(ctx, m, compute.ReplicaResources(in), aso.Options{
		ClusterName: s.cluster.Name, CredentialSecret: s.credentials.SecretName,
		Kinds: r.kinds, Patches: aso.UserPatches(pool.Spec.ASOPatches), PatchTargets: r.patchTargets,
	})
	s.result = result
	return err
}

// reconcileVMStatus reads the VM's resource ID and provisioning state.
func (r *Reconciler) reconcileVMStatus(ctx context.Context, s *scope) error {
	vm := &asocompute.VirtualMachine{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: s.machine.Namespace, Name: azure.ObjectName(s.machine.Name)}, vm); err != nil {
		return client.IgnoreNotFound(err)
	}
	s.vmID, s.provisioningState = ptr.Deref(vm.Status.Id, ""), ptr.Deref(vm.Status.ProvisioningState, "")
	return nil
}

// reconcileDelete deletes the instance's ASO objects; done once ASO has deleted them all.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (bool, error) {
	s.deleting = true
	done, result, err := r.Engine.Delete(ctx, s.machine, aso.DeleteOptions{ClusterName: s.cluster.Name, Kinds: r.kinds, Order: deleteOrder})
	s.result = result
	return done, err
}
