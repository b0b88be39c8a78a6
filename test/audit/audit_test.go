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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"sigs.k8s.io/yaml"
)

// TestScope_Policy: the policy is a valid audit.k8s.io/v1 Policy that leaves non-resource requests out and logs
// each resource request of the scope once: a watch when it starts, anything else when it completes.
func TestScope_Policy(t *testing.T) {
	none, metadata := auditv1.LevelNone, auditv1.LevelMetadata
	received, complete := auditv1.StageRequestReceived, auditv1.StageResponseComplete
	nonResource := auditv1.PolicyRule{Level: none, NonResourceURLs: []string{"*"}}
	tests := []struct {
		name  string
		scope Scope
		want  []auditv1.PolicyRule
	}{{
		name:  "every request",
		scope: Scope{},
		want: []auditv1.PolicyRule{nonResource,
			{Level: metadata, Verbs: []string{"watch"}, OmitStages: []auditv1.Stage{received, complete}},
			{Level: metadata}, {Level: none}},
	}, {
		name:  "a user's requests",
		scope: Scope{Users: []string{"system:serviceaccount:ns:sa"}},
		want: []auditv1.PolicyRule{nonResource,
			{Level: metadata, Users: []string{"system:serviceaccount:ns:sa"}, Verbs: []string{"watch"}, OmitStages: []auditv1.Stage{received, complete}},
			{Level: metadata, Users: []string{"system:serviceaccount:ns:sa"}}, {Level: none}},
	}, {
		name:  "writes only: no watch",
		scope: Scope{Users: []string{"u"}, Verbs: WriteVerbs},
		want:  []auditv1.PolicyRule{nonResource, {Level: metadata, Users: []string{"u"}, Verbs: WriteVerbs}, {Level: none}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			var p auditv1.Policy
			g.Expect(yaml.UnmarshalStrict([]byte(tt.scope.Policy()), &p)).To(Succeed())
			g.Expect(p.APIVersion).To(Equal("audit.k8s.io/v1"))
			g.Expect(p.Kind).To(Equal("Policy"))
			g.Expect(p.OmitStages).To(Equal([]auditv1.Stage{received}))
			g.Expect(p.Rules).To(Equal(tt.want))
		})
	}
}

// TestRead: every event of a log, each logged request once; a last line cut short ends the log, a broken line inside
// it is an error.
func TestRead(t *testing.T) {
	g := NewWithT(t)
	lines := []string{
		`{"stage":"ResponseComplete","verb":"patch","userAgent":"m","user":{"username":"u"},"objectRef":{"resource":"azuremachines","subresource":"status","apiGroup":"g","namespace":"n","name":"m"},"responseStatus":{"code":201},"annotations":{"authorization.k8s.io/decision":"allow"},"requestReceivedTimestamp":"2026-01-02T03:04:05.123456Z","stageTimestamp":"2026-01-02T03:04:06Z"}`,
		`{"stage":"ResponseStarted","verb":"watch","requestURI":"/api/v1/secrets?watch=true","objectRef":{"resource":"secrets"}}`,
		`{"stage":"ResponseComplete","verb":"watch","objectRef":{"resource":"secrets"}}`,
		`{"stage":"ResponseComplete","verb":"get","requestURI":"/healthz"}`,
		``,
	}
	var events []Event
	g.Expect(Read(strings.NewReader(strings.Join(lines, "\n")+"\n"+`{"stage":"Resp`), func(e Event) { events = append(events, e) })).To(Succeed())
	g.Expect(events).To(HaveLen(4))
	e := events[0]
	g.Expect(e.Logged()).To(BeTrue())
	g.Expect(IsWrite(e.Verb)).To(BeTrue())
	g.Expect(e.Code()).To(Equal(201))
	g.Expect(e.UserAgent).To(Equal("m"))
	g.Expect(e.User.Username).To(Equal("u"))
	g.Expect(*e.ObjectRef).To(Equal(ObjectRef{Resource: "azuremachines", Subresource: "status", APIGroup: "g", Namespace: "n", Name: "m"}))
	g.Expect(e.Annotations).To(HaveKeyWithValue("authorization.k8s.io/decision", "allow"))
	g.Expect(e.RequestReceivedTimestamp.Nanosecond()).To(Equal(123456000))
	g.Expect(e.StageTimestamp.Sub(e.RequestReceivedTimestamp).Seconds()).To(BeNumerically("~", 0.876544, 1e-9))
	g.Expect([]bool{events[1].Logged(), events[2].Logged(), events[3].Logged()}).To(Equal([]bool{true, false, false}),
		"a watch when it starts, not when it ends; no non-resource request")
	g.Expect(events[1].Code()).To(BeZero())
	g.Expect(IsWrite(events[1].Verb)).To(BeFalse())

	err := Read(strings.NewReader("not json\n"+lines[0]+"\n"), func(Event) {})
	g.Expect(err).To(MatchError(ContainSubstring("failed to read an audit event")))
}
