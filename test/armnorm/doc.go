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

// Package armnorm makes ARM requests of two runs comparable: the resource type and name an ID names, and one walk
// over a decoded JSON body that drops, redacts and rewrites fields by the rules its caller gives. test/parity
// compares our provider's writes with CAPZ's with it (every GUID numbered, IDs in lower case); test/armgolden files
// the first PUT of each resource with it (the run's names as placeholders, random values redacted).
package armnorm
