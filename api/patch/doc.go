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

// Package patch parses and applies the user patches of generated ASO objects: RFC 7386 JSON merge patches and
// RFC 6902 JSON patches, each written as JSON or YAML. It is pure (no client) so that admission webhooks can reject
// a bad patch with the same rules the engine applies.
package patch
