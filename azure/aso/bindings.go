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

package aso

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// IdentityBinding binds one piece of the platform's identity material to the AzureClusterIdentity that may use
// it. Whoever may create an AzureClusterIdentity can write any client ID or path into it; only a binding, which
// only the platform's administrators can write (the manager's own configuration), makes it usable.
type IdentityBinding struct {
	// Identity is the AzureClusterIdentity, <namespace>/<name>.
	Identity string `json:"identity"`
	// ClientID is a WorkloadIdentity's or UserAssignedMSI's client ID: ASO acts with its own federated or managed
	// identity for it, so knowing it is enough to use it.
	ClientID string `json:"clientID,omitempty"`
	// CertPath is a ServicePrincipalCertificate's certPath, a file of the manager's pod.
	CertPath string `json:"certPath,omitempty"`
	// UserAssignedIdentityCredentialsPath is a UserAssignedIdentityCredential's file, in ASO's pod.
	UserAssignedIdentityCredentialsPath string `json:"userAssignedIdentityCredentialsPath,omitempty"`
}

// bindingsDocument is the file of --identity-bindings.
type bindingsDocument struct {
	Bindings []IdentityBinding `json:"bindings"`
}

// BindingsFile reads the identity bindings from a file (--identity-bindings, typically a ConfigMap mounted into
// the manager's pod). It reads the file again when its modification time or size changes, so that an update of
// the ConfigMap takes effect without a restart.
type BindingsFile struct {
	Path string

	mu       sync.Mutex
	stamp    string
	bindings []IdentityBinding
}

// Load returns the bindings of the file. A file that cannot be read or parsed is an error, never "no bindings":
// the policy fails closed.
func (f *BindingsFile) Load() ([]IdentityBinding, error) {
	info, err := os.Stat(f.Path)
	if err != nil {
		return nil, fmt.Errorf("failed to read the identity bindings: %w", err)
	}
	stamp := fmt.Sprint(info.ModTime().UnixNano(), "/", info.Size())
	f.mu.Lock()
	defer f.mu.Unlock()
	if stamp == f.stamp {
		return f.bindings, nil
	}
	content, err := os.ReadFile(f.Path)
	if err != nil {
		return nil, fmt.Errorf("failed to read the identity bindings: %w", err)
	}
	doc := bindingsDocument{}
	if err := yaml.UnmarshalStrict(content, &doc); err != nil {
		return nil, fmt.Errorf("failed to parse the identity bindings %s: %w", f.Path, err)
	}
	for i, b := range doc.Bindings {
		if err := b.validate(); err != nil {
			return nil, fmt.Errorf("identity bindings %s: bindings[%d]: %w", f.Path, i, err)
		}
	}
	f.stamp, f.bindings = stamp, doc.Bindings
	return f.bindings, nil
}

func (b IdentityBinding) validate() error {
	namespace, name, ok := strings.Cut(b.Identity, "/")
	if !ok || namespace == "" || name == "" {
		return fmt.Errorf("identity %q is not <namespace>/<name>", b.Identity)
	}
	set := 0
	for _, v := range []string{b.ClientID, b.CertPath, b.UserAssignedIdentityCredentialsPath} {
		if v != "" {
			set++
		}
	}
	if set != 1 {
		return errors.New("set exactly one of clientID, certPath and userAssignedIdentityCredentialsPath")
	}
	return nil
}

// boundMaterial returns what of an identity needs a binding: the field and its normalised value (normalised); ""
// for an identity whose secret is a Secret's (a service principal's client secret or certificate), which the Secret
// rules govern.
func boundMaterial(identity *infrav1.AzureClusterIdentity) (field, value string) {
	spec := identity.Spec
	switch spec.Type {
	case infrav1.ServicePrincipalCertificate:
		if spec.CertPath != "" {
			return certPathField, normalised(certPathField, spec.CertPath)
		}
	case infrav1.UserAssignedIdentityCredential:
		return credentialsPathField, normalised(credentialsPathField, spec.UserAssignedIdentityCredentialsPath)
	case infrav1.WorkloadIdentity, infrav1.UserAssignedMSI:
		return clientIDField, normalised(clientIDField, spec.ClientID)
	}
	return "", ""
}

// The fields of boundMaterial.
const (
	certPathField        = "certPath"
	credentialsPathField = "userAssignedIdentityCredentialsPath"
	clientIDField        = "clientID"
)

// normalised is the form in which values of a field are compared, so that one file or client ID cannot be written
// two ways: a certificate path with its links resolved (a Secret or ConfigMap volume reaches every file also
// through its ..data link), a credential file's path cleaned (the file is in ASO's pod, not the manager's, so
// only its spelling can be normalised), and a client ID (a GUID) in lower case.
func normalised(field, value string) string {
	switch field {
	case certPathField:
		clean := filepath.Clean(value)
		if resolved, err := filepath.EvalSymlinks(clean); err == nil {
			return resolved
		}
		return clean
	case credentialsPathField:
		return filepath.Clean(value)
	case clientIDField:
		return strings.ToLower(strings.TrimSpace(value))
	}
	return value
}

// value returns the binding's normalised value of a field of boundMaterial.
func (b IdentityBinding) value(field string) string {
	var v string
	switch field {
	case certPathField:
		v = b.CertPath
	case credentialsPathField:
		v = b.UserAssignedIdentityCredentialsPath
	case clientIDField:
		v = b.ClientID
	}
	if v == "" {
		return ""
	}
	return normalised(field, v)
}

// bindingProblem says why an identity may not use its certificate file, credential file or federated client ID:
// a binding gives it to another identity, or the strict policy finds no binding for it. "" when it may.
func (e *Engine) bindingProblem(identity *infrav1.AzureClusterIdentity) (string, error) {
	field, value := boundMaterial(identity)
	if field == "" {
		return "", nil
	}
	var bindings []IdentityBinding
	if e.Bindings != nil {
		var err error
		if bindings, err = e.Bindings.Load(); err != nil {
			return "", err
		}
	}
	self := identity.Namespace + "/" + identity.Name
	var others []string
	for _, b := range bindings {
		if b.value(field) != value {
			continue
		}
		if b.Identity == self {
			return "", nil
		}
		others = append(others, b.Identity)
	}
	switch {
	case len(others) > 0:
		return fmt.Sprintf("the %s %s of AzureClusterIdentity %s is bound to AzureClusterIdentity %s by the manager's identity "+
			"bindings, not to this identity", field, value, self, strings.Join(others, ", ")), nil
	case e.strict():
		return fmt.Sprintf("the %s %s of AzureClusterIdentity %s is not bound to it in the manager's identity bindings "+
			"(--identity-bindings), which the strict credential policy requires", field, value, self), nil
	}
	return "", nil
}
