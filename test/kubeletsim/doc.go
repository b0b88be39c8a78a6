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

// Package kubeletsim plays, in a workload cluster's API server, what Azure's machines would write there: the Node
// of every AzureMachine and of every instance of a Flexible AzureMachinePool whose VM ASO reports created (as
// kubelet with cloud-provider-azure registers it, with the VM's provider ID), what kubeadm init leaves in
// kube-system when a control plane node comes up (the kubeadm-config ConfigMap, which KubeadmControlPlane reads as
// "initialized"), the Nodes of AKS agent pools, as many as ASO reports for each pool, and, given the fake ARM, the
// Nodes of the instances Azure makes from a scale set's model (a Uniform one's, or a Flexible one's VMs). On control
// plane Nodes it
// also plays what the kubeadm control plane provider checks: kubeadm's static pods (mirror pods, reported running
// and ready) and the stacked etcd, one member per control plane Node, which the provider reaches as on Azure: a
// port-forward through the workload cluster's API server to the etcd pod (the Nodes report one HTTPS kubelet
// endpoint on the loopback address that serves port forwarding) and TLS with the cluster's etcd CA. The members
// answer the member list, status, alarms, leadership moves and member removal, so control planes become Available,
// scale and roll out. It is a simulation for end-to-end tests and the local management plane: no container runs.
package kubeletsim
