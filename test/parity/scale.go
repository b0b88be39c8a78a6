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
	"fmt"
	"strconv"
)

// Scale makes the scale variant of make parity (--clusters, --workers): clusters copies of each flavor, each with
// workers worker machines, a cluster name, a namespace and a subscription of its own, rendered from the flavor's
// template with the same variables on both sides. clusters < 1 keeps the flavors as they are, with workers set
// when it is above 0.
func Scale(flavors []Flavor, clusters, workers int) []Flavor {
	withWorkers := func(f Flavor) Flavor {
		if workers < 1 {
			return f
		}
		vars := map[string]string{}
		for k, v := range f.Vars {
			vars[k] = v
		}
		vars["WORKER_MACHINE_COUNT"] = strconv.Itoa(workers)
		f.Vars = vars
		return f
	}
	if clusters < 1 {
		out := make([]Flavor, 0, len(flavors))
		for _, f := range flavors {
			out = append(out, withWorkers(f))
		}
		return out
	}
	out := make([]Flavor, 0, len(flavors)*clusters)
	for fi, f := range flavors {
		for i := 1; i <= clusters; i++ {
			c := withWorkers(f)
			if c.Template == "" {
				c.Template = f.Name
			}
			c.Name = fmt.Sprintf("%s-%d", f.Name, i)
			c.Cluster = fmt.Sprintf("%s%d", f.Cluster, i)
			// A subscription of its own, apart from every named flavor's (…0000000f<n>).
			c.Subscription = fmt.Sprintf("00000000-0000-0000-%04x-%012x", fi+1, i)
			out = append(out, c)
		}
	}
	return out
}
