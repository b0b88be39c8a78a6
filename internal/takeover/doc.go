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

// Package takeover tells users about the Azure resources the provider took over from CAPZ
// (docs/migrating-from-capz.md): the deliberate differences from CAPZ that wait for their opt-in
// (infrav1.ApplyCAPZDifferencesAnnotation), as the CAPZDifferencesApplied condition and an event. The translators
// (azure/compute) find the differences; the controllers of the machine kinds report them through this package.
package takeover
