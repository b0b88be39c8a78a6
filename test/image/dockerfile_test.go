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
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	. "github.com/onsi/gomega"
)

// TestDockerfile_MatchesMakeImage checks that the Dockerfile and make image (hack/image) build the same image: the
// same go build flags, the same user and entrypoint, the same OCI labels. It needs neither Docker nor podman.
func TestDockerfile_MatchesMakeImage(t *testing.T) {
	g := NewWithT(t)
	read := func(path string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", path))
		g.Expect(err).NotTo(HaveOccurred())
		return string(data)
	}
	dockerfile, script, containerfile := read("Dockerfile"), read("hack/image/build.sh"), read("hack/image/Containerfile")

	goBuild := regexp.MustCompile(`CGO_ENABLED=0 GOOS=\S+ GOARCH=\S+ go build (.*) -o \S+ \.`)
	fromDockerfile, fromScript := goBuild.FindStringSubmatch(dockerfile), goBuild.FindStringSubmatch(script)
	g.Expect(fromDockerfile).To(HaveLen(2), "the Dockerfile's go build")
	g.Expect(fromScript).To(HaveLen(2), "build.sh's go build")
	g.Expect(fromDockerfile[1]).To(Equal(fromScript[1]), "the Dockerfile and make image build the manager with the same flags")
	g.Expect(fromScript[1]).To(ContainSubstring("-trimpath"))

	for _, directive := range []string{"USER", "ENTRYPOINT"} {
		re := regexp.MustCompile(`(?m)^` + directive + ` (.*)$`)
		g.Expect(re.FindAllStringSubmatch(dockerfile, -1)).To(Equal(re.FindAllStringSubmatch(containerfile, -1)), directive)
	}

	labelKeys := func(s string) []string {
		var keys []string
		seen := map[string]bool{}
		for _, m := range regexp.MustCompile(`(org\.opencontainers\.image\.[a-z.]+)=`).FindAllStringSubmatch(s, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				keys = append(keys, m[1])
			}
		}
		sort.Strings(keys)
		return keys
	}
	g.Expect(labelKeys(dockerfile)).To(Equal(labelKeys(script)), "the Dockerfile and make image set the same OCI labels")
	g.Expect(labelKeys(script)).To(ContainElements("org.opencontainers.image.source", "org.opencontainers.image.revision",
		"org.opencontainers.image.version", "org.opencontainers.image.created"))
}
