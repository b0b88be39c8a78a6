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

// Package clusterctl runs the real clusterctl binary (built from the pinned Cluster API module into hack/tools/bin by
// make test-tools) against the local management plane (test/plane), as a user follows the Cluster API book:
// clusterctl init --infrastructure azure from a local provider repository built like make release-manifests,
// clusterctl generate cluster --flavor, kubectl apply, clusterctl describe cluster and clusterctl move to a second
// management cluster. docs/clusterctl.md shows the same commands.
//
// The plane runs Cluster API and the provider in-process and no Pods (there is no kubelet), so the test prepares
// what init would otherwise install or wait for: cert-manager's Issuer and Certificate CRDs (stand-ins, so that init
// finds cert-manager's API and skips installing it), and Cluster API's core, kubeadm bootstrap and kubeadm control
// plane providers as a first init leaves them (inventory entries, clusterctl's labels on their CRDs); the plane runs
// them in-process (the kubeadm control plane only when asked: the test's AKS cluster needs none). init then installs
// only the provider's components; their Deployments never run, and the webhook configurations they bring, whose
// Services have no Pods behind them, are removed (the plane serves the same webhooks in-process). The target of the
// move is a plain API server with the Cluster API, ASO and provider CRDs, prepared and initialised the same way;
// nothing reconciles there.
package clusterctl
