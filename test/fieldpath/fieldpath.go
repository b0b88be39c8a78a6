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

package fieldpath

import (
	"reflect"
	"strings"
)

// JSONName is a struct field's JSON name: "" for an inlined field, and false for a field JSON skips.
func JSONName(f reflect.StructField) (string, bool) {
	name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" || !f.IsExported() {
		return "", false
	}
	if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) {
		return "", true
	}
	if name == "" {
		name = f.Name
	}
	return name, true
}

// Join appends a field's JSON name to a dotted path; an empty name (an inlined field) leaves the path as it is.
func Join(path, name string) string {
	switch {
	case name == "":
		return path
	case path == "":
		return name
	}
	return path + "." + name
}
