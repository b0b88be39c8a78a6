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

package asosim

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-service-operator/v2/pkg/genruntime"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/capzaso/cluster-api-provider-azure/azure/aso"
)

// Kinds returns the ASO kinds the simulator handles: every kind the provider produces.
func Kinds() []client.Object { return aso.Kinds() }

// Options configure the simulator.
type Options struct {
	// Scheme must hold the ASO kinds and core types.
	Scheme *runtime.Scheme
	// SubscriptionID is the fake Azure subscription, that of ASO's global credential; defaults to a fixed GUID.
	SubscriptionID string
	// ClientID and TenantID are the identity of ASO's global credential; they default to those of test/env's
	// FakeAzure (ASO's global credential on the fake Azure Resource Manager), so that both ASOs report the same.
	ClientID, TenantID string
	// NoGlobalCredential runs the simulator as an ASO installed without a global credential: an object with no
	// credential-from annotation, in a namespace without an aso-credential Secret, fails as ASO fails it (Ready
	// false, severity Warning, reason Failed, "global credential not configured, ...") and never reaches Azure.
	NoGlobalCredential bool
	// DeleteDelay is how long a deletion takes in Azure before ASO removes its finalizer.
	DeleteDelay time.Duration
	// Kubeconfig returns the kubeconfig ASO writes for a managed cluster; defaults to one pointing at its FQDN.
	Kubeconfig func(ctx context.Context, managedCluster client.Object, fqdn string) ([]byte, error)
	// Azure is the fake Azure the simulator works on; defaults to a new, empty one. Simulators given the same one
	// (one per management cluster, as for clusterctl move) see the same resources and record into one log.
	Azure *Azure
	// IgnoreLabel, when set, hides objects carrying this label key from the simulator: ASO never sees them (the
	// copies test/bench applies to measure the API server's own rate).
	IgnoreLabel string
	// RecordCreates keeps a copy of every ASO object as it was when the simulator created its resource in Azure,
	// the moment ASO sends its first PUT (see Simulator.Created).
	RecordCreates bool
}

// The identity of the simulator's global credential by default: that of test/env's FakeAzure.
const (
	DefaultClientID = "00000000-0000-0000-0000-00000000000c"
	DefaultTenantID = "00000000-0000-0000-0000-00000000000a"
)

// Azure is a fake Azure: its resources and the log of the operations on them.
type Azure struct {
	mu        sync.Mutex
	resources map[string]resource // ARM ID (lower case) → the fake Azure resource
	// removed counts, by ARM ID (lower case), the resources deleted there: one created again is a new instance,
	// with a new vmId, as in Azure.
	removed map[string]int
	events  []Event
	created []Created
	// uses are the credentials used in Azure (CredentialUses); lastUse is each object's last one.
	uses    []CredentialUse
	lastUse map[objectKey]CredentialUse
}

// Created is an ASO object as it was when the simulator created its resource in Azure: its references resolved,
// its owner Ready, what ASO's first PUT of the resource is made from.
type Created struct {
	// ID is the resource's ARM ID.
	ID string
	// Object is a copy of the ASO object.
	Object genruntime.ARMMetaObject
}

// NewAzure returns an empty fake Azure, to share between simulators.
func NewAzure() *Azure {
	return &Azure{resources: map[string]resource{}, removed: map[string]int{}, lastUse: map[objectKey]CredentialUse{}}
}

func (a *Azure) record(op, kind, id string) {
	a.events = append(a.events, Event{Op: op, Kind: kind, ID: id})
}

// Simulator is a running fake ASO.
type Simulator struct {
	client client.Client
	opts   Options

	azure *Azure

	mu     sync.Mutex
	faults map[objectKey]Fault
	// approved are private endpoints whose manual connections the remote owner approved.
	approved map[objectKey]bool
	cancel   context.CancelFunc
	done     chan error
}

// Event is an operation on the fake Azure.
type Event struct {
	Op   string // Create, Update or Delete
	Kind string
	ID   string
}

// Fault is a behaviour forced on one object.
type Fault struct {
	// Severity, Reason and Message make the object fail (Severity Error or Warning).
	Severity, Reason, Message string
	// Lag delays the object's reconciliation.
	Lag time.Duration
	// Reconciling keeps the object Ready=False with reason Reconciling.
	Reconciling bool
}

type objectKey struct {
	kind, namespace, name string
}

