//go:build tools

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

// Package tools pins Azure Service Operator's controller: hack/ensure-tool.sh builds its main package,
// github.com/Azure/azure-service-operator/v2/cmd/controller, unmodified, with this module's requirements. The
// imports below are what that main package imports, so that go mod tidy keeps every module it needs.
package tools

import (
	_ "github.com/Azure/azure-service-operator/v2/cmd/controller/app"
	_ "github.com/Azure/azure-service-operator/v2/cmd/controller/logging"
	_ "k8s.io/client-go/plugin/pkg/client/auth/gcp"
	_ "sigs.k8s.io/controller-runtime"
)
