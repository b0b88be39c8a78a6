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

package v1beta1

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// identityWebhook runs one kind's validating webhook on clusters with and without an identityRef.
type identityWebhook struct {
	create func(opts WebhookOptions, identity bool) error
	update func(opts WebhookOptions, oldIdentity, identity bool) error
}

func identityRef(identity bool) *corev1.ObjectReference {
	if !identity {
		return nil
	}
	return &corev1.ObjectReference{Kind: "AzureClusterIdentity", Name: "identity"}
}

func newAzureCluster(identity bool, annotations map[string]string) *AzureCluster {
	c := &AzureCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: "ns", Annotations: annotations},
		Spec: AzureClusterSpec{AzureClusterClassSpec: AzureClusterClassSpec{
			Location: "eastus", SubscriptionID: "00000000-0000-0000-0000-000000000000", IdentityRef: identityRef(identity),
		}},
	}
	c.SetDefaults()
	return c
}

var identityWebhooks = map[string]identityWebhook{
	"AzureCluster": {
		create: func(opts WebhookOptions, identity bool) error {
			_, err := azureClusterWebhook{opts: opts}.ValidateCreate(context.Background(), newAzureCluster(identity, nil))
			return err
		},
		update: func(opts WebhookOptions, oldIdentity, identity bool) error {
			_, err := azureClusterWebhook{opts: opts}.ValidateUpdate(context.Background(), newAzureCluster(oldIdentity, nil), newAzureCluster(identity, nil))
			return err
		},
	},
	"AzureManagedControlPlane": {
		create: func(opts WebhookOptions, identity bool) error {
			c := newManagedControlPlane(func(c *AzureManagedControlPlane) { c.Spec.IdentityRef = identityRef(identity) })
			_, err := azureManagedControlPlaneWebhook{opts: opts}.ValidateCreate(context.Background(), c)
			return err
		},
		update: func(opts WebhookOptions, oldIdentity, identity bool) error {
			old := newManagedControlPlane(func(c *AzureManagedControlPlane) { c.Spec.IdentityRef = identityRef(oldIdentity) })
			c := newManagedControlPlane(func(c *AzureManagedControlPlane) { c.Spec.IdentityRef = identityRef(identity) })
			_, err := azureManagedControlPlaneWebhook{opts: opts}.ValidateUpdate(context.Background(), old, c)
			return err
		},
	},
}

func TestWebhookOptions_IdentityRefRequired(t *testing.T) {
	allow := WebhookOptions{AllowASODefaultCredential: true}
	tests := []struct {
		name        string
		opts        WebhookOptions
		create      bool
		oldIdentity bool
		identity    bool
		refused     bool
	}{
		{name: "create with an identity", create: true, identity: true},
		{name: "create without an identity", create: true, refused: true},
		{name: "create without an identity, allowed", opts: allow, create: true},
		{name: "update that keeps the identity", oldIdentity: true, identity: true},
		{name: "update that removes the identity", oldIdentity: true, refused: true},
		{name: "update that removes the identity, allowed", opts: allow, oldIdentity: true},
		{name: "update of a cluster that had none", oldIdentity: false},
		{name: "update that adds an identity", identity: true},
	}
	for kind, w := range identityWebhooks {
		for _, tt := range tests {
			t.Run(kind+"/"+tt.name, func(t *testing.T) {
				g := NewWithT(t)
				var err error
				if tt.create {
					err = w.create(tt.opts, tt.identity)
				} else {
					err = w.update(tt.opts, tt.oldIdentity, tt.identity)
				}
				if !tt.refused {
					g.Expect(err).NotTo(HaveOccurred())
					return
				}
				g.Expect(err).To(MatchError(ContainSubstring("spec.identityRef: Required value: " + IdentityRefRequiredMessage)))
			})
		}
	}
}

func TestAzureClusterWebhook_IdentityRefRequired(t *testing.T) {
	t.Run("an externally managed AzureCluster needs one too: its machines take their credential from it", func(t *testing.T) {
		g := NewWithT(t)
		c := newAzureCluster(false, map[string]string{clusterv1.ManagedByAnnotation: "terraform"})
		_, err := azureClusterWebhook{}.ValidateCreate(context.Background(), c)
		g.Expect(err).To(MatchError(ContainSubstring("spec.identityRef: Required value")))
	})
	t.Run("a deletion is never held up", func(t *testing.T) {
		g := NewWithT(t)
		old, c := newAzureCluster(true, nil), newAzureCluster(false, nil)
		now := metav1.Now()
		c.DeletionTimestamp = &now
		_, err := azureClusterWebhook{}.ValidateUpdate(context.Background(), old, c)
		g.Expect(err).NotTo(HaveOccurred())
	})
	t.Run("AdmissionFor admits a cluster without one, as translators and fuzzers need", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(AdmissionFor(&AzureCluster{}).Create(context.Background(), newAzureCluster(false, nil))).To(Succeed())
		g.Expect(AdmissionFor(&AzureManagedControlPlane{}).Create(context.Background(),
			newManagedControlPlane(func(c *AzureManagedControlPlane) { c.Spec.IdentityRef = nil }))).To(Succeed())
	})
}
