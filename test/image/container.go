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
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ServiceAccountMountPath is where the kubelet mounts a pod's ServiceAccount token, CA and namespace.
const ServiceAccountMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// Container is how podman runs a Deployment's container as a kubelet would: RunArgs are podman run's arguments
// (after "run"), and the rest is what the test checks against.
type Container struct {
	// RunArgs are the arguments of podman run: the container's options, the image, its arguments.
	RunArgs []string
	// Liveness and Readiness are the URLs of the container's HTTP probes, on the host's network.
	Liveness, Readiness *url.URL
	// Ports are the container's ports by name.
	Ports map[string]int32
	// Grace is the pod's terminationGracePeriodSeconds.
	Grace time.Duration
	// ServiceAccount is the pod's ServiceAccount, and Namespace the Deployment's namespace.
	ServiceAccount, Namespace string
	// SecretMounts are the Secrets the container mounts, by secret name: the host directory RunOptions.Volumes gives
	// for each must hold them as a kubelet's Secret volume does (WriteSecretVolume).
	SecretMounts map[string]SecretMount
	// MountsServiceAccount tells whether the container gets the ServiceAccount token at ServiceAccountMountPath.
	MountsServiceAccount bool
}

// SecretMount is a Secret volume of the pod that the container mounts.
type SecretMount struct {
	MountPath   string
	ReadOnly    bool
	DefaultMode int32
	// Items, when set, are the keys the volume projects, to their paths.
	Items map[string]string
}

// RunOptions are what a kubelet would give the container that the Deployment does not say.
type RunOptions struct {
	// Name is the container's name for podman, and PodName the pod's name (the downward API's metadata.name).
	Name, PodName string
	// APIServer is the address of the management cluster's API server (KUBERNETES_SERVICE_HOST and _PORT).
	APIServer *url.URL
	// SecretDirs are the host directories of the Secret volumes (WriteSecretVolume), by secret name.
	SecretDirs map[string]string
	// ServiceAccountDir is the host directory of the ServiceAccount volume (token, ca.crt, namespace).
	ServiceAccountDir string
}

// ManagerContainer finds the Deployment of objs that runs image and translates its container into podman's terms.
// Anything in the pod or container that it cannot run as a kubelet would is an error, not ignored: a field the
// Deployment gains must be taught to the test.
func ManagerContainer(deployments []*appsv1.Deployment, image string) (*appsv1.Deployment, *Container, error) {
	var found *appsv1.Deployment
	for _, d := range deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Image == image {
				if found != nil {
					return nil, nil, fmt.Errorf("two Deployments run %s: %s and %s", image, found.Name, d.Name)
				}
				found = d
			}
		}
	}
	if found == nil {
		return nil, nil, fmt.Errorf("no Deployment runs the image %s", image)
	}
	pod := found.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		return nil, nil, fmt.Errorf("the Deployment %s has %d containers; the test runs one", found.Name, len(pod.Containers))
	}
	c, err := translate(found, pod.Containers[0])
	return found, c, err
}

