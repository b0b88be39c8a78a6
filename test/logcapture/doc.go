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

// Package logcapture records what a test's manager logs, at the highest verbosity, so that tests can check that
// bootstrap data and key material are never logged. The manager's logger is capped as main.go's is
// (setup.Logger): Logged is what it wrote. Beside it, an uncapped logger at the same verbosity looks for the
// watched secrets only, so a test can show the secrets did pass through the logger and that the cap kept them out.
package logcapture
