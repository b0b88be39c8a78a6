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

package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// WriteVerbs are the verbs of the requests that change objects.
var WriteVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}

// IsWrite reports whether a verb changes objects.
func IsWrite(verb string) bool { return slices.Contains(WriteVerbs, verb) }

// Scope is what the policy logs: the requests of Users and of Verbs only, every user's or every verb's when empty.
type Scope struct {
	Users, Verbs []string
}

// Policy is the audit policy of the scope: every resource request at Metadata level (who, which verb, which object,
// when, the response code), logged once: a watch when it starts (informers list by watching, so the lists tell what
// a cache holds), any other request when its response is complete. Discovery and other non-resource requests are
// left out.
func (s Scope) Policy() string {
	var b strings.Builder
	b.WriteString("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [\"RequestReceived\"]\nrules:\n" +
		"- level: None\n  nonResourceURLs: [\"*\"]\n")
	users := ""
	if len(s.Users) > 0 {
		users = "  users: " + list(s.Users) + "\n"
	}
	if len(s.Verbs) == 0 || slices.Contains(s.Verbs, "watch") {
		b.WriteString("- level: Metadata\n" + users + "  verbs: [\"watch\"]\n  omitStages: [\"RequestReceived\", \"ResponseComplete\"]\n")
	}
	b.WriteString("- level: Metadata\n" + users)
	if len(s.Verbs) > 0 {
		b.WriteString("  verbs: " + list(s.Verbs) + "\n")
	}
	b.WriteString("- level: None\n")
	return b.String()
}

// list is a YAML flow sequence of strings.
func list(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// Event holds the fields of an audit.k8s.io/v1 Event that the harness reads.
type Event struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	// ObjectRef is nil for a non-resource request.
	ObjectRef      *ObjectRef `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	Annotations              map[string]string `json:"annotations"`
	RequestReceivedTimestamp time.Time         `json:"requestReceivedTimestamp"`
	StageTimestamp           time.Time         `json:"stageTimestamp"`
}

// ObjectRef is the object a request is to.
type ObjectRef struct {
	Resource    string `json:"resource"`
	Subresource string `json:"subresource"`
	APIGroup    string `json:"apiGroup"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
}

// Logged reports whether the event is the one that logs its resource request once: a watch's ResponseStarted,
// any other request's ResponseComplete.
func (e Event) Logged() bool {
	if e.ObjectRef == nil {
		return false
	}
	if e.Verb == "watch" {
		return e.Stage == "ResponseStarted"
	}
	return e.Stage == "ResponseComplete"
}

// Code is the response's status code, 0 when the event has none.
func (e Event) Code() int {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

// Read calls fn with each event of an audit log (one JSON event a line). A last line cut short (by the API
// server's stop) is skipped; a broken line inside the log is an error.
func Read(r io.Reader, fn func(Event)) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var e Event
			if jsonErr := json.Unmarshal(line, &e); jsonErr != nil {
				if err == nil {
					return fmt.Errorf("failed to read an audit event: %w", jsonErr)
				}
			} else {
				fn(e)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
