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

package tenancyaso

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
	"github.com/capzaso/cluster-api-provider-azure/test/env"
	"github.com/capzaso/cluster-api-provider-azure/test/plane"
)

// p is the management cluster: Cluster API, the provider under the strict credential policy, and ASO's own
// controllers against the fake Azure Resource Manager, with ASO's global credential configured (as a platform that
// forgot the advice of docs/security.md would have it), so that any fallback to it would show.
var p *plane.Plane

// certFile is the platform's certificate (with its key), a file of the manager's pod in its --identity-cert-dirs,
// mounted as Kubernetes mounts a Secret volume: dir/platform.pem links to dir/..data/platform.pem.
var certFile string

// The platform's identities that the manager's bindings name; the tenants copy what they are bound to.
const (
	boundNamespace       = "platform-identities"
	boundManagedIdentity = "platform-mi"
	boundCertificate     = "platform-cert"
)

// writeCertificateVolume writes a self-signed certificate and its key as one PEM file, laid out as a Secret volume
// (the file links to ..data/file, and ..data to a timestamped directory), and returns the file's path.
func writeCertificateVolume(dir, file string) (string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	template := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "platform"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return "", err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", err
	}
	content := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})...)
	const version = "..2026_01_01_00_00_00.000000000"
	if err := os.MkdirAll(filepath.Join(dir, version), 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, version, file), content, 0o600); err != nil {
		return "", err
	}
	if err := os.Symlink(version, filepath.Join(dir, "..data")); err != nil {
		return "", err
	}
	path := filepath.Join(dir, file)
	return path, os.Symlink(filepath.Join("..data", file), path)
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "tenancyaso")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }() // a leftover temporary directory does not change the tests' result
	// The team's identity is a service principal with a client secret, which needs no binding; the platform's
	// managed identity and certificate are bound to identities of the platform's, which tenants copy.
	certDir, bindings := filepath.Join(dir, "certs"), filepath.Join(dir, "bindings.yaml")
	if certFile, err = writeCertificateVolume(certDir, "platform.pem"); err == nil {
		err = os.WriteFile(bindings, []byte(fmt.Sprintf(`bindings:
- identity: %[1]s/%[2]s
  clientID: %[3]s
- identity: %[1]s/%[4]s
  certPath: %[5]s
`, boundNamespace, boundManagedIdentity, platformClientID, boundCertificate, certFile)), 0o600)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	p = plane.New(plane.Options{RealASO: true, Provider: setup.Options{
		CredentialPolicy: aso.StrictPolicy,
		IdentityBindings: &aso.BindingsFile{Path: bindings},
		IdentityCertDirs: []string{certDir},
	}})
	ctx := context.Background()
	return env.Run(ctx, m, p.EnvOptions(ctx))
}
