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

package image

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/cluster-api/cmd/clusterctl/client/yamlprocessor"
	utilyaml "sigs.k8s.io/cluster-api/util/yaml"
)

// injectCAAnnotation is cert-manager's CA injector's annotation: <namespace>/<Certificate>.
const injectCAAnnotation = "cert-manager.io/inject-ca-from"

// Components are the objects of the rendered infrastructure-components.yaml, after clusterctl's variable
// substitution with every variable at its default (clusterctl init without variables set).
type Components struct {
	Objects []unstructured.Unstructured
}

// ReadComponents reads and substitutes the components YAML at path as clusterctl init does.
func ReadComponents(path string) (*Components, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out, err := yamlprocessor.NewSimpleProcessor().Process(raw, func(name string) (string, error) {
		return "", fmt.Errorf("variable %s is not set", name)
	})
	if err != nil {
		return nil, fmt.Errorf("failed to substitute the variables of %s as clusterctl would: %w", path, err)
	}
	objs, err := utilyaml.ToUnstructured(out)
	if err != nil {
		return nil, fmt.Errorf("failed to parse %s: %w", path, err)
	}
	return &Components{Objects: objs}, nil
}

// ofKind converts the objects of a kind into their typed form.
func ofKind[T any](c *Components, kind string) ([]*T, error) {
	var out []*T
	for _, u := range c.Objects {
		if u.GetKind() != kind {
			continue
		}
		t := new(T)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, t); err != nil {
			return nil, fmt.Errorf("failed to convert %s %s: %w", kind, u.GetName(), err)
		}
		out = append(out, t)
	}
	return out, nil
}

// Deployments are the components' Deployments.
func (c *Components) Deployments() ([]*appsv1.Deployment, error) {
	return ofKind[appsv1.Deployment](c, "Deployment")
}

// Provider is what the components install for the Deployment that runs the manager, found by following references
// from it (nothing is named in the test): its namespace and ServiceAccount, the roles bound to that ServiceAccount
// and their bindings, the Services that select its pods, the webhook configurations and CRD conversions that call
// those Services, every CRD, and the ClusterRole that grants reading its metrics. The other objects (the bundled
// ASO, which the plane's ASO simulator plays) are not installed; neither are the Deployment (the container plays
// it) nor cert-manager's Certificate and Issuer (the test plays cert-manager: Certificate).
type Provider struct {
	Install []unstructured.Unstructured
	// WebhookService is the Service the webhook configurations call, and MetricsService the other that selects the
	// pods.
	WebhookService, MetricsService *corev1.Service
	// MetricsReader is the ClusterRole that grants GET on the metrics path, MetricsPath.
	MetricsReader string
	MetricsPath   string
	// Certificate is cert-manager's Certificate of the Secret the container mounts (its serving certificate).
	Certificate *unstructured.Unstructured
}

