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

package kubeflags

import (
	"flag"
	"fmt"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/capzaso/cluster-api-provider-azure/internal/scheme"
)

// Flags are the management cluster a command works on.
type Flags struct {
	Kubeconfig string
	Context    string
	// Namespace limits the command to one namespace's objects; empty: every namespace.
	Namespace string
}

// Register adds --kubeconfig, --context and --namespace (described by namespaceUsage) to fs.
func Register(fs *flag.FlagSet, namespaceUsage string) *Flags {
	f := &Flags{}
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "the management cluster's kubeconfig (default: $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&f.Context, "context", "", "the kubeconfig context to use (default: its current context)")
	fs.StringVar(&f.Namespace, "namespace", "", namespaceUsage)
	return f
}

// Client is a client of the management cluster that reads the API server directly, with the provider's scheme.
func (f *Flags) Client() (client.Client, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.Kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: f.Context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("failed to load the kubeconfig: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("failed to create a client: %w", err)
	}
	return c, nil
}