// translate checks every field of the pod and the container and makes podman's options of them, except those of
// RunOptions (Args adds them).
func translate(d *appsv1.Deployment, ctr corev1.Container) (*Container, error) {
	pod := d.Spec.Template.Spec
	out := &Container{
		Ports:          map[string]int32{},
		SecretMounts:   map[string]SecretMount{},
		ServiceAccount: pod.ServiceAccountName,
		Namespace:      d.Namespace,
		Grace:          30 * time.Second,
	}
	if out.ServiceAccount == "" {
		out.ServiceAccount = "default"
	}
	if pod.TerminationGracePeriodSeconds != nil {
		out.Grace = time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
	}
	// What a kubelet does with the pod's fields that run the container; scheduling (tolerations, node selection,
	// affinity, priority) does not change how it runs.
	rest := *pod.DeepCopy()
	rest.Containers, rest.ServiceAccountName, rest.DeprecatedServiceAccount = nil, "", ""
	rest.TerminationGracePeriodSeconds, rest.Volumes, rest.SecurityContext = nil, nil, nil
	rest.Tolerations, rest.NodeSelector, rest.Affinity, rest.PriorityClassName = nil, nil, nil, ""
	rest.AutomountServiceAccountToken = nil
	// The API server's defaults.
	rest.RestartPolicy, rest.DNSPolicy, rest.SchedulerName = "", "", ""
	if !equality.Semantic.DeepEqual(rest, corev1.PodSpec{}) {
		return nil, fmt.Errorf("the pod of Deployment %s has fields the test does not run as a kubelet would: %+v", d.Name, rest)
	}

	var args []string
	// The security context: the container's fields over the pod's.
	psc := pod.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	csc := ctr.SecurityContext
	if csc == nil {
		csc = &corev1.SecurityContext{}
	}
	runAsUser, runAsGroup, runAsNonRoot, seccomp := psc.RunAsUser, psc.RunAsGroup, psc.RunAsNonRoot, psc.SeccompProfile
	if csc.RunAsUser != nil {
		runAsUser = csc.RunAsUser
	}
	if csc.RunAsGroup != nil {
		runAsGroup = csc.RunAsGroup
	}
	if csc.RunAsNonRoot != nil {
		runAsNonRoot = csc.RunAsNonRoot
	}
	if csc.SeccompProfile != nil {
		seccomp = csc.SeccompProfile
	}
	prest := *psc.DeepCopy()
	prest.RunAsUser, prest.RunAsGroup, prest.RunAsNonRoot, prest.SeccompProfile, prest.SupplementalGroups = nil, nil, nil, nil, nil
	if !equality.Semantic.DeepEqual(prest, corev1.PodSecurityContext{}) {
		return nil, fmt.Errorf("the pod security context of Deployment %s has fields the test does not run: %+v", d.Name, prest)
	}
	for _, g := range psc.SupplementalGroups {
		args = append(args, "--group-add", strconv.FormatInt(g, 10))
	}
	switch {
	case runAsUser != nil && runAsGroup != nil:
		args = append(args, "--user", fmt.Sprintf("%d:%d", *runAsUser, *runAsGroup))
	case runAsUser != nil:
		args = append(args, "--user", strconv.FormatInt(*runAsUser, 10))
	case runAsGroup != nil:
		return nil, errors.New("runAsGroup without runAsUser: the test does not combine it with the image's user")
	}
	if runAsNonRoot != nil && *runAsNonRoot {
		// The kubelet refuses to start a container that would run as root, or as a user name it cannot check: the
		// image's user is checked by the test (ImageUserCheck) when the Deployment does not set runAsUser.
		if runAsUser != nil && *runAsUser == 0 {
			return nil, errors.New("runAsNonRoot with runAsUser 0: the kubelet would refuse the container")
		}
	}
	if seccomp != nil {
		switch seccomp.Type {
		case corev1.SeccompProfileTypeRuntimeDefault:
			// podman's default profile.
		case corev1.SeccompProfileTypeUnconfined:
			args = append(args, "--security-opt", "seccomp=unconfined")
		default:
			return nil, fmt.Errorf("seccomp profile %s is not run by the test", seccomp.Type)
		}
	}
	if csc.Privileged != nil && *csc.Privileged {
		args = append(args, "--privileged")
	}
	if csc.AllowPrivilegeEscalation != nil && !*csc.AllowPrivilegeEscalation {
		args = append(args, "--security-opt", "no-new-privileges")
	}
	if csc.ReadOnlyRootFilesystem != nil && *csc.ReadOnlyRootFilesystem {
		// podman would otherwise mount writable tmpfs on /tmp, /run and /var/tmp; a kubelet mounts nothing.
		args = append(args, "--read-only", "--read-only-tmpfs=false")
	}
	if caps := csc.Capabilities; caps != nil {
		for _, c := range caps.Drop {
			args = append(args, "--cap-drop", string(c))
		}
		for _, c := range caps.Add {
			args = append(args, "--cap-add", string(c))
		}
	}
	crest := *csc.DeepCopy()
	crest.RunAsUser, crest.RunAsGroup, crest.RunAsNonRoot, crest.SeccompProfile = nil, nil, nil, nil
	crest.Privileged, crest.AllowPrivilegeEscalation, crest.ReadOnlyRootFilesystem, crest.Capabilities = nil, nil, nil, nil
	if !equality.Semantic.DeepEqual(crest, corev1.SecurityContext{}) {
		return nil, fmt.Errorf("the container security context of Deployment %s has fields the test does not run: %+v", d.Name, crest)
	}

	// Ports: with the host's network, the container serves on the host's ports, as its containerPorts say.
	for _, p := range ctr.Ports {
		if p.HostPort != 0 || p.HostIP != "" {
			return nil, fmt.Errorf("port %s has a host port: not run by the test", p.Name)
		}
		if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
			return nil, fmt.Errorf("port %s is %s: only TCP is run by the test", p.Name, p.Protocol)
		}
		if p.Name != "" {
			out.Ports[p.Name] = p.ContainerPort
		}
	}
	probe := func(what string, p *corev1.Probe) (*url.URL, error) {
		if p == nil {
			return nil, nil
		}
		if p.HTTPGet == nil {
			return nil, fmt.Errorf("the %s probe is not an HTTP GET: not run by the test", what)
		}
		port, err := out.Port(p.HTTPGet.Port)
		if err != nil {
			return nil, fmt.Errorf("the %s probe: %w", what, err)
		}
		scheme := strings.ToLower(string(p.HTTPGet.Scheme))
		if scheme == "" {
			scheme = "http"
		}
		host := p.HTTPGet.Host
		if host == "" {
			host = "127.0.0.1"
		}
		return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, strconv.Itoa(int(port))), Path: p.HTTPGet.Path}, nil
	}
	var err error
	if out.Liveness, err = probe("liveness", ctr.LivenessProbe); err != nil {
		return nil, err
	}
	if out.Readiness, err = probe("readiness", ctr.ReadinessProbe); err != nil {
		return nil, err
	}
	if ctr.StartupProbe != nil {
		return nil, errors.New("a startup probe is not run by the test")
	}

	// Volumes: Secrets, mounted from host directories laid out as a kubelet's Secret volumes are.
	for _, m := range ctr.VolumeMounts {
		if m.SubPath != "" || m.SubPathExpr != "" || m.MountPropagation != nil || m.RecursiveReadOnly != nil {
			return nil, fmt.Errorf("volume mount %s: subPath, mountPropagation and recursiveReadOnly are not run by the test", m.Name)
		}
		var vol *corev1.Volume
		for i := range pod.Volumes {
			if pod.Volumes[i].Name == m.Name {
				vol = &pod.Volumes[i]
			}
		}
		if vol == nil {
			return nil, fmt.Errorf("volume mount %s names no volume of the pod", m.Name)
		}
		if vol.Secret == nil {
			return nil, fmt.Errorf("volume %s is not a Secret volume: not run by the test", vol.Name)
		}
		sm := SecretMount{MountPath: m.MountPath, ReadOnly: m.ReadOnly, DefaultMode: corev1.SecretVolumeSourceDefaultMode}
		if vol.Secret.DefaultMode != nil {
			sm.DefaultMode = *vol.Secret.DefaultMode
		}
		if len(vol.Secret.Items) > 0 {
			sm.Items = map[string]string{}
			for _, item := range vol.Secret.Items {
				sm.Items[item.Key] = item.Path
			}
		}
		if m.MountPath == ServiceAccountMountPath {
			return nil, fmt.Errorf("volume mount %s is at the ServiceAccount's path: not run by the test", m.Name)
		}
		out.SecretMounts[vol.Secret.SecretName] = sm
	}
	out.MountsServiceAccount = pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken

	// Environment: values, and the downward API's fields a kubelet resolves.
	for _, e := range ctr.Env {
		if e.ValueFrom != nil {
			f := e.ValueFrom.FieldRef
			if f == nil || (f.FieldPath != "metadata.namespace" && f.FieldPath != "metadata.name" && f.FieldPath != "spec.serviceAccountName") {
				return nil, fmt.Errorf("env %s: only the downward API's metadata.namespace, metadata.name and spec.serviceAccountName are run by the test", e.Name)
			}
		}
	}
	if len(ctr.EnvFrom) > 0 {
		return nil, errors.New("envFrom is not run by the test")
	}

	if ctr.WorkingDir != "" {
		args = append(args, "--workdir", ctr.WorkingDir)
	}
	if lim := ctr.Resources.Limits; lim != nil {
		if m, ok := lim[corev1.ResourceMemory]; ok {
			args = append(args, "--memory", strconv.FormatInt(m.Value(), 10))
		}
		if c, ok := lim[corev1.ResourceCPU]; ok {
			args = append(args, "--cpus", strconv.FormatFloat(float64(c.MilliValue())/1000, 'f', 3, 64))
		}
	}
	switch ctr.ImagePullPolicy {
	case corev1.PullIfNotPresent, corev1.PullNever, "":
		// make test-image built the image: it is present.
		args = append(args, "--pull", "never")
	default:
		return nil, fmt.Errorf("imagePullPolicy %s: the test cannot pull", ctr.ImagePullPolicy)
	}

	crestc := *ctr.DeepCopy()
	crestc.Name, crestc.Image, crestc.Command, crestc.Args, crestc.WorkingDir = "", "", nil, nil, ""
	crestc.Ports, crestc.Env, crestc.Resources, crestc.VolumeMounts = nil, nil, corev1.ResourceRequirements{}, nil
	crestc.LivenessProbe, crestc.ReadinessProbe, crestc.ImagePullPolicy, crestc.SecurityContext = nil, nil, "", nil
	// Where and how the kubelet keeps the termination message changes nothing in the container.
	crestc.TerminationMessagePolicy, crestc.TerminationMessagePath = "", ""
	if !equality.Semantic.DeepEqual(crestc, corev1.Container{}) {
		return nil, fmt.Errorf("the container of Deployment %s has fields the test does not run: %+v", d.Name, crestc)
	}
	out.RunArgs = args
	return out, nil
}

