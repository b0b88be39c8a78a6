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

package progress

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "sigs.k8s.io/cluster-api/util/yaml"
)

var update = flag.Bool("update", false, "Rewrite the golden files of testdata/.")

// TestBuildAndRender builds the tree of testdata/clusters.yaml and renders it in full and cut to a terminal's
// width with colours, against golden files.
func TestBuildAndRender(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "clusters.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := utilyaml.ToUnstructured(raw)
	if err != nil {
		t.Fatal(err)
	}
	rows := Build(objs)
	for _, tc := range []struct {
		golden string
		opts   RenderOptions
	}{
		{golden: "clusters.golden", opts: RenderOptions{}},
		{golden: "clusters-100-color.golden", opts: RenderOptions{Width: 100, Color: true}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			got := Render(rows, tc.opts)
			path := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("Render differs from %s (go test -update rewrites it) (-want +got):\n%s", path, diff)
			}
		})
	}
}

func TestBuild_Tree(t *testing.T) {
	g := NewWithT(t)
	raw, err := os.ReadFile(filepath.Join("testdata", "clusters.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	objs, err := utilyaml.ToUnstructured(raw)
	g.Expect(err).NotTo(HaveOccurred())
	rows := Build(objs)
	g.Expect(labels(rows)).To(Equal([]string{"Cluster default/aks-sample", "Cluster default/capz-sample", "Cluster other/new"}))

	aks := rows[0]
	g.Expect(labels(aks.Children)).To(Equal([]string{"AzureASOManagedCluster aks-sample", "AzureASOManagedControlPlane aks-sample", "MachinePool aks-sample-pool0"}))
	pool := aks.Children[2]
	g.Expect(pool.State).To(Equal("1/2 ready"))
	g.Expect(pool.Status).To(Equal(Progressing), "the MachinePool's v1beta1 Ready condition")
	g.Expect(pool.Children).To(HaveLen(1))
	g.Expect(pool.Children[0].State).To(Equal("0/1 ready"), "the agent pool describes an older generation")

	capz := rows[1]
	g.Expect(capz.State).To(Equal("Provisioned"))
	g.Expect(capz.Message).To(Equal("ControlPlaneAvailable: Waiting for etcd to report the list of members; WorkersAvailable: 1 available replicas, at least 2 required"))
	g.Expect(labels(capz.Children)).To(Equal([]string{"AzureCluster capz-sample", "KubeadmControlPlane capz-sample-control-plane",
		"MachineDeployment capz-sample-md-0", "Machine capz-sample-extra"}))
	infra := capz.Children[0]
	g.Expect(infra.Children).To(HaveLen(1))
	g.Expect(*infra.Children[0]).To(Equal(Row{Label: "ASO objects", State: "3/3 ready", Status: OK, Message: "ResourceGroup, VirtualNetworksSubnet×2"}))
	cp := capz.Children[1]
	g.Expect(cp.State).To(Equal("initialized, 0/3 ready"))
	g.Expect(labels(cp.Children)).To(Equal([]string{"Machine capz-sample-control-plane-abcde"}))
	md := capz.Children[2]
	g.Expect(labels(md.Children)).To(Equal([]string{"Machine capz-sample-md-0-xyz12-aaaaa", "Machine capz-sample-md-0-xyz12-bbbbb"}))
	failing := md.Children[1].Children[0]
	g.Expect(failing.Status).To(Equal(Failed), "a terminal failure comes before one in progress")
	g.Expect(failing.Message).To(Equal("VirtualMachine capz-sample-md-0-xyz12-bbbbb: the VM size is not available"))

	g.Expect(rows[2].Children).To(ConsistOf(
		&Row{Label: "AzureCluster new", State: "not found", Status: Unknown, Message: "not created yet"},
		&Row{Label: "KubeadmControlPlane new-control-plane", State: "not found", Status: Unknown, Message: "not created yet"},
	))
}

func labels(rows []*Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Label
	}
	return out
}

func TestASOStatus(t *testing.T) {
	tests := []struct {
		name       string
		generation int64
		conditions []any
		deleting   bool
		want       Status
		wantText   string
	}{
		{name: "no condition yet", generation: 1, want: Unknown, wantText: "waiting for ASO"},
		{name: "ready", generation: 1, conditions: []any{readyCondition("True", "", "", "")}, want: OK},
		{name: "ready for an older generation", generation: 2, conditions: []any{readyCondition("True", "", "", "")},
			want: Progressing, wantText: "waiting for ASO to reconcile generation 2"},
		{name: "reconciling", generation: 1, conditions: []any{readyCondition("False", "Info", "Reconciling", "The resource is being reconciled")},
			want: Progressing, wantText: "The resource is being reconciled"},
		{name: "warning", generation: 1, conditions: []any{readyCondition("False", "Warning", "Conflict", "retrying")},
			want: Progressing, wantText: "retrying"},
		{name: "error is terminal", generation: 1, conditions: []any{readyCondition("False", "Error", "BadRequest", "invalid SKU")},
			want: Failed, wantText: "invalid SKU"},
		{name: "without a message, the reason", generation: 1, conditions: []any{readyCondition("False", "Warning", "Throttled", "")},
			want: Progressing, wantText: "Throttled"},
		{name: "deleting", generation: 1, conditions: []any{readyCondition("True", "", "", "")}, deleting: true,
			want: Progressing, wantText: "deleting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": tt.conditions}}}
			obj.SetGeneration(tt.generation)
			if tt.deleting {
				obj.Object["metadata"].(map[string]any)["deletionTimestamp"] = "2026-01-01T00:00:00Z"
			}
			status, text := asoStatus(obj)
			g.Expect(status).To(Equal(tt.want))
			g.Expect(text).To(Equal(tt.wantText))
		})
	}
}