// ProviderOf finds what the components install for Deployment d (see Provider).
func (c *Components) ProviderOf(d *appsv1.Deployment, ctr *Container) (*Provider, error) {
	p := &Provider{}
	ns, sa := d.Namespace, ctr.ServiceAccount
	podLabels := labels.Set(d.Spec.Template.Labels)
	isSubject := func(subjects []rbacv1.Subject) bool {
		return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool {
			return s.Kind == rbacv1.ServiceAccountKind && s.Name == sa && s.Namespace == ns
		})
	}
	boundRoles := map[string]bool{}
	var services []*corev1.Service
	for _, u := range c.Objects {
		switch u.GetKind() {
		case "RoleBinding", "ClusterRoleBinding":
			b := &rbacv1.RoleBinding{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, b); err != nil {
				return nil, err
			}
			if isSubject(b.Subjects) {
				boundRoles[b.RoleRef.Kind+"/"+b.Namespace+"/"+b.RoleRef.Name] = true
				p.Install = append(p.Install, u)
			}
		case "Service":
			s := &corev1.Service{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, s); err != nil {
				return nil, err
			}
			if s.Namespace == ns && len(s.Spec.Selector) > 0 && labels.SelectorFromSet(s.Spec.Selector).Matches(podLabels) {
				services = append(services, s)
				p.Install = append(p.Install, u)
			}
		}
	}
	callsService := func(svc *admissionregistrationv1.ServiceReference) *corev1.Service {
		for _, s := range services {
			if svc != nil && svc.Namespace == s.Namespace && svc.Name == s.Name {
				return s
			}
		}
		return nil
	}
	for _, u := range c.Objects {
		switch u.GetKind() {
		case "Namespace":
			if u.GetName() == ns {
				p.Install = append(p.Install, u)
			}
		case "ServiceAccount":
			if u.GetNamespace() == ns && u.GetName() == sa {
				p.Install = append(p.Install, u)
			}
		case "Role":
			if boundRoles["Role/"+u.GetNamespace()+"/"+u.GetName()] {
				p.Install = append(p.Install, u)
			}
		case "ClusterRole":
			role := &rbacv1.ClusterRole{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, role); err != nil {
				return nil, err
			}
			if boundRoles["ClusterRole//"+u.GetName()] {
				p.Install = append(p.Install, u)
				continue
			}
			// A role of non-resource URLs only, bound to no one here: the metrics reader a user binds a scraper to.
			if len(role.Rules) == 1 && len(role.Rules[0].NonResourceURLs) == 1 && len(role.Rules[0].Resources) == 0 {
				if p.MetricsReader != "" {
					return nil, fmt.Errorf("two metrics reader roles: %s and %s", p.MetricsReader, role.Name)
				}
				p.MetricsReader, p.MetricsPath = role.Name, role.Rules[0].NonResourceURLs[0]
				p.Install = append(p.Install, u)
			}
		case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
			webhooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
			for _, w := range webhooks {
				ref := &admissionregistrationv1.ServiceReference{}
				svc, _, _ := unstructured.NestedMap(w.(map[string]any), "clientConfig", "service")
				ref.Namespace, _ = svc["namespace"].(string)
				ref.Name, _ = svc["name"].(string)
				if s := callsService(ref); s != nil {
					if p.WebhookService != nil && p.WebhookService.Name != s.Name {
						return nil, errors.New("the webhook configurations call two Services")
					}
					p.WebhookService = s
					p.Install = append(p.Install, u)
					break
				}
			}
		case "CustomResourceDefinition":
			p.Install = append(p.Install, u)
		case "Certificate":
			secret, _, _ := unstructured.NestedString(u.Object, "spec", "secretName")
			if _, mounted := ctr.SecretMounts[secret]; mounted && u.GetNamespace() == ns {
				p.Certificate = u.DeepCopy()
			}
		}
	}
	for _, s := range services {
		if p.WebhookService == nil || s.Name != p.WebhookService.Name {
			if p.MetricsService != nil {
				return nil, fmt.Errorf("two Services besides the webhooks' select the pods: %s and %s", p.MetricsService.Name, s.Name)
			}
			p.MetricsService = s
		}
	}
	switch {
	case p.WebhookService == nil:
		return nil, errors.New("no webhook configuration calls a Service of the Deployment's pods")
	case p.MetricsService == nil:
		return nil, errors.New("no metrics Service selects the Deployment's pods")
	case p.MetricsReader == "":
		return nil, errors.New("no ClusterRole grants reading the metrics")
	case p.Certificate == nil:
		return nil, errors.New("no Certificate makes a Secret the container mounts")
	}
	return p, nil
}

// ServiceURL is the URL at which the API server reaches the container through a Service of its pods: the container
// serves on the host's network, so the Service's port becomes the container port it targets, on loopback.
func ServiceURL(s *corev1.Service, port int32, path string, ctr *Container) (*url.URL, error) {
	if port == 0 {
		port = 443
	}
	for _, sp := range s.Spec.Ports {
		if sp.Port != port {
			continue
		}
		target := sp.TargetPort
		if target.Type == intstr.Int && target.IntVal == 0 {
			target = intstr.FromInt32(sp.Port)
		}
		cp, err := ctr.Port(target)
		if err != nil {
			return nil, fmt.Errorf("port %d of Service %s: %w", port, s.Name, err)
		}
		return &url.URL{Scheme: "https", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(int(cp))), Path: path}, nil
	}
	return nil, fmt.Errorf("the Service %s has no port %d", s.Name, port)
}