// Port resolves a probe's or Service's target port, a number or a name of the container's ports.
func (c *Container) Port(p intstr.IntOrString) (int32, error) {
	if p.Type == intstr.Int {
		return p.IntVal, nil
	}
	port, ok := c.Ports[p.StrVal]
	if !ok {
		return 0, fmt.Errorf("the container has no port named %q", p.StrVal)
	}
	return port, nil
}

// Args are podman run's arguments for the container of d: those of translate, then what a kubelet adds (the
// environment of the API server's Service and the downward API, the volumes), then the image, the command and the
// arguments, with $(VAR) references expanded as a kubelet does.
func (c *Container) Args(d *appsv1.Deployment, o RunOptions) ([]string, error) {
	ctr := d.Spec.Template.Spec.Containers[0]
	args := []string{"--name", o.Name}
	args = append(args, c.RunArgs...)
	env := map[string]string{}
	var order []string
	setEnv := func(name, value string) {
		if _, ok := env[name]; !ok {
			order = append(order, name)
		}
		env[name] = value
	}
	// The environment of the kubernetes Service, which a kubelet gives every container.
	host, port := o.APIServer.Hostname(), o.APIServer.Port()
	setEnv("KUBERNETES_SERVICE_HOST", host)
	setEnv("KUBERNETES_SERVICE_PORT", port)
	setEnv("KUBERNETES_SERVICE_PORT_HTTPS", port)
	setEnv("KUBERNETES_PORT", "tcp://"+net.JoinHostPort(host, port))
	for _, e := range ctr.Env {
		value := e.Value
		if f := e.ValueFrom; f != nil {
			switch f.FieldRef.FieldPath {
			case "metadata.namespace":
				value = c.Namespace
			case "metadata.name":
				value = o.PodName
			case "spec.serviceAccountName":
				value = c.ServiceAccount
			}
		} else {
			value = expand(value, env)
		}
		setEnv(e.Name, value)
	}
	for _, name := range order {
		args = append(args, "--env", name+"="+env[name])
	}
	for secret, m := range c.SecretMounts {
		dir, ok := o.SecretDirs[secret]
		if !ok {
			return nil, fmt.Errorf("no host directory for Secret %s", secret)
		}
		args = append(args, "--volume", volume(dir, m.MountPath, m.ReadOnly))
	}
	if c.MountsServiceAccount {
		// A kubelet's projected ServiceAccount volume is read-only.
		args = append(args, "--volume", volume(o.ServiceAccountDir, ServiceAccountMountPath, true))
	}
	if len(ctr.Command) > 0 {
		entrypoint := make([]string, len(ctr.Command))
		for i, a := range ctr.Command {
			entrypoint[i] = expand(a, env)
		}
		raw, err := json.Marshal(entrypoint)
		if err != nil {
			return nil, err
		}
		args = append(args, "--entrypoint", string(raw))
	}
	args = append(args, ctr.Image)
	for _, a := range ctr.Args {
		args = append(args, expand(a, env))
	}
	return args, nil
}

// volume is podman's --volume value of a bind mount.
func volume(hostDir, mountPath string, readOnly bool) string {
	v := hostDir + ":" + mountPath
	if readOnly {
		v += ":ro"
	}
	return v
}

// expand replaces $(NAME) by the value of NAME in env, as a kubelet expands a container's command, arguments and
// environment: $$ is a literal $, and a reference to an unknown variable stays as it is.
func expand(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+2+end]
			if v, ok := env[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 2 + end
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
