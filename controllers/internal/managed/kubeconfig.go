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

package managed

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// KubeconfigSecret is Cluster API's kubeconfig secret of a cluster, <cluster>-kubeconfig: type
// cluster.x-k8s.io/secret, labelled with the cluster name (Cluster API only caches such secrets), key value. It is
// applied by the engine as a supporting object of the control plane, which owns it.
func KubeconfigSecret(cluster string, kubeconfig []byte) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   secret.Name(cluster, secret.Kubeconfig),
			Labels: map[string]string{clusterv1.ClusterNameLabel: cluster},
		},
		Type: clusterv1.ClusterSecretType,
		Data: map[string][]byte{secret.KubeconfigDataName: kubeconfig},
	}
}

// SecretRef names a key of a secret ASO writes.
type SecretRef struct {
	Name, Key string
}

// ReadKubeconfig returns the first kubeconfig ASO has written among the given secrets (admin credentials
// first), or nil while there is none. Kubeconfigs are credentials: never log them.
func ReadKubeconfig(ctx context.Context, reader client.Reader, namespace string, refs ...SecretRef) ([]byte, error) {
	for _, ref := range refs {
		if ref.Name == "" {
			continue
		}
		s := &corev1.Secret{}
		err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, s)
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("failed to get Secret %s/%s: %w", namespace, ref.Name, err)
		case len(s.Data[ref.Key]) > 0:
			return s.Data[ref.Key], nil
		}
	}
	return nil, nil
}
