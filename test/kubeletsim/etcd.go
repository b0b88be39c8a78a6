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

package kubeletsim

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"hash/fnv"
	"math/big"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
	"sigs.k8s.io/cluster-api/util/secret"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	// etcdClientPort is the client port of kubeadm's etcd static pod.
	etcdClientPort = 2379
	// etcdVersion is the version the simulated members report (kubeadm's for Kubernetes 1.34).
	etcdVersion = "3.6.4"
)

// etcdSim plays the stacked etcd of every kubeadm control plane whose Nodes the simulator registers: each control
// plane Node runs a member, reachable by port-forwarding to port 2379 of its etcd-<node> static pod, over TLS with a
// certificate of the cluster's etcd CA (the <cluster>-etcd Secret the kubeadm control plane provider creates), as
// the kubeadm control plane provider reaches it. A member answers what that provider asks: the member list, the
// member's status with the leader, alarms (none), moving the leadership and removing a member.
type etcdSim struct {
	secrets client.Reader

	mu       sync.Mutex
	clusters map[types.NamespacedName]*etcdCluster
	// members are by node name.
	members map[string]*etcdMember
}

// etcdCluster is the membership of one workload cluster's etcd.
type etcdCluster struct {
	key    types.NamespacedName
	id     uint64
	leader uint64
	// names are the current members' names by ID.
	names map[uint64]string
}

// etcdMember is one member, served once a client first reaches it.
type etcdMember struct {
	cluster *etcdCluster
	name    string
	id      uint64
	server  *grpc.Server
	conns   *pipeListener
}

func newEtcdSim(secrets client.Reader) *etcdSim {
	return &etcdSim{secrets: secrets, clusters: map[types.NamespacedName]*etcdCluster{}, members: map[string]*etcdMember{}}
}

// join adds a control plane Node's member to its cluster's etcd, as kubeadm init or join does; the first member
// leads.
func (e *etcdSim) join(namespace, cluster, node string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.members[node]; ok {
		return
	}
	key := types.NamespacedName{Namespace: namespace, Name: cluster}
	c := e.clusters[key]
	if c == nil {
		c = &etcdCluster{key: key, id: hashID(key.String()), names: map[uint64]string{}}
		e.clusters[key] = c
	}
	m := &etcdMember{cluster: c, name: node, id: hashID(key.String() + "/" + node)}
	c.names[m.id] = node
	if c.leader == 0 {
		c.leader = m.id
	}
	e.members[node] = m
}

// dialPod connects to a pod's port: the etcd member of an etcd-<node> pod on its client port; nothing else listens.
func (e *etcdSim) dialPod(namespace, pod string, port int) (net.Conn, error) {
	node, isEtcd := strings.CutPrefix(pod, "etcd-")
	if namespace != metav1.NamespaceSystem || !isEtcd || port != etcdClientPort {
		return refusePorts(namespace, pod, port)
	}
	m, err := e.running(node)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return refusePorts(namespace, pod, port)
	}
	client, server := net.Pipe()
	if err := m.conns.add(server); err != nil {
		return nil, err
	}
	return client, nil
}

