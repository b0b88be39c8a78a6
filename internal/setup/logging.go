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

package setup

import (
	"fmt"
	"strconv"

	"github.com/go-logr/logr"
	"k8s.io/component-base/logs"
	logsv1 "k8s.io/component-base/logs/api/v1"
)

// MaxLogVerbosity is the highest verbosity the manager logs at. From 8 on, client-go logs the bodies of the
// requests it sends and the responses it reads, through the logger of the request's context: bootstrap data
// Secrets, the VirtualMachines whose custom data holds them, Windows admin passwords and identity credentials.
// The provider's own messages stay at V(5) or below, as Cluster API's do.
const MaxLogVerbosity = 7

// QueueItemsMessage is the entry controller-runtime's priority queue logs at V(5) every ten seconds: its items,
// which the logger formats without the queue's lock while the queue's goroutines change them. That data race can
// crash the manager (kubernetes-sigs/controller-runtime#3588, fixed after v0.24.1); the items are the queue's
// internals, of no use to a user, so the manager's logger drops the entry.
const QueueItemsMessage = "workqueue_items"

// Logger returns base capped at MaxLogVerbosity: what is logged above it is dropped, whatever base's verbosity, and
// so is QueueItemsMessage.
func Logger(base logr.Logger) logr.Logger {
	sink := base.GetSink()
	if sink == nil {
		return base
	}
	if cd, ok := sink.(logr.CallDepthLogSink); ok {
		sink = cd.WithCallDepth(1) // for the frame of cappedSink
	}
	return logr.New(cappedSink{sink: sink})
}

// cappedSink passes on what is logged at MaxLogVerbosity or below, but QueueItemsMessage, and errors.
type cappedSink struct {
	sink logr.LogSink
}

// Init does nothing: the wrapped sink was initialised by its own logger.
func (cappedSink) Init(logr.RuntimeInfo) {}

func (s cappedSink) Enabled(level int) bool {
	return level <= MaxLogVerbosity && s.sink.Enabled(level)
}

func (s cappedSink) Info(level int, msg string, keysAndValues ...any) {
	if level <= MaxLogVerbosity && msg != QueueItemsMessage {
		s.sink.Info(level, msg, keysAndValues...)
	}
}

func (s cappedSink) Error(err error, msg string, keysAndValues ...any) {
	s.sink.Error(err, msg, keysAndValues...)
}

func (s cappedSink) WithValues(keysAndValues ...any) logr.LogSink {
	return cappedSink{sink: s.sink.WithValues(keysAndValues...)}
}

func (s cappedSink) WithName(name string) logr.LogSink {
	return cappedSink{sink: s.sink.WithName(name)}
}

func (s cappedSink) WithCallDepth(depth int) logr.LogSink {
	if cd, ok := s.sink.(logr.CallDepthLogSink); ok {
		return cappedSink{sink: cd.WithCallDepth(depth)}
	}
	return s
}

// CapLogVerbosity lowers -v and every --vmodule level of c to MaxLogVerbosity, before the logging configuration is
// applied; it returns a warning for each flag it lowered. klog's global logger (client-go's informers log through
// it) reads these levels, and Logger cannot wrap it.
func CapLogVerbosity(c *logsv1.LoggingConfiguration) []string {
	var warnings []string
	if c.Verbosity > MaxLogVerbosity {
		warnings = append(warnings, fmt.Sprintf("-v=%d lowered to %d: above it client-go logs request bodies, which hold bootstrap data and credentials", c.Verbosity, MaxLogVerbosity))
		c.Verbosity = MaxLogVerbosity
	}
	for i := range c.VModule {
		if item := &c.VModule[i]; item.Verbosity > MaxLogVerbosity {
			warnings = append(warnings, fmt.Sprintf("--vmodule %s=%d lowered to %d: above it client-go logs request bodies, which hold bootstrap data and credentials", item.FilePattern, item.Verbosity, MaxLogVerbosity))
			item.Verbosity = MaxLogVerbosity
		}
	}
	return warnings
}

// SetLogVerbosity sets -v at run time, as Kubernetes components' /debug/flags/v does, up to MaxLogVerbosity.
func SetLogVerbosity(value string) (string, error) {
	v, err := strconv.ParseUint(value, 10, 32)
	if err != nil {
		return "", fmt.Errorf("invalid verbosity %q: %w", value, err)
	}
	if v > MaxLogVerbosity {
		return "", fmt.Errorf("verbosity %d is above %d, from which request bodies holding bootstrap data and credentials are logged", v, MaxLogVerbosity)
	}
	return logs.GlogSetter(value)
}
