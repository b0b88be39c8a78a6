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

package lifecycle

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Owners are the Cluster API objects an object belongs to. Cluster is always set.
type Owners struct {
	Cluster *clusterv1.Cluster
	// Machine owns an AzureMachine; MachinePool owns the infrastructure object of a machine pool.
	Machine     *clusterv1.Machine
	MachinePool *clusterv1.MachinePool
}

// addTo adds the owners to a logger, as Cluster API's reconcilers log them.
func (o *Owners) addTo(log logr.Logger) logr.Logger {
	if o.Machine != nil {
		log = log.WithValues("Machine", klog.KObj(o.Machine))
	}
	if o.MachinePool != nil {
		log = log.WithValues("MachinePool", klog.KObj(o.MachinePool))
	}
	return log.WithValues("Cluster", klog.KObj(o.Cluster))
}

// OwnerLookup finds an object's owners. It returns nil owners, and what it waits for, while they are not there
// yet; the watches on the owners bring the object back.
type OwnerLookup func(ctx context.Context, c client.Client, obj client.Object) (owners *Owners, waitingFor string, err error)

// ClusterOwner finds the Cluster through the object's owner reference, which Cluster API sets on infrastructure
// cluster and control plane objects.
func ClusterOwner(ctx context.Context, c client.Client, obj client.Object) (*Owners, string, error) {
	cluster, err := util.GetOwnerCluster(ctx, c, metaOf(obj))
	if err != nil {
		return nil, "", fmt.Errorf("failed to get the owner Cluster of %s: %w", klog.KObj(obj), err)
	}
	if cluster == nil {
		return nil, "the Cluster controller to set an owner reference", nil
	}
	return &Owners{Cluster: cluster}, "", nil
}

// MachineOwner finds the Machine through the object's owner reference, then the Machine's Cluster.
func MachineOwner(ctx context.Context, c client.Client, obj client.Object) (*Owners, string, error) {
	machine, err := util.GetOwnerMachine(ctx, c, metaOf(obj))
	if err != nil {
		return nil, "", fmt.Errorf("failed to get the owner Machine of %s: %w", klog.KObj(obj), err)
	}
	if machine == nil {
		return nil, "the Machine controller to set an owner reference", nil
	}
	owners, waitingFor, err := clusterOf(ctx, c, machine)
	if owners != nil {
		owners.Machine = machine
	}
	return owners, waitingFor, err
}

// MachinePoolOwner finds the MachinePool through the object's owner reference, then the MachinePool's Cluster.
func MachinePoolOwner(ctx context.Context, c client.Client, obj client.Object) (*Owners, string, error) {
	machinePool, err := util.GetOwnerMachinePool(ctx, c, metaOf(obj))
	if err != nil {
		return nil, "", fmt.Errorf("failed to get the owner MachinePool of %s: %w", klog.KObj(obj), err)
	}
	if machinePool == nil {
		return nil, "the MachinePool controller to set an owner reference", nil
	}
	owners, waitingFor, err := clusterOf(ctx, c, machinePool)
	if owners != nil {
		owners.MachinePool = machinePool
	}
	return owners, waitingFor, err
}

// ClusterLabel finds the Cluster named by the object's cluster-name label.
func ClusterLabel(ctx context.Context, c client.Client, obj client.Object) (*Owners, string, error) {
	return clusterOf(ctx, c, obj)
}

// clusterOf finds the Cluster an object's cluster-name label names.
func clusterOf(ctx context.Context, c client.Client, obj client.Object) (*Owners, string, error) {
	name := obj.GetLabels()[clusterv1.ClusterNameLabel]
	if name == "" {
		return nil, fmt.Sprintf("the %s label on %s", clusterv1.ClusterNameLabel, klog.KObj(obj)), nil
	}
	cluster := &clusterv1.Cluster{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Sprintf("Cluster %s", klog.KRef(obj.GetNamespace(), name)), nil
		}
		return nil, "", fmt.Errorf("failed to get Cluster %s: %w", klog.KRef(obj.GetNamespace(), name), err)
	}
	return &Owners{Cluster: cluster}, "", nil
}

// metaOf is the metadata Cluster API's owner lookups read.
func metaOf(obj client.Object) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: obj.GetNamespace(), Name: obj.GetName(), Labels: obj.GetLabels(), OwnerReferences: obj.GetOwnerReferences()}
}

// ClusterRefOrLabel finds the Cluster that owns the object (an owner reference, which Cluster API sets on the
// templates its control planes and MachineDeployments use), else the one its cluster-name label names (which
// ClusterClass topologies set).
func ClusterRefOrLabel(ctx context.Context, c client.Client, obj client.Object) (*Owners, string, error) {
	name := ClusterName(obj)
	if name == "" {
		return nil, fmt.Sprintf("Cluster API to give %s its Cluster", klog.KObj(obj)), nil
	}
	cluster := &clusterv1.Cluster{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Sprintf("Cluster %s", klog.KRef(obj.GetNamespace(), name)), nil
		}
		return nil, "", fmt.Errorf("failed to get Cluster %s: %w", klog.KRef(obj.GetNamespace(), name), err)
	}
	return &Owners{Cluster: cluster}, "", nil
}

// ClusterName is the name of an object's Cluster: its Cluster owner, else its cluster-name label (see
// ClusterRefOrLabel).
func ClusterName(obj client.Object) string {
	for _, ref := range obj.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil && ref.Kind == "Cluster" && gv.Group == clusterv1.GroupVersion.Group {
			return ref.Name
		}
	}
	return obj.GetLabels()[clusterv1.ClusterNameLabel]
}
