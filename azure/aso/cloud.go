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

package aso

import (
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	asoconfig "github.com/Azure/azure-service-operator/v2/pkg/common/config"

	infrav1 "github.com/capzaso/cluster-api-provider-azure/api/v1beta1"
)

// clouds are the Azure clouds by azureEnvironment value: one for each of infrav1.AzureEnvironments (cloud_test.go
// checks it).
var clouds = map[string]cloud.Configuration{
	infrav1.DefaultAzureCloud: cloud.AzurePublic,
	"AzureChinaCloud":         cloud.AzureChina,
	"AzureUSGovernmentCloud":  cloud.AzureGovernment,
}

// cloudData returns the keys of an ASO credential that point ASO at the named cloud: none for ASO's own cloud
// (e.ASOCloud), which needs no per-credential setting; the three ASO takes all or none of otherwise (ASO v2.18
// reads them only with ALLOW_MULTI_ENV_MANAGEMENT=true).
func (e *Engine) cloudData(name string) (map[string][]byte, error) {
	if !e.isOtherCloud(name) {
		return nil, nil
	}
	c, ok := clouds[name]
	if !ok {
		return nil, fmt.Errorf("unknown azureEnvironment %q: one of %v", name, infrav1.AzureEnvironments())
	}
	rm := c.Services[cloud.ResourceManager]
	return map[string][]byte{
		asoconfig.ResourceManagerEndpoint: []byte(rm.Endpoint),
		asoconfig.ResourceManagerAudience: []byte(rm.Audience),
		asoconfig.AzureAuthorityHost:      []byte(c.ActiveDirectoryAuthorityHost),
	}, nil
}

// isOtherCloud tells whether an owner's azureEnvironment (empty: the public cloud) is another cloud than ASO's own.
func (e *Engine) isOtherCloud(name string) bool {
	own := e.ASOCloud
	if own == "" {
		own = infrav1.DefaultAzureCloud
	}
	return name != "" && name != own
}