// running is the member of a node, its server started; nil if the node has none.
func (e *etcdSim) running(node string) (*etcdMember, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := e.members[node]
	if m == nil {
		return nil, nil
	}
	if _, ok := m.cluster.names[m.id]; !ok {
		return nil, fmt.Errorf("etcd member %s was removed from its cluster and stopped", node)
	}
	if m.server == nil {
		if err := e.serve(m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// serve starts a member's gRPC server with a serving certificate of its cluster's etcd CA, which also verifies its
// clients' certificates, as kubeadm configures etcd.
func (e *etcdSim) serve(m *etcdMember) error {
	tlsConfig, err := e.memberTLS(m)
	if err != nil {
		return err
	}
	m.server = grpc.NewServer(grpc.Creds(credentials.NewTLS(tlsConfig)))
	srv := &memberServer{sim: e, member: m}
	etcdserverpb.RegisterMaintenanceServer(m.server, srv)
	etcdserverpb.RegisterClusterServer(m.server, srv)
	m.conns = newPipeListener()
	go func() { _ = m.server.Serve(m.conns) }()
	return nil
}

// memberTLS issues a member's serving certificate from its cluster's etcd CA.
func (e *etcdSim) memberTLS(m *etcdMember) (*tls.Config, error) {
	ca := &corev1.Secret{}
	key := client.ObjectKey{Namespace: m.cluster.key.Namespace, Name: secret.Name(m.cluster.key.Name, secret.EtcdCA)}
	if err := e.secrets.Get(context.Background(), key, ca); err != nil {
		return nil, fmt.Errorf("failed to read the etcd CA of cluster %s: %w", m.cluster.key, err)
	}
	caCerts, err := certutil.ParseCertsPEM(ca.Data[secret.TLSCrtDataName])
	if err != nil {
		return nil, fmt.Errorf("failed to parse the etcd CA of cluster %s: %w", m.cluster.key, err)
	}
	caKey, err := keyutil.ParsePrivateKeyPEM(ca.Data[secret.TLSKeyDataName])
	if err != nil {
		return nil, fmt.Errorf("failed to parse the etcd CA key of cluster %s: %w", m.cluster.key, err)
	}
	signer, ok := caKey.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("the etcd CA key of cluster %s cannot sign", m.cluster.key)
	}
	cert, err := issueCertificate(caCerts[0], signer, m.name)
	if err != nil {
		return nil, fmt.Errorf("failed to issue the serving certificate of etcd member %s: %w", m.name, err)
	}
	clientCAs := x509.NewCertPool()
	clientCAs.AddCert(caCerts[0])
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    clientCAs,
		MinVersion:   tls.VersionTLS12,
	}, nil
}

// issueCertificate issues a certificate for a name (and the loopback address) from a CA, for serving and for
// clients.
func issueCertificate(ca *x509.Certificate, caKey crypto.Signer, name string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		DNSNames:     []string{name, "localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// stop stops every member's server.
func (e *etcdSim) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, m := range e.members {
		if m.server != nil {
			m.server.Stop()
		}
	}
}

// header is the response header a member sends.
func (m *etcdMember) header() *etcdserverpb.ResponseHeader {
	return &etcdserverpb.ResponseHeader{ClusterId: m.cluster.id, MemberId: m.id, Revision: 1, RaftTerm: 2}
}

// list is the cluster's members, by name.
func (c *etcdCluster) list() []*etcdserverpb.Member {
	members := make([]*etcdserverpb.Member, 0, len(c.names))
	for id, name := range c.names {
		members = append(members, &etcdserverpb.Member{
			ID: id, Name: name,
			PeerURLs:   []string{fmt.Sprintf("https://%s:2380", name)},
			ClientURLs: []string{fmt.Sprintf("https://%s:%d", name, etcdClientPort)},
		})
	}
	slices.SortFunc(members, func(a, b *etcdserverpb.Member) int { return strings.Compare(a.Name, b.Name) })
	return members
}

// memberServer answers a member's maintenance and membership calls.
type memberServer struct {
	etcdserverpb.UnimplementedMaintenanceServer
	etcdserverpb.UnimplementedClusterServer
	sim    *etcdSim
	member *etcdMember
}

func (s *memberServer) Status(context.Context, *etcdserverpb.StatusRequest) (*etcdserverpb.StatusResponse, error) {
	s.sim.mu.Lock()
	defer s.sim.mu.Unlock()
	return &etcdserverpb.StatusResponse{Header: s.member.header(), Version: etcdVersion, Leader: s.member.cluster.leader,
		RaftTerm: 2, RaftIndex: 1, RaftAppliedIndex: 1, DbSize: 1 << 20, DbSizeInUse: 1 << 20, StorageVersion: "3.6.0"}, nil
}

// Alarm lists no alarm: the simulated members never run out of space nor corrupt their data.
func (s *memberServer) Alarm(context.Context, *etcdserverpb.AlarmRequest) (*etcdserverpb.AlarmResponse, error) {
	s.sim.mu.Lock()
	defer s.sim.mu.Unlock()
	return &etcdserverpb.AlarmResponse{Header: s.member.header()}, nil
}

func (s *memberServer) MoveLeader(_ context.Context, req *etcdserverpb.MoveLeaderRequest) (*etcdserverpb.MoveLeaderResponse, error) {
	s.sim.mu.Lock()
	defer s.sim.mu.Unlock()
	c := s.member.cluster
	if _, ok := c.names[req.TargetID]; !ok {
		return nil, status.Error(codes.FailedPrecondition, "etcdserver: bad leader transferee")
	}
	c.leader = req.TargetID
	return &etcdserverpb.MoveLeaderResponse{Header: s.member.header()}, nil
}

func (s *memberServer) MemberList(context.Context, *etcdserverpb.MemberListRequest) (*etcdserverpb.MemberListResponse, error) {
	s.sim.mu.Lock()
	defer s.sim.mu.Unlock()
	return &etcdserverpb.MemberListResponse{Header: s.member.header(), Members: s.member.cluster.list()}, nil
}

// MemberRemove removes a member; a removed leader hands the leadership to the first remaining member.
func (s *memberServer) MemberRemove(_ context.Context, req *etcdserverpb.MemberRemoveRequest) (*etcdserverpb.MemberRemoveResponse, error) {
	s.sim.mu.Lock()
	defer s.sim.mu.Unlock()
	c := s.member.cluster
	if _, ok := c.names[req.ID]; !ok {
		return nil, status.Error(codes.NotFound, "etcdserver: member not found")
	}
	delete(c.names, req.ID)
	if c.leader == req.ID {
		c.leader = 0
		if remaining := c.list(); len(remaining) > 0 {
			c.leader = remaining[0].ID
		}
	}
	return &etcdserverpb.MemberRemoveResponse{Header: s.member.header(), Members: c.list()}, nil
}

// hashID is a member or cluster ID derived from a name.
func hashID(name string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return h.Sum64()
}

// pipeListener hands in-process connections to a gRPC server.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *pipeListener) add(c net.Conn) error {
	select {
	case l.conns <- c:
		return nil
	case <-l.closed:
		return errors.New("the etcd member stopped")
	}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "etcd" }
