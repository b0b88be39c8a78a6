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
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// managerDeployment reads the manager's Deployment as config/manager writes it (before kustomize's names).
func managerDeployment(g *WithT) *appsv1.Deployment {
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "manager", "manager.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	d := &appsv1.Deployment{}
	g.Expect(yaml.UnmarshalStrict(data, d)).To(Succeed())
	return d
}

func TestManagerContainer(t *testing.T) {
	g := NewWithT(t)
	d := managerDeployment(g)
	image := d.Spec.Template.Spec.Containers[0].Image
	_, ctr, err := ManagerContainer([]*appsv1.Deployment{d}, image)
	g.Expect(err).NotTo(HaveOccurred())

	run := strings.Join(ctr.RunArgs, " ")
	g.Expect(run).To(ContainSubstring("--user 65532:65532"))
	g.Expect(run).To(ContainSubstring("--read-only --read-only-tmpfs=false"))
	g.Expect(run).To(ContainSubstring("--security-opt no-new-privileges"))
	g.Expect(run).To(ContainSubstring("--cap-drop ALL"))
	g.Expect(ctr.Readiness.String()).To(Equal("http://127.0.0.1:9440/readyz"))
	g.Expect(ctr.Liveness.String()).To(Equal("http://127.0.0.1:9440/healthz"))
	g.Expect(ctr.Grace).To(Equal(10 * time.Second))
	g.Expect(ctr.SecretMounts).To(HaveKeyWithValue("capz-webhook-service-cert", SecretMount{
		MountPath: "/tmp/k8s-webhook-server/serving-certs", ReadOnly: true, DefaultMode: corev1.SecretVolumeSourceDefaultMode,
	}))
	g.Expect(ctr.MountsServiceAccount).To(BeTrue())

	api, err := url.Parse("https://127.0.0.1:6443")
	g.Expect(err).NotTo(HaveOccurred())
	args, err := ctr.Args(d, RunOptions{
		Name: "manager", PodName: "pod", APIServer: api,
		SecretDirs:        map[string]string{"capz-webhook-service-cert": "/host/cert"},
		ServiceAccountDir: "/host/sa",
	})
	g.Expect(err).NotTo(HaveOccurred())
	joined := strings.Join(args, " ")
	g.Expect(joined).To(ContainSubstring("--env KUBERNETES_SERVICE_HOST=127.0.0.1 --env KUBERNETES_SERVICE_PORT=6443"))
	g.Expect(joined).To(ContainSubstring("--volume /host/cert:/tmp/k8s-webhook-server/serving-certs:ro"))
	g.Expect(joined).To(ContainSubstring("--volume /host/sa:" + ServiceAccountMountPath + ":ro"))
	g.Expect(joined).To(ContainSubstring(`--entrypoint ["/manager"] ` + image + " --leader-elect"))
}

// TestManagerContainer_Unknown checks that what the test cannot run as a kubelet would fails it instead of being
// left out.
func TestManagerContainer_Unknown(t *testing.T) {
	tests := []struct {
		name   string
		change func(*appsv1.Deployment)
		err    string
	}{
		{name: "init container", change: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "init"}}
		}, err: "the pod of Deployment"},
		{name: "host path volume", change: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Volumes[0].Secret = nil
			d.Spec.Template.Spec.Volumes[0].HostPath = &corev1.HostPathVolumeSource{Path: "/"}
		}, err: "is not a Secret volume"},
		{name: "envFrom", change: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{Prefix: "X"}}
		}, err: "envFrom"},
		{name: "startup probe", change: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].StartupProbe = &corev1.Probe{}
		}, err: "startup probe"},
		{name: "probe port without a container port", change: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Ports[1].Name = "health"
		}, err: `no port named "healthz"`},
		{name: "a container field", change: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Stdin = true
		}, err: "the container of Deployment"},
		{name: "a security context field", change: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].SecurityContext.ProcMount = new(corev1.ProcMountType)
		}, err: "the container security context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			d := managerDeployment(g)
			tt.change(d)
			_, _, err := ManagerContainer([]*appsv1.Deployment{d}, d.Spec.Template.Spec.Containers[0].Image)
			g.Expect(err).To(MatchError(ContainSubstring(tt.err)))
		})
	}
}

func TestExpand(t *testing.T) {
	g := NewWithT(t)
	env := map[string]string{"A": "a", "B": "b"}
	g.Expect(expand("$(A)-$(B)", env)).To(Equal("a-b"))
	g.Expect(expand("$$(A)", env)).To(Equal("$(A)"))
	g.Expect(expand("$(C)", env)).To(Equal("$(C)"))
	g.Expect(expand("${A}", env)).To(Equal("${A}"))
	g.Expect(expand("$(A", env)).To(Equal("$(A"))
}

func TestWriteVolume(t *testing.T) {
	g := NewWithT(t)
	dir := filepath.Join(t.TempDir(), "cert")
	g.Expect(WriteVolume(dir, map[string][]byte{"tls.crt": []byte("crt"), "tls.key": []byte("key")}, 0o644, nil)).To(Succeed())
	data, err := os.Readlink(filepath.Join(dir, "..data"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(data).To(HavePrefix("..20"))
	link, err := os.Readlink(filepath.Join(dir, "tls.crt"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(link).To(Equal(filepath.Join("..data", "tls.crt")))
	content, err := os.ReadFile(filepath.Join(dir, "tls.key"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(content)).To(Equal("key"))
	info, err := os.Stat(filepath.Join(dir, "tls.key"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o644)))
}
