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

package logcapture

import (
	"encoding/base64"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"

	"github.com/capzaso/cluster-api-provider-azure/internal/setup"
)

// Verbosity is the level both loggers of a Capture log at: every V() a library uses.
const Verbosity = 10

// Capture records a manager's logs. The zero value is not usable: call New.
type Capture struct {
	mu sync.Mutex
	// logged is everything the capped logger wrote, one entry a line.
	logged strings.Builder
	// watched are the forms of the secrets the uncapped logger looks for, and seen says which it saw.
	watched []string
	seen    map[string]bool
}

// New returns an empty Capture.
func New() *Capture {
	return &Capture{seen: map[string]bool{}}
}

// Logger returns the logger to give the manager (ctrl.Options.Logger): main.go's cap over a logger at Verbosity
// that writes into c, the uncapped observer, and klog's usual output (go test -args -v=N still shows the logs).
func (c *Capture) Logger() logr.Logger {
	capped := setup.Logger(funcr.New(c.write, funcr.Options{Verbosity: Verbosity}))
	uncapped := funcr.New(c.observe, funcr.Options{Verbosity: Verbosity})
	tee := teeSink{capped.GetSink(), uncapped.GetSink(), klog.Background().GetSink()}
	for i, s := range tee {
		if cd, ok := s.(logr.CallDepthLogSink); ok {
			tee[i] = cd.WithCallDepth(1) // for the frame of teeSink
		}
	}
	return logr.New(tee)
}

func (c *Capture) write(prefix, args string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logged.WriteString(prefix)
	c.logged.WriteString(" ")
	c.logged.WriteString(args)
	c.logged.WriteString("\n")
}

func (c *Capture) observe(_, args string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.watched {
		if !c.seen[w] && strings.Contains(args, w) {
			c.seen[w] = true
		}
	}
}

// Watch makes the uncapped logger look for secret in every form Forms lists, from now on.
func (c *Capture) Watch(secret []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watched = append(c.watched, Forms(secret)...)
}

// SeenUncapped reports whether the uncapped logger saw secret, in any of its forms, since it was watched.
func (c *Capture) SeenUncapped(secret []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range Forms(secret) {
		if c.seen[f] {
			return true
		}
	}
	return false
}

// Logged returns what the capped logger has written so far.
func (c *Capture) Logged() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logged.String()
}

// Leaks returns the forms of secret that logs contains.
func Leaks(logs string, secret []byte) []string {
	var out []string
	for _, f := range Forms(secret) {
		if strings.Contains(logs, f) {
			out = append(out, f)
		}
	}
	return out
}

// Forms returns the strings that give secret away in a log: the secret itself; its base64 (a Secret's data,
// custom data); and, for a secret embedded in larger data that is base64-encoded, the characters that encode
// only its bytes at each of the three offsets it may start at. Short secrets have fewer forms.
func Forms(secret []byte) []string {
	forms := []string{string(secret), base64.StdEncoding.EncodeToString(secret)}
	for offset := range 3 {
		// offset bytes before the secret; the encoding of whole groups of 3 bytes that hold only secret bytes.
		padded := append(make([]byte, offset), secret...)
		encoded := base64.StdEncoding.EncodeToString(padded)
		start := 4 * ((offset + 2) / 3) // the first group that starts at or after the secret
		end := 4 * (len(padded) / 3)    // the end of the last whole group
		if end-start >= 16 {
			forms = append(forms, encoded[start:end])
		}
	}
	return forms
}

// teeSink sends every entry but setup.QueueItemsMessage (a data race to format) to each of its sinks that is enabled
// at the entry's level.
type teeSink []logr.LogSink

func (t teeSink) Init(logr.RuntimeInfo) {}

func (t teeSink) Enabled(level int) bool {
	for _, s := range t {
		if s.Enabled(level) {
			return true
		}
	}
	return false
}

func (t teeSink) Info(level int, msg string, keysAndValues ...any) {
	if msg == setup.QueueItemsMessage {
		return
	}
	for _, s := range t {
		if s.Enabled(level) {
			s.Info(level, msg, keysAndValues...)
		}
	}
}

func (t teeSink) Error(err error, msg string, keysAndValues ...any) {
	for _, s := range t {
		s.Error(err, msg, keysAndValues...)
	}
}

func (t teeSink) WithValues(keysAndValues ...any) logr.LogSink {
	out := make(teeSink, len(t))
	for i, s := range t {
		out[i] = s.WithValues(keysAndValues...)
	}
	return out
}

func (t teeSink) WithName(name string) logr.LogSink {
	out := make(teeSink, len(t))
	for i, s := range t {
		out[i] = s.WithName(name)
	}
	return out
}
