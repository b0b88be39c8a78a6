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

package parity

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/capzaso/cluster-api-provider-azure/test/fakearm"
)

// replayFrom regenerates the recorded run from a make parity log directory: go test ./test/parity -run TestReplay
// -replay-from=<log dir>. replayRun compares every flavor of a run's log directory again with the table, as make
// parity would now: go test ./test/parity -run TestReplayRun -replay-run=<log dir> -v.
var (
	replayFrom = flag.String("replay-from", "", "a make parity log directory to record testdata/replay-<flavor>.json from (the recorded flavors it ran, every phase)")
	replayRun  = flag.String("replay-run", "", "a make parity log directory whose flavors TestReplayRun compares again")
)

// recordedFlavors are the flavors of the recorded runs, testdata/replay-<flavor>.json: both sides' ARM writes of the
// flavor in a real make parity run, phase by phase (creation, then the lifecycle's). default-extras has what the
// default flavor lacks: role assignments, the bootstrap extension, a private endpoint, peerings.
var recordedFlavors = []string{"default", "default-extras", "machinepool"}

// recordedRun is a flavor's ARM writes on both sides in a phase, as a run's <side>-result.json hands them to the
// comparison.
type recordedRun struct {
	// Source names the run it was taken from.
	Source string
	Flavor string
	// Phase is the lifecycle's phase (PhaseCreate when empty).
	Phase string `json:",omitempty"`
	Sides map[string]recordedSide
}

type recordedSide struct {
	Names    map[string]string
	Requests []recordedRequest
}

// recordedRequest is a Request with its body as JSON, to be read in a diff.
type recordedRequest struct {
	Method, Path, APIVersion string
	Status                   int
	Body                     json.RawMessage `json:",omitempty"`
}

// bulkyKeys are the body fields whose values the recording shortens: secrets and bootstrap data, which the
// comparison only sees as present or not.
var bulkyKeys = regexp.MustCompile(`"(customData|protectedSettings|adminPassword)"\s*:\s*("(?:[^"\\]|\\.)*"|\{[^{}]*\})`)

// record keeps a flavor's writes in a phase of a run's log directory, their secrets shortened: what the
// <side>-result.json of the process that ran the flavor (results, by side) handed to the comparison (the requests
// until the flavor settled, and the generated names).
func record(t *testing.T, dir string, flavor Flavor, phase string, results map[string]SideResult) recordedRun {
	t.Helper()
	run := recordedRun{Source: filepath.Base(dir), Flavor: flavor.Name, Sides: map[string]recordedSide{}}
	if phase != PhaseCreate {
		run.Phase = phase
	}
	for _, p := range sideProcesses([]Flavor{flavor}) {
		f, ok := results[p.Side].Flavors[flavor.Name]
		if !ok {
			t.Fatalf("%s has no flavor %s", p.Name, flavor.Name)
		}
		rs, requests := recordedSide{Names: f.Names}, f.Requests
		if phase != PhaseCreate {
			i := slices.IndexFunc(f.Lifecycle, func(p SidePhase) bool { return p.Name == phase })
			if i < 0 {
				t.Fatalf("%s did not run the phase %s of flavor %s", p.Name, phase, flavor.Name)
			}
			requests = f.Lifecycle[i].Requests
		}
		for _, req := range requests {
			if !writeMethods[req.Method] {
				continue
			}
			body := bulkyKeys.ReplaceAll(req.Body, []byte(`"$1":"<shortened>"`))
			if len(bytes.TrimSpace(body)) > 0 && !json.Valid(body) {
				t.Fatalf("the body of %s %s is not JSON once shortened", req.Method, req.Path)
			}
			rs.Requests = append(rs.Requests, recordedRequest{Method: req.Method, Path: req.Path, APIVersion: req.APIVersion, Status: req.Status, Body: body})
		}
		run.Sides[p.Side] = rs
	}
	return run
}