// Start runs the simulator with its own manager against the API server of cfg, until Stop.
func Start(ctx context.Context, cfg *rest.Config, opts Options) (*Simulator, error) {
	if opts.SubscriptionID == "" {
		opts.SubscriptionID = "00000000-0000-0000-0000-000000000000"
	}
	if opts.ClientID == "" {
		opts.ClientID = DefaultClientID
	}
	if opts.TenantID == "" {
		opts.TenantID = DefaultTenantID
	}
	if opts.Azure == nil {
		opts.Azure = NewAzure()
	}
	mgrOpts := ctrl.Options{
		Scheme:                 opts.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             controllerOptions(),
	}
	if opts.IgnoreLabel != "" {
		ignored, err := labels.NewRequirement(opts.IgnoreLabel, selection.DoesNotExist, nil)
		if err != nil {
			return nil, fmt.Errorf("invalid IgnoreLabel: %w", err)
		}
		mgrOpts.Cache.DefaultLabelSelector = labels.NewSelector().Add(*ignored)
	}
	mgr, err := ctrl.NewManager(cfg, mgrOpts)
	if err != nil {
		return nil, fmt.Errorf("failed to create the ASO simulator's manager: %w", err)
	}
	s := &Simulator{
		client: mgr.GetClient(), opts: opts, azure: opts.Azure,
		faults: map[objectKey]Fault{}, approved: map[objectKey]bool{},
		done: make(chan error, 1),
	}
	for _, obj := range Kinds() {
		gvk, err := mgr.GetClient().GroupVersionKindFor(obj)
		if err != nil {
			return nil, err
		}
		r := &reconciler{sim: s, gvk: gvk}
		if err := ctrl.NewControllerManagedBy(mgr).Named("asosim-" + strings.ToLower(gvk.Kind)).For(obj).Complete(r); err != nil {
			return nil, fmt.Errorf("failed to watch %s: %w", gvk.Kind, err)
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	go func() { s.done <- mgr.Start(runCtx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		cancel()
		return nil, fmt.Errorf("the ASO simulator's cache did not sync")
	}
	return s, nil
}

// controllerOptions lets several simulators (one per test package run) share controller names.
func controllerOptions() config.Controller {
	return config.Controller{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: 4}
}

// Stop stops the simulator.
func (s *Simulator) Stop() error {
	s.cancel()
	return <-s.done
}

// Fail makes Azure answer an object's PUT with an error code and message. The object reports it as ASO does:
// Ready=False, reason the code, severity Error for the few codes ASO deems fatal and Warning (retried) for every
// other one, unknown codes included.
func (s *Simulator) Fail(kind, namespace, name, code, message string) {
	severity := "Warning"
	if fatalAzureErrors.Has(code) {
		severity = "Error"
	}
	s.setFault(kind, namespace, name, Fault{Severity: severity, Reason: code, Message: message})
}

// fatalAzureErrors are the Azure error codes ASO v2.18 classifies as fatal: retrying the same request cannot
// succeed. It retries on every other code.
var fatalAzureErrors = sets.New(
	"PublicIpForGatewayIsRequired", "InvalidResourceType", "InvalidRequestContent", "InvalidTemplate",
	"InvalidValuesForRequestParameters", "InvalidGatewaySkuProvidedForGatewayVpnType", "InvalidGatewaySize",
	"K8sVersionNotSupported", "LocationRequired", "MissingRequiredParameter", "PasswordTooLong",
	"PrivateIPAddressInReservedRange", "PrivateIPAddressNotInSubnet", "PropertyChangeNotAllowed",
)

// StayReconciling keeps an object Ready=False with reason Reconciling.
func (s *Simulator) StayReconciling(kind, namespace, name string) {
	s.setFault(kind, namespace, name, Fault{Reconciling: true})
}

// Lag delays an object's reconciliation by d.
func (s *Simulator) Lag(kind, namespace, name string, d time.Duration) {
	s.setFault(kind, namespace, name, Fault{Lag: d})
}

// Heal removes the fault of an object; it becomes Ready on its next reconciliation, which Heal triggers.
func (s *Simulator) Heal(ctx context.Context, kind, namespace, name string) error {
	s.mu.Lock()
	delete(s.faults, objectKey{kind, namespace, name})
	s.mu.Unlock()
	return s.poke(ctx, kind, namespace, name)
}

func (s *Simulator) setFault(kind, namespace, name string, f Fault) {
	s.mu.Lock()
	s.faults[objectKey{kind, namespace, name}] = f
	s.mu.Unlock()
	_ = s.poke(context.Background(), kind, namespace, name)
}

// poke makes the simulator reconcile an object now, by touching an annotation.
func (s *Simulator) poke(ctx context.Context, kind, namespace, name string) error {
	for _, obj := range Kinds() {
		gvk, err := s.client.GroupVersionKindFor(obj)
		if err != nil || gvk.Kind != kind {
			continue
		}
		o := obj.DeepCopyObject().(client.Object)
		if err := s.client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, o); err != nil {
			return client.IgnoreNotFound(err)
		}
		p := client.MergeFrom(o.DeepCopyObject().(client.Object))
		a := o.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a["asosim.test/poked"] = time.Now().Format(time.RFC3339Nano)
		o.SetAnnotations(a)
		return s.client.Patch(ctx, o, p)
	}
	return fmt.Errorf("unknown kind %s", kind)
}

// ApprovePrivateEndpoint approves the manual connections of a private endpoint, as the remote owner would.
func (s *Simulator) ApprovePrivateEndpoint(ctx context.Context, namespace, name string) error {
	s.mu.Lock()
	s.approved[objectKey{"PrivateEndpoint", namespace, name}] = true
	s.mu.Unlock()
	return s.poke(ctx, "PrivateEndpoint", namespace, name)
}

func (s *Simulator) isApproved(key objectKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.approved[key]
}

// resource is a resource in the fake Azure.
type resource struct {
	kind string
	// id is the resource's ARM ID as last written (the map's key is in lower case).
	id   string
	tags map[string]string
	// spec is the hash of the ASO spec last PUT, so that any simulator sharing the Azure tells an update from a
	// repeated PUT of the same resource.
	spec string
	// properties are what ASO reads into the status of a seeded resource, besides its tags (SeedAzureProperties).
	properties map[string]any
	// put is the ASO spec last PUT, what Azure holds of a resource ASO wrote (nil for a seeded one until then).
	put map[string]any
	// instance counts the resources of the ID deleted before this one was created (a VM's vmId differs).
	instance int
}

// SeedAzure makes a resource exist in the fake Azure, with these tags, as one created outside Cluster API.
func (s *Simulator) SeedAzure(kind, armID string, tags map[string]string) {
	s.azure.mu.Lock()
	defer s.azure.mu.Unlock()
	s.azure.resources[strings.ToLower(armID)] = resource{kind: kind, id: armID, tags: tags}
}

// SeedAzureProperties gives a seeded resource properties that ASO reads into its objects' status, in the status's
// shape (e.g. "virtualMachineProfile" of a scale set), as ASO would read them from Azure.
func (s *Simulator) SeedAzureProperties(armID string, properties map[string]any) {
	s.azure.mu.Lock()
	defer s.azure.mu.Unlock()
	r := s.azure.resources[strings.ToLower(armID)]
	r.properties = properties
	s.azure.resources[strings.ToLower(armID)] = r
}

// DeleteInAzure deletes a resource and everything inside it from the fake Azure outside Cluster API and ASO, as a
// user with the portal would; ASO's objects do not notice until their next reconciliation (Resync). false when it
// does not exist.
func (s *Simulator) DeleteInAzure(armID string) bool {
	if !s.ExistsInAzure(armID) {
		return false
	}
	s.azure.mu.Lock()
	s.azure.remove(strings.ToLower(armID))
	s.azure.mu.Unlock()
	return true
}

// Resync makes the simulator reconcile an object now, as ASO does for every object after its sync period
// (AZURE_SYNC_PERIOD, an hour by default) or when it restarts: like ASO, it sends the object's PUT again.
func (s *Simulator) Resync(ctx context.Context, kind, namespace, name string) error {
	return s.poke(ctx, kind, namespace, name)
}

// ExistsInAzure reports whether a resource exists in the fake Azure.
func (s *Simulator) ExistsInAzure(armID string) bool {
	s.azure.mu.Lock()
	defer s.azure.mu.Unlock()
	_, ok := s.azure.resources[strings.ToLower(armID)]
	return ok
}

// Events returns the Azure-side operations so far, in order, of every simulator sharing the simulator's Azure.
func (s *Simulator) Events() []Event {
	s.azure.mu.Lock()
	defer s.azure.mu.Unlock()
	return append([]Event(nil), s.azure.events...)
}

// Created returns the objects of a namespace as the simulator created their resources in Azure, in order
// (Options.RecordCreates); a resource deleted and created again is there twice.
func (s *Simulator) Created(namespace string) []Created {
	s.azure.mu.Lock()
	defer s.azure.mu.Unlock()
	var out []Created
	for _, c := range s.azure.created {
		if c.Object.GetNamespace() == namespace {
			out = append(out, c)
		}
	}
	return out
}

// Deleted returns the ARM IDs deleted in Azure so far, sorted.
func (s *Simulator) Deleted() []string {
	var out []string
	for _, e := range s.Events() {
		if e.Op == "Delete" {
			out = append(out, e.ID)
		}
	}
	sort.Strings(out)
	return out
}

// SubscriptionID is the fake subscription.
func (s *Simulator) SubscriptionID() string { return s.opts.SubscriptionID }

// ClientID is the client ID of the simulator's global credential (Options.ClientID).
func (s *Simulator) ClientID() string { return s.opts.ClientID }

// fakeIP derives a stable address from a name: 20.x.y.z for public, 10.x.y.z for private ones.
func fakeIP(first int, name string) string {
	sum := sha256.Sum256([]byte(name))
	return fmt.Sprintf("%d.%d.%d.%d", first, sum[0]%250+1, sum[1]%250+1, sum[2]%250+4)
}

func sha256sum(s string) [32]byte { return sha256.Sum256([]byte(s)) }
