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

package machinesecrets

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/azure/compute"
)

// Bootstrap data and Windows password Secrets are read from the API server (the manager does not cache Secrets).
//
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// BootstrapData returns the value of a bootstrap data Secret (key "value", as Cluster API's bootstrap provider
// contract says; cloud-config and ignition make no difference to a VM).
func BootstrapData(ctx context.Context, reader client.Reader, namespace, name string) ([]byte, error) {
	secret := &corev1.Secret{}
	if err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, secret); err != nil {
		return nil, fmt.Errorf("failed to get the bootstrap data Secret %s/%s: %w", namespace, name, err)
	}
	value, ok := secret.Data["value"]
	if !ok {
		return nil, fmt.Errorf("the bootstrap data Secret %s/%s has no key value", namespace, name)
	}
	return value, nil
}

// WindowsPassword returns the admin password of a Windows VM (or scale set) named owner: the one in its password
// Secret (compute.WindowsPasswordSecretName), or a new random one the first time. It is never logged nor placed
// in an ASO object's spec.
func WindowsPassword(ctx context.Context, reader client.Reader, namespace, owner string) (string, error) {
	secret := &corev1.Secret{}
	err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: compute.WindowsPasswordSecretName(owner)}, secret)
	switch {
	case err == nil && len(secret.Data[compute.WindowsPasswordKey]) > 0:
		return string(secret.Data[compute.WindowsPasswordKey]), nil
	case err != nil && !apierrors.IsNotFound(err):
		return "", err
	}
	random := make([]byte, 24)
	if _, err := rand.Read(random); err != nil {
		return "", err
	}
	// Azure requires three of: lower case, upper case, digit, special character.
	return "Aa1!" + base64.RawURLEncoding.EncodeToString(random), nil
}
