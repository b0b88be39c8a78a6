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

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"k8s.io/client-go/rest"
)

// memory replays the lists the provider's informers made (from the audit log) and sizes what they returned: the
// objects the provider's caches hold, as JSON without managedFields (the manager strips them).
func (r *runner) memory(ctx context.Context, atPhase string) (*Memory, error) {
	if err := r.p.audit.sync(); err != nil {
		return nil, err
	}
	reqs := r.p.audit.between(time.Time{}, time.Now())
	httpClient, err := rest.HTTPClientFor(r.p.adminConfig)
	if err != nil {
		return nil, err
	}
	m := &Memory{AtPhase: atPhase}
	now := time.Now()
	m.HeapLiveMB, _ = r.p.manager.heap(now.Add(-5*time.Minute), now)
	if s := r.p.sampler.stats("manager", now.Add(-10*time.Second), now); s != nil {
		m.RSSMB = s.RSSEndMB
	}
	for _, uri := range providerListURIs(reqs) {
		objects, size, err := listSize(ctx, httpClient, r.p.adminConfig.Host, uri, "application/json")
		if err != nil {
			return nil, err
		}
		_, metaSize, err := listSize(ctx, httpClient, r.p.adminConfig.Host, uri, partialMetadataList)
		if err != nil {
			return nil, err
		}
		c := CacheSize{List: uri, Objects: objects, JSONMB: float64(size) / (1 << 20), MetadataMB: float64(metaSize) / (1 << 20)}
		c.MetadataOnly = metadataOnlyLists[uri]
		if c.MetadataOnly {
			m.TotalJSONMB += c.MetadataMB
		} else {
			m.TotalJSONMB += c.JSONMB
		}
		m.Caches = append(m.Caches, c)
	}
	sort.Slice(m.Caches, func(i, j int) bool { return m.Caches[i].JSONMB > m.Caches[j].JSONMB })
	return m, nil
}

// partialMetadataList asks the API server for the metadata of a list's objects only, as metadata informers do.
const partialMetadataList = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"

// metadataOnlyLists are the provider's lists of metadata only (the audit log does not tell a metadata watch from a
// full one): the asocrd controller watches CustomResourceDefinitions with builder.OnlyMetadata.
var metadataOnlyLists = map[string]bool{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions": true}

// listSize GETs a list (or its objects' metadata, by accept) and returns its items' number and JSON size without
// managedFields.
func listSize(ctx context.Context, c *http.Client, host, uri, accept string) (int, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(host, "/")+uri, nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Accept", accept)
	resp, err := c.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("GET %s: %s", uri, resp.Status)
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return 0, 0, fmt.Errorf("GET %s: %w", uri, err)
	}
	size := 0
	for _, item := range list.Items {
		if meta, ok := item["metadata"].(map[string]any); ok {
			delete(meta, "managedFields")
		}
		b, err := json.Marshal(item)
		if err != nil {
			return 0, 0, err
		}
		size += len(b)
	}
	return len(list.Items), size, nil
}
