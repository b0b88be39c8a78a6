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

package image

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// WriteVolume writes files into dir as a kubelet's atomic writer lays out a Secret or projected volume: the files in
// a timestamped directory ..<time>, a symbolic link ..data to it, and for every file a symbolic link to ..data/<file>.
// Files get mode (a volume's defaultMode), directories 0755; dir itself is 0777, as the emptyDir a kubelet wraps
// the volume in. items, when set, project only those keys, to their paths (Secret volume items).
func WriteVolume(dir string, files map[string][]byte, mode int32, items map[string]string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		return err
	}
	paths := map[string]string{}
	for key := range files {
		if items == nil {
			paths[key] = key
		} else if p, ok := items[key]; ok {
			paths[key] = p
		}
	}
	ts := "..20" + time.Now().UTC().Format("06_01_02_15_04_05.000000000")
	tsDir := filepath.Join(dir, ts)
	if err := os.Mkdir(tsDir, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(tsDir, 0o755); err != nil {
		return err
	}
	keys := make([]string, 0, len(paths))
	for key := range paths {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		p := filepath.Join(tsDir, paths[key])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[key], os.FileMode(mode)); err != nil {
			return err
		}
		if err := os.Chmod(p, os.FileMode(mode)); err != nil {
			return err
		}
	}
	if err := os.Symlink(ts, filepath.Join(dir, "..data")); err != nil {
		return err
	}
	// The user-visible names: each top-level entry links into ..data.
	linked := map[string]bool{}
	for _, key := range keys {
		top := paths[key]
		if i := strings.IndexByte(top, '/'); i >= 0 {
			top = top[:i]
		}
		if linked[top] {
			continue
		}
		linked[top] = true
		if err := os.Symlink(filepath.Join("..data", top), filepath.Join(dir, top)); err != nil {
			return fmt.Errorf("failed to link %s: %w", top, err)
		}
	}
	return nil
}
