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

package azuremachine

import (
	"context"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
	"github.com/capzaso/cluster-api-provider-azure/azure/resources"
	"github.com/capzaso/cluster-api-provider-azure/internal/clusterinfra"
	"github.com/capzaso/cluster-api-provider-azure/internal/lifecycle"
)

// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachines,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachines/status,verbs=patch
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=azuremachines/finalizers,verbs=update
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines,verbs=get;list;watch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get;list;watch

// Reconciler reconciles AzureMachines.
type Reconciler struct {
	Client client.Client
	// APIReader reads what the manager does not cache: bootstrap data secrets and the cluster's infrastructure
	// object of a kind it does not watch.
	APIReader client.Reader
	Engine    *aso.Engine

	// WatchFilterValue is the label value used to filter events prior to reconciliation.
	WatchFilterValue string
}

// SetupWithManager sets up the controller with the manager.
func (r *Reconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	_, err := (&lifecycle.Kind[*infrav1.AzureMachine, *scope]{
		Client: r.Client, Engine: r.Engine, WatchFilterValue: r.WatchFilterValue,
		Needs:         map[string]any{"API reader": r.APIReader},
		New:           func() *infrav1.AzureMachine { return &infrav1.AzureMachine{} },
		ForPredicates: []predicate.Predicate{lifecycle.IgnoreStatusOnlyUpdates()},
		Cluster:       lifecycle.ClusterWatch{Provisioned: true},
		Watches: []lifecycle.Watch{
			// The Machine's spec (bootstrap data secret, version, failure domain), labels and owners matter here, not
			// its status, which Cluster API updates many times while the machine comes up.
			{Object: &clusterv1.Machine{},
				Handler:    handler.EnqueueRequestsFromMapFunc(util.MachineToInfrastructureMapFunc(infrav1.GroupVersion.WithKind("AzureMachine"))),
				Predicates: []predicate.Predicate{lifecycle.IgnoreStatusOnlyUpdates()}},
		},
		Owns:      compute.MachineKinds(),
		Finalizer: infrav1.MachineFinalizer,
		Owners:    lifecycle.MachineOwner,
		Scope: func(am *infrav1.AzureMachine, owners *lifecycle.Owners) *scope {
			return &scope{cluster: owners.Cluster, machine: owners.Machine, azureMachine: am}
		},
		WhilePaused: func(ctx context.Context, s *scope) error {
			_, creds, err := clusterinfra.PausedCredentials(ctx, r.APIReader, r.Client, r.Engine, s.cluster, s.azureMachine, s.Kinds)
			s.Credentials = &creds
			return err
		},
		Phases:       []lifecycle.Phase[*scope]{r.reconcileClusterInfrastructure, r.reconcileBootstrapData, r.reconcileResources, r.reconcileMachineStatus},
		Deletes:      "the machine's Azure resources",
		BeforeDelete: r.takeOverBeforeDelete,
		DeleteOrder:  compute.MachineDeleteOrder,
		// As CAPZ's, a deleted Cluster's machines go with its resource group, when the cluster owns it.
		GoWithCluster: resources.GoWithGroup(),
		GoWithOwner:   compute.MachineGoesWithVM,
		Status:        updateStatus,
	}).Setup(ctx, mgr, options)
	return err
}

// scope holds what the phases of one reconciliation learn; updateStatus turns it into status and conditions.
type scope struct {
	lifecycle.State
	// cluster, machine and azureMachine are read by the lifecycle.
	cluster      *clusterv1.Cluster
	machine      *clusterv1.Machine
	azureMachine *infrav1.AzureMachine

	// infra is set by reconcileClusterInfrastructure: the facts read from the cluster's infrastructure object.
	infra *clusterinfra.Infrastructure
	// bootstrapData is set by reconcileBootstrapData while the VM does not exist yet; nil afterwards.
	bootstrapData []byte
	// vmCreated is set by reconcileBootstrapData: ASO has reported the VM created.
	vmCreated bool
	// takingOver is set by reconcileResources for a machine whose VM the provider did not make (takeOver), and
	// capzDifferences to the deliberate differences from CAPZ waiting for the user's opt-in.
	takingOver      bool
	capzDifferences []string
	// vmDeleted is set by reconcileMachineStatus when the machine's VM was deleted outside Cluster API after it was
	// provisioned: why the machine is failed (infrav1.VMDeletedReason).
	vmDeleted string
}
