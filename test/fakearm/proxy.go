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

package fakearm

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Azure's public cloud, whose hosts the proxy answers itself.
const (
	// entraHost is Entra ID's public authority host: where MSAL sends instance discovery for an authority host it
	// does not know, and where a client of the public cloud (CAPZ, whose clouds are set in code) gets its tokens.
	entraHost = "login.microsoftonline.com"
	// armHost is the public cloud's Resource Manager, which a client of the public cloud calls.
	armHost = "management.azure.com"
)

// interceptedHosts are the hosts whose HTTPS connections the proxy answers itself.
var interceptedHosts = []string{entraHost, armHost}

// isHost tells whether a request's host (with or without its port) is host.
func isHost(hostport, host string) bool {
	h := hostport
	if name, _, err := net.SplitHostPort(hostport); err == nil {
		h = name
	}
	return strings.EqualFold(h, host)
}

func isInterceptedHost(hostport string) bool {
	for _, h := range interceptedHosts {
		if isHost(hostport, h) {
			return true
		}
	}
	return false
}

// serveProxy takes a CONNECT to an intercepted host and hands the connection to the fake's HTTPS server (its
// certificate names the host too); it refuses everything else, so nothing goes past this machine.
func (s *Server) serveProxy(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "the fake ARM's proxy only tunnels HTTPS", http.StatusMethodNotAllowed)
		return
	}
	if _, port, err := net.SplitHostPort(r.Host); err != nil || port != "443" || !isInterceptedHost(r.Host) {
		http.Error(w, "the fake ARM's proxy reaches no "+r.Host, http.StatusForbidden)
		return
	}
	hijacker, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "cannot take over the connection", http.StatusInternalServerError)
		return
	}
	conn, buffered, err := hijacker.Hijack()
	if err != nil {
		return
	}
	if _, err := conn.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		_ = conn.Close()
		return
	}
	c := conn
	if buffered.Reader.Buffered() > 0 {
		c = &prereadConn{Conn: conn, reader: buffered.Reader}
	}
	if !s.intercepted.push(c) {
		_ = conn.Close()
	}
}

// prereadConn is a connection whose first bytes were already read into a buffer.
type prereadConn struct {
	net.Conn
	reader *bufio.Reader
}

func (c *prereadConn) Read(p []byte) (int, error) { return c.reader.Read(p) }

// connListener is a listener whose connections are pushed to it.
type connListener struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newConnListener(addr net.Addr) *connListener {
	return &connListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// push hands a connection to Accept; false once the listener is closed.
func (l *connListener) push(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return l.addr }