// readyCondition is an ASO Ready condition observed at generation 1.
func readyCondition(status, severity, reason, message string) map[string]any {
	return map[string]any{"type": "Ready", "status": status, "severity": severity, "reason": reason, "message": message,
		"observedGeneration": int64(1)}
}

func TestObjectRow(t *testing.T) {
	tests := []struct {
		name        string
		status      map[string]any
		wantStatus  Status
		wantMessage string
	}{
		{name: "no conditions", status: map[string]any{}, wantStatus: Unknown},
		{name: "Ready true", status: conditions(map[string]any{"type": "Ready", "status": "True"}), wantStatus: OK},
		{name: "Available when there is no Ready", status: conditions(map[string]any{"type": "Available", "status": "False", "message": "* A:\n  * b"}),
			wantStatus: Progressing, wantMessage: "A: b"},
		{name: "Ready before Available", status: conditions(
			map[string]any{"type": "Available", "status": "False", "message": "not available"},
			map[string]any{"type": "Ready", "status": "True"}), wantStatus: OK},
		{name: "reason Failed is terminal", status: conditions(map[string]any{"type": "Ready", "status": "False", "reason": "Failed", "message": "quota exceeded"}),
			wantStatus: Failed, wantMessage: "quota exceeded"},
		{name: "v1beta2 conditions before deprecated v1beta1 ones", status: map[string]any{
			"conditions": []any{map[string]any{"type": "Available", "status": "True"}},
			"deprecated": map[string]any{"v1beta1": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False", "reason": "Old"}}}},
		}, wantStatus: OK},
		{name: "deprecated v1beta1 Ready for lack of v1beta2 ones", status: map[string]any{
			"deprecated": map[string]any{"v1beta1": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False", "severity": "Error", "reason": "Broken"}}}},
		}, wantStatus: Failed, wantMessage: "Broken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			row := objectRow("Kind name", &unstructured.Unstructured{Object: map[string]any{"status": tt.status}}, "state")
			g.Expect(row.Status).To(Equal(tt.wantStatus))
			g.Expect(row.Message).To(Equal(tt.wantMessage))
		})
	}
}

func conditions(c ...any) map[string]any { return map[string]any{"conditions": c} }

func TestRender(t *testing.T) {
	tree := []*Row{
		{Label: "Cluster ns/a", State: "Provisioned", Status: OK, Children: []*Row{
			{Label: "AzureCluster a", State: "provisioned", Status: Progressing, Message: "a long message that does not fit"},
		}},
		{Label: "Cluster ns/b", State: "Pending", Status: Failed, Message: "broken"},
	}
	tests := []struct {
		name string
		opts RenderOptions
		want string
	}{
		{name: "full", want: "" +
			"Cluster ns/a       Provisioned  ✓\n" +
			"└─ AzureCluster a  provisioned  … a long message that does not fit\n" +
			"\n" +
			"Cluster ns/b       Pending      ✗ broken\n"},
		{name: "cut to a width", opts: RenderOptions{Width: 50}, want: "" +
			"Cluster ns/a       Provisioned  ✓\n" +
			"└─ AzureCluster a  provisioned  … a long message…\n" +
			"\n" +
			"Cluster ns/b       Pending      ✗ broken\n"},
		{name: "colours", opts: RenderOptions{Color: true}, want: "" +
			"Cluster ns/a       Provisioned  \x1b[32m✓\x1b[0m\n" +
			"└─ AzureCluster a  provisioned  \x1b[33m…\x1b[0m a long message that does not fit\n" +
			"\n" +
			"Cluster ns/b       Pending      \x1b[31m✗\x1b[0m broken\n"},
		{name: "cut before the mark", opts: RenderOptions{Width: 20, Color: true}, want: "" +
			"Cluster ns/a…\n" +
			"└─ AzureCluster a…\n" +
			"\n" +
			"Cluster ns/b…\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(Render(tree, tt.opts)).To(Equal(tt.want))
		})
	}
	NewWithT(t).Expect(Render(nil, RenderOptions{})).To(Equal("No clusters yet.\n"))
}

func TestScreen(t *testing.T) {
	t.Run("snapshots only when the body changes", func(t *testing.T) {
		g := NewWithT(t)
		var out bytes.Buffer
		s := &Screen{W: &out}
		g.Expect(s.Show("at 1", "a\n")).To(Succeed())
		g.Expect(s.Show("at 2", "a\n")).To(Succeed())
		g.Expect(s.Show("at 3", "b\n")).To(Succeed())
		g.Expect(out.String()).To(Equal("at 1\na\n\nat 3\nb\n\n"))
	})
	t.Run("redraws in place on a terminal", func(t *testing.T) {
		g := NewWithT(t)
		var out bytes.Buffer
		s := &Screen{W: &out, ANSI: true}
		g.Expect(s.Show("at 1", "a\nb\n")).To(Succeed())
		g.Expect(s.Show("at 2", "c\n")).To(Succeed())
		g.Expect(out.String()).To(Equal("at 1\na\nb\n" + "\x1b[3A\r\x1b[J" + "at 2\nc\n"))
	})
	t.Run("keeps to the terminal's height", func(t *testing.T) {
		g := NewWithT(t)
		var out bytes.Buffer
		s := &Screen{W: &out, ANSI: true, Height: 4}
		g.Expect(s.Show("header", "1\n2\n3\n4\n")).To(Succeed())
		g.Expect(s.Show("header", "1\n")).To(Succeed())
		g.Expect(strings.Split(out.String(), "\x1b[")).To(Equal([]string{
			"header\n1\n… 3 more lines (make the terminal taller)\n", "3A\r", "Jheader\n1\n"}))
	})
}
