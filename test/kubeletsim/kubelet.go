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
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"
)

const (
	// portForwardProtocolV1 is the port-forward protocol kubelet speaks over SPDY; the API server translates a
	// client's WebSocket tunnel into it.
	portForwardProtocolV1 = "portforward.k8s.io"
	// streamIdleTimeout closes a port-forward connection nobody uses, as kubelet does.
	streamIdleTimeout = 4 * time.Hour
)

// dialPodFunc connects to a port of a pod that the simulated node runs.
type dialPodFunc func(namespace, pod string, port int) (net.Conn, error)

// kubeletServer is the HTTPS endpoint of the simulated kubelets of a Simulator, one for all its Nodes (each Node
// reports it as its kubelet endpoint, on the loopback address). It serves what the API server asks kubelets for
// pods: port forwarding. Serving it matters beyond realism: a client whose port-forward the API server refuses falls
// back from WebSockets to SPDY, and the kubeadm control plane provider's concurrent etcd dials share one SPDY round
// tripper, which the race detector reports.
type kubeletServer struct {
	listener net.Listener
	server   *http.Server
	dialPod  dialPodFunc
}

// startKubeletServer listens on a free loopback port with a self-signed certificate (the API server does not verify
// kubelets' certificates unless told to).
func startKubeletServer(dialPod dialPodFunc) (*kubeletServer, error) {
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.IPv4(127, 0, 0, 1)}, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to create the kubelet's serving certificate: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("failed to load the kubelet's serving certificate: %w", err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		return nil, fmt.Errorf("failed to listen for the kubelet's endpoint: %w", err)
	}
	k := &kubeletServer{listener: l, dialPod: dialPod}
	mux := http.NewServeMux()
	mux.HandleFunc("/portForward/{namespace}/{pod}", k.servePortForward)
	k.server = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = k.server.Serve(l) }()
	return k, nil
}

// port is the port the Nodes report as their kubelet's.
func (k *kubeletServer) port() int32 {
	return int32(k.listener.Addr().(*net.TCPAddr).Port) //nolint:gosec // A TCP port fits.
}

func (k *kubeletServer) stop() {
	_ = k.server.Close()
}

// servePortForward upgrades the request to SPDY and forwards each data stream to the pod's port, reporting a port
// it cannot reach on the request's error stream, as kubelet does.
func (k *kubeletServer) servePortForward(w http.ResponseWriter, req *http.Request) {
	if _, err := httpstream.Handshake(req, w, []string{portForwardProtocolV1}); err != nil {
		return // Handshake answered.
	}
	namespace, pod := req.PathValue("namespace"), req.PathValue("pod")
	streams := make(chan httpstream.Stream)
	done := make(chan struct{})
	defer close(done)
	conn := spdy.NewResponseUpgrader().UpgradeResponse(w, req, func(s httpstream.Stream, _ <-chan struct{}) error {
		select {
		case streams <- s:
			return nil
		case <-done:
			return fmt.Errorf("the port-forward connection is closed")
		}
	})
	if conn == nil {
		return // UpgradeResponse answered.
	}
	// The handler ends when the client has gone or the stream idled out: a failed close has no one to report to.
	defer func() { _ = conn.Close() }()
	conn.SetIdleTimeout(streamIdleTimeout)

	pairs := map[string]*streamPair{}
	for {
		select {
		case <-conn.CloseChan():
			return
		case s := <-streams:
			id := s.Headers().Get(corev1.PortForwardRequestIDHeader)
			p := pairs[id]
			if p == nil {
				p = &streamPair{}
				pairs[id] = p
			}
			if !p.add(s) {
				continue
			}
			delete(pairs, id)
			go k.forward(namespace, pod, p)
		}
	}
}

// streamPair is the error and data streams of one port-forward request.
type streamPair struct {
	errorStream, dataStream httpstream.Stream
}

// add records a stream and reports whether the pair is complete.
func (p *streamPair) add(s httpstream.Stream) bool {
	switch s.Headers().Get(corev1.StreamType) {
	case corev1.StreamTypeError:
		p.errorStream = s
	case corev1.StreamTypeData:
		p.dataStream = s
	default:
		_ = s.Reset()
	}
	return p.errorStream != nil && p.dataStream != nil
}

// forward copies between the data stream and the pod's port until either side ends.
func (k *kubeletServer) forward(namespace, pod string, p *streamPair) {
	defer p.errorStream.Close()
	defer p.dataStream.Close()
	port, err := strconv.Atoi(p.dataStream.Headers().Get(corev1.PortHeader))
	if err == nil {
		var target net.Conn
		if target, err = k.dialPod(namespace, pod, port); err == nil {
			defer target.Close()
			copyBoth(target, p.dataStream)
			return
		}
	}
	// The client may have closed its side of the error stream already; the message is for those who read it.
	_, _ = fmt.Fprintf(p.errorStream, "error forwarding port %s to pod %s/%s: %v",
		p.dataStream.Headers().Get(corev1.PortHeader), namespace, pod, err)
}

// copyBoth copies in both directions until one of them ends.
func copyBoth(a, b io.ReadWriteCloser) {
	var once sync.Once
	done := make(chan struct{})
	pipe := func(dst io.Writer, src io.Reader) {
		_, _ = io.Copy(dst, src)
		once.Do(func() { close(done) })
	}
	go pipe(a, b)
	go pipe(b, a)
	<-done
}
