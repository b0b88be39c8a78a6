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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// reconcileOwners reads the instance's AzureMachinePool (its owner) and the pool's MachinePool.
func (r *Reconciler) reconcileOwners(ctx context.Context, s *scope) error {
	m := s.machine
	if m.Spec.Model == nil {
		s.Waiting = lifecycle.Wait{Reason: ModelMissingReason, Message: "the AzureMachinePoolMachine has no spec.model; only the AzureMachinePool controller creates instances"}
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
		s.Waiting = lifecycle.Wait{Reason: WaitingForPoolReason, Message: "waiting for the instance's AzureMachinePool"}
		return nil
	}
	mp, err := util.GetOwnerMachinePool(ctx, r.Client, s.pool.ObjectMeta)
	if err != nil {
		return err
	}
	if mp == nil {
		s.Waiting = lifecycle.Wait{Reason: WaitingForPoolReason, Message: fmt.Sprintf("waiting for AzureMachinePool %s to belong to a MachinePool", s.pool.Name)}
		return nil
	}
	s.machinePool = mp
	return nil
}

// reconcileClusterInfrastructure waits for the cluster's infrastructure and reads what the instance needs from it.
func (r *Reconciler) reconcileClusterInfrastructure(ctx context.Context, s *scope) error {
	infra, waiting, err := clusterinfra.Resolve(ctx, r.APIReader, r.Client, s.cluster)
	if err != nil || waiting != "" {
		s.Waiting = lifecycle.Wait{Reason: infrav1.WaitingForClusterInfrastructureReason, Message: waiting}
		return err
	}
	creds, err := infra.Credentials(ctx, r.Engine, s.machine, s.cluster.Name, s.Kinds)
	if err != nil {
		return err
	}
	s.infra, s.Credentials = infra, &creds
	if !creds.Ready {
		s.Waiting = lifecycle.Wait{Reason: creds.Reason, Message: creds.Message}
	}
	return nil
}

// reconcileBootstrapData reads the MachinePool's bootstrap data until the VM exists; afterwards the data is no
// longer part of the desired VM (Azure keeps it; it cannot change).
func (r *Reconciler) reconcileBootstrapData(ctx context.Context, s *scope) error {
	vm, err := r.Engine.Read(ctx, s.machine.Namespace, compute.VirtualMachineRef(s.machine.Name))
	if err != nil {
		return err
	}
	// The VM's spec lost its custom data once ASO had created it; unlike ASO's status, that survives clusterctl
	// move, where applying custom data again would fail (Azure cannot change it).
	if compute.VMCreated(vm) || compute.VMCustomDataDropped(vm) {
		return nil
	}
	name := s.machinePool.Spec.Template.Spec.Bootstrap.DataSecretName
	if name == nil {
		s.Waiting = lifecycle.Wait{Reason: infrav1.WaitingForBootstrapDataReason, Message: "waiting for the MachinePool's bootstrap data secret"}
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
	// The VM joins the scale set the pool has, named as the pool's controller names it.
	scaleSets, err := r.Engine.List(ctx, m.Namespace, compute.ScaleSets())
	if err != nil {
		return err
	}
	in := compute.ReplicaInput{
		Cluster:       c,
		ScaleSet:      compute.ScaleSetName(pool, scaleSets),
		Name:          m.Name,
		Model:         *m.Spec.Model,
		VNet:          s.infra.VNet(),
		DefaultSubnet: s.infra.SubnetFor(infrav1.SubnetNode),
		BootstrapData: s.bootstrapData,
	}
	for _, p := range s.infra.LBPools(false, false, false) {
		in.BackendPools = append(in.BackendPools, compute.BackendPoolRef{LoadBalancer: p.LoadBalancer, Pool: p.Pool})
	}
	if m.Spec.Model.Template.OSDisk.OSType == azure.WindowsOS {
		password, err := machinesecrets.WindowsPassword(ctx, r.APIReader, m.Namespace, m.Name)
		if err != nil {
			return err
		}
		in.WindowsAdminPassword = password
	}
	resources := compute.ReplicaResources(in)
	// An existing interface keeps its accelerated networking (Azure changes it only on a deallocated VM).
	if err := compute.KeepAcceleratedNetworking(resources, func(o azure.Object) (azure.Object, error) {
		return r.Engine.Read(ctx, m.Namespace, o)
	}); err != nil {
		return err
	}
	result, err := r.Engine.Reconcile(ctx, m, resources, aso.Options{
		ClusterName: s.cluster.Name, CredentialSecret: s.Credentials.SecretName,
		Kinds: s.Kinds, Patches: aso.UserPatches(pool.Spec.ASOPatches), PatchTargets: r.patchTargets,
	})
	s.Result = result
	return err
}

// reconcileVMStatus reads the VM's resource ID and provisioning state, as the engine read them.
func (r *Reconciler) reconcileVMStatus(_ context.Context, s *scope) error {
	s.vm, _ = compute.ReadVM(s.Result, s.machine.Name)
	return nil
}