// IssueCertificate plays cert-manager for a self-signed Certificate (the components' Issuer is selfSigned): the
// Secret's tls.crt, tls.key and ca.crt (for a self-signed certificate, itself), for the Certificate's DNS names and
// 127.0.0.1, where the API server reaches the container in the test.
func IssueCertificate(cert *unstructured.Unstructured) (map[string][]byte, error) {
	dnsNames, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
	if len(dnsNames) == 0 {
		return nil, fmt.Errorf("the Certificate %s has no DNS names", cert.GetName())
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: dnsNames[0]},
		DNSNames:              dnsNames,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	crt := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return map[string][]byte{
		corev1.TLSCertKey:       crt,
		corev1.TLSPrivateKeyKey: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		"ca.crt":                crt,
	}, nil
}

// PointWebhooks does what cert-manager's CA injector and a cluster's Service network do for the webhook
// configurations and CRD conversions that call svc: the CA of the Certificate their annotation names goes into
// their caBundle, and their Service reference becomes the URL at which the container serves (ServiceURL).
func PointWebhooks(objs []unstructured.Unstructured, svc *corev1.Service, cert *unstructured.Unstructured, ca []byte, ctr *Container) error {
	certRef := cert.GetNamespace() + "/" + cert.GetName()
	point := func(cc map[string]any) error {
		ref, ok := cc["service"].(map[string]any)
		if !ok || ref["name"] != svc.Name || ref["namespace"] != svc.Namespace {
			return nil
		}
		path, _ := ref["path"].(string)
		var port int64
		switch v := ref["port"].(type) {
		case int64:
			port = v
		case float64:
			port = int64(v)
		}
		u, err := ServiceURL(svc, int32(port), path, ctr)
		if err != nil {
			return err
		}
		delete(cc, "service")
		cc["url"] = u.String()
		cc["caBundle"] = base64.StdEncoding.EncodeToString(ca)
		return nil
	}
	for i := range objs {
		u := &objs[i]
		switch u.GetKind() {
		case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
			if u.GetAnnotations()[injectCAAnnotation] != certRef {
				continue
			}
			webhooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
			for _, w := range webhooks {
				cc, _ := w.(map[string]any)["clientConfig"].(map[string]any)
				if err := point(cc); err != nil {
					return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
				}
			}
			if err := unstructured.SetNestedSlice(u.Object, webhooks, "webhooks"); err != nil {
				return err
			}
		case "CustomResourceDefinition":
			cc, found, _ := unstructured.NestedMap(u.Object, "spec", "conversion", "webhook", "clientConfig")
			if !found {
				continue
			}
			if u.GetAnnotations()[injectCAAnnotation] != certRef {
				return fmt.Errorf("the CRD %s converts through the webhooks without the CA of %s", u.GetName(), certRef)
			}
			if err := point(cc); err != nil {
				return fmt.Errorf("the CRD %s: %w", u.GetName(), err)
			}
			if err := unstructured.SetNestedMap(u.Object, cc, "spec", "conversion", "webhook", "clientConfig"); err != nil {
				return err
			}
		}
	}
	return nil
}

// WebhookFor is the name of the webhook of a configuration kind (ValidatingWebhookConfiguration ...) in objs whose
// rules cover resource (plural) of group.
func WebhookFor(objs []unstructured.Unstructured, kind, group, resource string) (string, error) {
	for _, u := range objs {
		if u.GetKind() != kind {
			continue
		}
		webhooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
		for _, w := range webhooks {
			wm := w.(map[string]any)
			rules, _, _ := unstructured.NestedSlice(wm, "rules")
			for _, r := range rules {
				groups, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "apiGroups")
				resources, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "resources")
				if slices.Contains(groups, group) && slices.Contains(resources, resource) {
					name, _ := wm["name"].(string)
					return name, nil
				}
			}
		}
	}
	return "", fmt.Errorf("no %s webhook for %s.%s", kind, resource, strings.TrimPrefix(group, "."))
}