// readSideResult reads a run's <name>-result.json: what a side's process handed to the comparison.
func readSideResult(t *testing.T, dir, name string) SideResult {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, name+"-result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r SideResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// ranFlavor says whether a run's log directory has the flavor.
func ranFlavor(t *testing.T, dir, flavor string) bool {
	t.Helper()
	_, ok := readSideResult(t, dir, SideOurs).Flavors[flavor]
	return ok
}

// readResults reads the <side>-result.json of each side's process that ran the flavor, by side.
func readResults(t *testing.T, dir string, flavor Flavor) map[string]SideResult {
	t.Helper()
	out := map[string]SideResult{}
	for _, p := range sideProcesses([]Flavor{flavor}) {
		out[p.Side] = readSideResult(t, dir, p.Name)
	}
	return out
}

// recordAll records every phase of the flavor that our side ran: creation, then the lifecycle's.
func recordAll(t *testing.T, dir string, flavor Flavor) []recordedRun {
	t.Helper()
	results := readResults(t, dir, flavor)
	out := []recordedRun{record(t, dir, flavor, PhaseCreate, results)}
	for _, p := range results[SideOurs].Flavors[flavor.Name].Lifecycle {
		out = append(out, record(t, dir, flavor, p.Name, results))
	}
	return out
}

// readRecordedRun reads testdata/replay-<flavor>.json, every phase of the flavor's recorded run, recording it first
// from -replay-from when that run has the flavor.
func readRecordedRun(t *testing.T, flavor string) []recordedRun {
	t.Helper()
	path := filepath.Join("testdata", "replay-"+flavor+".json")
	f, _ := FlavorNamed(flavor)
	if *replayFrom != "" && ranFlavor(t, *replayFrom, flavor) {
		raw, err := json.MarshalIndent(recordAll(t, *replayFrom, f), "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(raw, '\n'), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var runs []recordedRun
	if err := json.Unmarshal(raw, &runs); err != nil {
		t.Fatal(err)
	}
	return runs
}

// is reports whether the recorded run is of the phase (creation's has none).
func (r recordedRun) is(phase string) bool {
	return r.Phase == phase || (r.Phase == "" && phase == PhaseCreate)
}

// phaseOf is the recorded run of a phase.
func phaseOf(t *testing.T, runs []recordedRun, phase string) recordedRun {
	t.Helper()
	for _, r := range runs {
		if r.is(phase) {
			return r
		}
	}
	t.Fatalf("no phase %s in the recorded run", phase)
	return recordedRun{}
}

// requests are a side's recorded writes as the comparison takes them.
func (s recordedSide) requests() []Request {
	out := make([]Request, len(s.Requests))
	for i, r := range s.Requests {
		out[i] = Request{Method: r.Method, Path: r.Path, APIVersion: r.APIVersion, Status: r.Status, Body: r.Body}
	}
	return out
}

// replay compares every phase of a recorded run (after change, if any, edits the requests of the phase named) with
// docs/capz-parity.md's table, as make parity does, and returns the report, the undocumented differences and the
// problems.
func replay(t *testing.T, runs []recordedRun, phase string, change func(capz, ours []Request) ([]Request, []Request)) (string, []Undocumented, []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "capz-parity.md"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ParseDeliberate(raw)
	if err != nil {
		t.Fatal(err)
	}
	var results []FlavorResult
	earlier := map[string][]Request{}
	for _, run := range runs {
		f, ok := FlavorNamed(run.Flavor)
		if !ok {
			t.Fatalf("no flavor %s", run.Flavor)
		}
		capz, ours := run.Sides[SideCAPZ].requests(), run.Sides[SideOurs].requests()
		if change != nil && run.is(phase) {
			capz, ours = change(capz, ours)
		}
		writes := map[string][]Write{}
		for side, reqs := range map[string][]Request{SideCAPZ: capz, SideOurs: ours} {
			n := Normalizer{Names: run.Sides[side].Names, KeepGUIDs: keepGUIDs(f), Earlier: earlier[f.Name+"/"+side]}
			w, err := n.Writes(reqs)
			if err != nil {
				t.Fatal(err)
			}
			writes[side] = w
			earlier[f.Name+"/"+side] = append(earlier[f.Name+"/"+side], reqs...)
		}
		results = append(results, FlavorResult{Flavor: f.Name, Cluster: f.Cluster, Phase: run.Phase, Diffs: Compare(writes[SideCAPZ], writes[SideOurs])})
	}
	var out bytes.Buffer
	undocumented, problems := Report(&out, results, ds)
	return out.String(), undocumented, problems
}

// TestReplay: each recorded run passes with the table of docs/capz-parity.md, every phase: every difference
// excused, no row of the flavor stale.
func TestReplay(t *testing.T) {
	for _, flavor := range recordedFlavors {
		t.Run(flavor, func(t *testing.T) {
			g := NewWithT(t)
			runs := readRecordedRun(t, flavor)
			g.Expect(runs).To(HaveLen(5), "creation and the lifecycle's four phases")
			for _, run := range []recordedRun{phaseOf(t, runs, PhaseCreate), phaseOf(t, runs, PhaseDelete)} {
				g.Expect(run.Sides[SideCAPZ].Requests).NotTo(BeEmpty())
				g.Expect(run.Sides[SideOurs].Requests).NotTo(BeEmpty())
			}
			report, undocumented, problems := replay(t, runs, "", nil)
			g.Expect(undocumented).To(BeEmpty(), report)
			g.Expect(problems).To(BeEmpty(), report)
		})
	}
}

// TestReplayRun compares every flavor of a run's log directory (-replay-run) again with the table: the check of a
// change to the table or the comparison without running the sides again.
func TestReplayRun(t *testing.T) {
	if *replayRun == "" {
		t.Skip("no -replay-run")
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "capz-parity.md"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ParseDeliberate(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range slices.Concat(Flavors, MoreFlavors, SwitchFlavors) {
		t.Run(f.Name, func(t *testing.T) {
			if !ranFlavor(t, *replayRun, f.Name) {
				t.Skip("not in the run")
			}
			// Every phase the sides ran, as make parity compares them.
			results := readResults(t, *replayRun, f)
			var out bytes.Buffer
			undocumented, problems := Report(&out, compareFlavor(f, results[SideCAPZ].Flavors, results[SideOurs].Flavors, 0), ds)
			t.Log(out.String())
			if len(undocumented) > 0 || len(problems) > 0 {
				t.Fail()
			}
		})
	}
}

// edit changes the JSON body of every request of a method whose path matches.
func edit(reqs []Request, method string, path *regexp.Regexp, change func(body map[string]any)) []Request {
	out := make([]Request, 0, len(reqs))
	for _, r := range reqs {
		if r.Method == method && path.MatchString(r.Path) && len(r.Body) > 0 {
			var body map[string]any
			if err := json.Unmarshal(r.Body, &body); err == nil {
				change(body)
				r.Body, _ = json.Marshal(body)
			}
		}
		out = append(out, r)
	}
	return out
}

// firstWrite is a copy of the first request of a method whose path matches.
func firstWrite(t *testing.T, reqs []Request, method string, path *regexp.Regexp) Request {
	t.Helper()
	for _, r := range reqs {
		if r.Method == method && path.MatchString(r.Path) {
			return r
		}
	}
	t.Fatalf("no %s %s in the recorded run", method, path)
	return Request{}
}

// TestReplay_Injected: each difference injected into the recorded run fails the comparison, with a message that names
// it.
func TestReplay_Injected(t *testing.T) {
	runs := readRecordedRun(t, "default")
	var (
		workerVM       = regexp.MustCompile(`(?i)/virtualMachines/pdef-md-0-[a-z0-9-]+$`)
		controlPlaneVM = regexp.MustCompile(`(?i)/virtualMachines/pdef-control-plane-[a-z0-9]+$`)
		nodeNSG        = regexp.MustCompile(`(?i)/networkSecurityGroups/pdef-node-nsg$`)
		vnet           = regexp.MustCompile(`(?i)/virtualNetworks/pdef-vnet$`)
	)
	tests := []injection{{
		name: "our worker VM without custom data",
		change: func(capz, ours []Request) ([]Request, []Request) {
			return capz, edit(ours, "PUT", workerVM, func(b map[string]any) {
				if osProfile, ok := b["properties"].(map[string]any)["osProfile"].(map[string]any); ok {
					delete(osProfile, "customData")
				}
			})
		},
		want: []string{"default: Microsoft.Compute/virtualMachines ${CLUSTER_NAME}-md-0-* properties.osProfile.customData"},
	}, {
		name: "our worker VM renamed",
		change: func(capz, ours []Request) ([]Request, []Request) {
			// The VM and its extensions.
			vmAndChildren := regexp.MustCompile(`(?i)/virtualMachines/pdef-md-0-[a-z0-9-]+`)
			out := make([]Request, len(ours))
			for i, r := range ours {
				r.Path = vmAndChildren.ReplaceAllString(r.Path, "/virtualMachines/pdef-worker-renamed")
				out[i] = r
			}
			return capz, out
		},
		want: []string{
			"default: Microsoft.Compute/virtualMachines ${CLUSTER_NAME}-md-0-* *",
			"default: Microsoft.Compute/virtualMachines ${CLUSTER_NAME}-worker-renamed *",
		},
	}, {
		name: "an extra security rule of ours",
		change: func(capz, ours []Request) ([]Request, []Request) {
			rule := Request{Method: "PUT", Path: firstWrite(t, ours, "PUT", nodeNSG).Path + "/securityRules/allow_extra", APIVersion: "2024-03-01", Status: 201,
				Body: []byte(`{"properties":{"access":"Allow","direction":"Inbound","priority":2300,"protocol":"Tcp","destinationPortRange":"8080","sourceAddressPrefix":"*"}}`)}
			return capz, append(ours, rule)
		},
		want: []string{"default: Microsoft.Network/networkSecurityGroups/securityRules ${CLUSTER_NAME}-node-nsg/allow_extra *"},
	}, {
		name: "a role assignment we do not make",
		change: func(capz, ours []Request) ([]Request, []Request) {
			vm := firstWrite(t, capz, "PUT", controlPlaneVM)
			ra := Request{Method: "PUT", Path: vm.Path + "/providers/Microsoft.Authorization/roleAssignments/6c9a8f2e-3b1d-4e5f-9a7b-2c4d6e8f0a1b",
				APIVersion: "2022-04-01", Status: 201,
				Body: []byte(`{"properties":{"principalId":"0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9","roleDefinitionId":"/subscriptions/x/providers/Microsoft.Authorization/roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c"}}`)}
			return append(capz, ra), ours
		},
		want: []string{"default: Microsoft.Authorization/roleAssignments <guid-"},
	}, {
		name: "our control plane VM in another zone",
		change: func(capz, ours []Request) ([]Request, []Request) {
			return capz, edit(ours, "PUT", controlPlaneVM, func(b map[string]any) { b["zones"] = []any{"4"} })
		},
		want: []string{"default: Microsoft.Compute/virtualMachines ${CLUSTER_NAME}-control-plane-* zones"},
	}, {
		name: "our worker VM in a zone",
		change: func(capz, ours []Request) ([]Request, []Request) {
			return capz, edit(ours, "PUT", workerVM, func(b map[string]any) { b["zones"] = []any{"2"} })
		},
		want: []string{"default: Microsoft.Compute/virtualMachines ${CLUSTER_NAME}-md-0-* zones"},
	}, {
		name: "an extra DELETE of ours",
		change: func(capz, ours []Request) ([]Request, []Request) {
			vm := firstWrite(t, ours, "PUT", workerVM)
			return capz, append(ours, Request{Method: "DELETE", Path: vm.Path, APIVersion: vm.APIVersion, Status: 202})
		},
		want: []string{"default: DELETE Microsoft.Compute/virtualMachines ${CLUSTER_NAME}-md-0-* *"},
	}, {
		name: "another api-version of ours",
		change: func(capz, ours []Request) ([]Request, []Request) {
			out := make([]Request, len(ours))
			for i, r := range ours {
				if r.Method == "PUT" && vnet.MatchString(r.Path) {
					r.APIVersion = "2099-01-01"
				}
				out[i] = r
			}
			return capz, out
		},
		want: []string{"default: Microsoft.Network/virtualNetworks ${CLUSTER_NAME}-vnet (api-version)"},
	}}
	expectFailures(t, runs, PhaseCreate, tests)
}

// injection is a difference injected into a phase of the recorded run.
type injection struct {
	name   string
	change func(capz, ours []Request) ([]Request, []Request)
	// want are what the report's list of undocumented differences and problems must name (each a part of one).
	want []string
}

// expectFailures replays the recorded run with each injection in the phase: each must fail the comparison, naming
// what it wants.
func expectFailures(t *testing.T, runs []recordedRun, phase string, injections []injection) {
	t.Helper()
	for _, tt := range injections {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			report, undocumented, problems := replay(t, runs, phase, tt.change)
			var found []string
			for _, u := range undocumented {
				found = append(found, u.String())
			}
			found = append(found, problems...)
			t.Logf("undocumented differences and problems:\n%s", strings.Join(found, "\n"))
			g.Expect(found).NotTo(BeEmpty(), report)
			for _, w := range tt.want {
				g.Expect(found).To(ContainElement(ContainSubstring(w)), report)
			}
		})
	}
}

// withStatus changes the status of every request of a method whose path matches.
func withStatus(reqs []Request, method string, path *regexp.Regexp, status int) []Request {
	out := make([]Request, len(reqs))
	for i, r := range reqs {
		if r.Method == method && path.MatchString(r.Path) {
			r.Status = status
		}
		out[i] = r
	}
	return out
}

// TestReplay_InjectedDelete: each difference injected into the recorded deletion fails the comparison, with a
// message that names it: a DELETE of CAPZ's that found something where the row allows only what was already gone, a
// DELETE of ours the row does not name, another order of deletes, the group's DELETE missing.
func TestReplay_InjectedDelete(t *testing.T) {
	runs := readRecordedRun(t, "default")
	var (
		group = regexp.MustCompile(`(?i)/resourceGroups/pdef$`)
		natgw = regexp.MustCompile(`(?i)/natGateways/pdef-node-natgw-1$`)
		vnet  = regexp.MustCompile(`(?i)/virtualNetworks/pdef-vnet$`)
	)
	// The recorded deletion has what the injections change: CAPZ's DELETEs of the NAT gateway and the network (which
	// found nothing), and our DELETE of the group.
	deletion := phaseOf(t, runs, PhaseDelete)
	firstWrite(t, deletion.Sides[SideCAPZ].requests(), "DELETE", natgw)
	capzVNetDelete := firstWrite(t, deletion.Sides[SideCAPZ].requests(), "DELETE", vnet)
	firstWrite(t, deletion.Sides[SideOurs].requests(), "DELETE", group)
	tests := []injection{{
		name: "CAPZ's DELETE of the NAT gateway deleted it",
		change: func(capz, ours []Request) ([]Request, []Request) {
			return withStatus(capz, "DELETE", natgw, 202), ours
		},
		want: []string{"default (delete): DELETE Microsoft.Network/natGateways ${CLUSTER_NAME}-node-natgw-1 *"},
	}, {
		name: "a DELETE of the network of ours",
		change: func(capz, ours []Request) ([]Request, []Request) {
			d := capzVNetDelete
			d.Status = 202
			return capz, append(ours, d)
		},
		want: []string{"default (delete): DELETE Microsoft.Network/virtualNetworks ${CLUSTER_NAME}-vnet (status)"},
	}, {
		name: "our network deleted before the group",
		change: func(capz, ours []Request) ([]Request, []Request) {
			return capz, append([]Request{capzVNetDelete}, ours...)
		},
		want: []string{"(order of deletes)"},
	}, {
		name: "no DELETE of the group of ours",
		change: func(capz, ours []Request) ([]Request, []Request) {
			var kept []Request
			for _, r := range ours {
				if r.Method != "DELETE" || !group.MatchString(r.Path) {
					kept = append(kept, r)
				}
			}
			return capz, kept
		},
		want: []string{"default (delete): DELETE Microsoft.Resources/resourceGroups ${CLUSTER_NAME} *"},
	}}
	expectFailures(t, runs, PhaseDelete, tests)
}

// TestReplay_InjectedRoleAssignments: in the recorded run of default-extras, whose machines have system-assigned
// identities, each change to our role assignments fails the comparison naming the machine's assignment: one we do
// not make, one of another role.
func TestReplay_InjectedRoleAssignments(t *testing.T) {
	runs := readRecordedRun(t, "default-extras")
	assignment := regexp.MustCompile(`(?i)/providers/Microsoft\.Authorization/roleAssignments/[0-9a-f-]+$`)
	workerVM := regexp.MustCompile(`(?i)/virtualMachines/pext-md-0-[a-z0-9-]+$`)
	creation := phaseOf(t, runs, PhaseCreate).Sides[SideOurs].requests()
	// ofWorker says whether a request is our PUT of the role assignment of the worker's identity.
	ofWorker := func(r Request) bool {
		if r.Method != "PUT" || !assignment.MatchString(r.Path) {
			return false
		}
		var body struct{ Properties struct{ PrincipalID string } }
		return json.Unmarshal(r.Body, &body) == nil &&
			strings.EqualFold(body.Properties.PrincipalID, fakearm.PrincipalID(firstWrite(t, creation, "PUT", workerVM).Path))
	}
	if !slices.ContainsFunc(creation, ofWorker) {
		t.Fatal("the recorded creation has no role assignment of the worker's identity")
	}
	tests := []injection{{
		name: "no role assignment of the worker's identity of ours",
		change: func(capz, ours []Request) ([]Request, []Request) {
			return capz, slices.DeleteFunc(slices.Clone(ours), ofWorker)
		},
		want: []string{"default-extras: Microsoft.Authorization/roleAssignments <role assignment of ${CLUSTER_NAME}-md-0-*> *"},
	}, {
		name: "our worker's role assignment of another role",
		change: func(capz, ours []Request) ([]Request, []Request) {
			out := slices.Clone(ours)
			for i, r := range out {
				if ofWorker(r) {
					out[i].Body = []byte(strings.ReplaceAll(string(r.Body), "b24988ac-6180-42a0-ab88-20f7382dd24c", "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"))
				}
			}
			return capz, out
		},
		want: []string{"default-extras: Microsoft.Authorization/roleAssignments <role assignment of ${CLUSTER_NAME}-md-0-*> properties.roleDefinitionId"},
	}}
	expectFailures(t, runs, PhaseCreate, tests)
}

// TestReplay_InjectedScaleSet: the machinepool flavor's rows name the values of the scale set they excuse. Our upgrade
// without its surge, our scale-out PUT with another image, or CAPZ's DELETE of an instance answered 204 (none was
// there) fails the comparison.
func TestReplay_InjectedScaleSet(t *testing.T) {
	runs := readRecordedRun(t, "machinepool")
	scaleSet := regexp.MustCompile(`(?i)/virtualMachineScaleSets/pmp-mp-0$`)
	instance := regexp.MustCompile(`(?i)/virtualMachineScaleSets/pmp-mp-0/virtualMachines/[0-9]+$`)
	// rewrite changes the bodies of the scale set's PUTs.
	rewrite := func(reqs []Request, from, to string) []Request {
		out := slices.Clone(reqs)
		for i, r := range out {
			if r.Method == "PUT" && scaleSet.MatchString(r.Path) {
				out[i].Body = []byte(strings.ReplaceAll(string(r.Body), from, to))
			}
		}
		return out
	}
	for _, phase := range []string{PhaseScaleOut, PhaseScaleIn, PhaseUpgrade} {
		if !slices.ContainsFunc(phaseOf(t, runs, phase).Sides[SideOurs].requests(), func(r Request) bool { return scaleSet.MatchString(r.Path) }) {
			t.Fatalf("the recorded %s has no PUT of our scale set", phase)
		}
	}
	expectFailures(t, runs, PhaseUpgrade, []injection{{
		name: "our upgrade without the surge",
		change: func(capz, ours []Request) ([]Request, []Request) {
			return capz, rewrite(ours, `"capacity": 2`, `"capacity": 1`)
		},
		want: []string{"machinepool (upgrade): Microsoft.Compute/virtualMachineScaleSets ${CLUSTER_NAME}-mp-0 sku.capacity"},
	}})
	expectFailures(t, runs, PhaseScaleOut, []injection{{
		name: "our scale-out with another image",
		change: func(capz, ours []Request) ([]Request, []Request) {
			return capz, rewrite(ours, "capi-ubun2-2404", "capi-ubun2-2204")
		},
		want: []string{"machinepool (scale-out): Microsoft.Compute/virtualMachineScaleSets ${CLUSTER_NAME}-mp-0 properties.virtualMachineProfile.storageProfile.imageReference.communityGalleryImageId"},
	}})
	expectFailures(t, runs, PhaseScaleIn, []injection{{
		name: "CAPZ's DELETE of an instance that found none",
		change: func(capz, ours []Request) ([]Request, []Request) {
			return withStatus(capz, "DELETE", instance, 204), ours
		},
		want: []string{"machinepool (scale-in): DELETE Microsoft.Compute/virtualMachineScaleSets/virtualMachines ${CLUSTER_NAME}-mp-0/0 *"},
	}})
}
