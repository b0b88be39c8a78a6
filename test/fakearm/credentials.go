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

package fakearm

import (
	"fmt"
	"net/http"
	"strings"
)

// credentialNames are the managed cluster actions that list kubeconfigs, and the name of the credential each
// returns.
var credentialNames = map[string]string{
	"listclusterusercredential":           "clusterUser",
	"listclusteradmincredential":          "clusterAdmin",
	"listclustermonitoringusercredential": "clusterMonitoringUser",
}

// post answers a managed cluster's list…Credential action (what ASO's ExportKubernetesSecrets calls through
// armcontainerservice), the only POSTs the fake serves.
func (s *Server) post(path string) answer {
	i := strings.LastIndex(path, "/")
	name, ok := credentialNames[strings.ToLower(path[i+1:])]
	id := parseID(path[:i])
	if !ok || id.kind != kindResource || !strings.EqualFold(id.fullType(), "Microsoft.ContainerService/managedClusters") {
		return errorAnswer(&armError{http.StatusNotFound, "NotFound", fmt.Sprintf("The fake ARM serves no POST %s.", path)})
	}
	s.mu.Lock()
	r, exists := s.resources[id.key()]
	var clusterID, fqdn string
	if exists {
		clusterID = r.id.raw
		fqdn = str(s.render(r)["properties"].(map[string]any), "fqdn")
	}
	notFound := s.notFound(id)
	s.mu.Unlock()
	if !exists {
		return errorAnswer(notFound)
	}
	// The callback runs without the lock: it may read the fake.
	kubeconfig := placeholderKubeconfig(id, name, fqdn)
	if s.opts.Kubeconfig != nil {
		var err error
		if kubeconfig, err = s.opts.Kubeconfig(clusterID); err != nil {
			return errorAnswer(&armError{http.StatusInternalServerError, "InternalServerError", err.Error()})
		}
	}
	// The value is a []byte: JSON carries it in base64, as Azure does.
	return answer{status: http.StatusOK, body: map[string]any{
		"kubeconfigs": []any{map[string]any{"name": name, "value": kubeconfig}},
	}}
}

// placeholderKubeconfig is a kubeconfig for the cluster's FQDN, with a token that no server accepts.
func placeholderKubeconfig(id armID, credential, fqdn string) []byte {
	user := fmt.Sprintf("%s_%s_%s", credential, id.resourceGroup, id.name)
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: %[1]s
  cluster:
    server: https://%[2]s:443
contexts:
- name: %[1]s
  context:
    cluster: %[1]s
    user: %[3]s
current-context: %[1]s
users:
- name: %[3]s
  user:
    token: %[4]s
`, id.name, fqdn, user, shortHash(id.raw, credential)))
}
