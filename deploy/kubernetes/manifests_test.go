package kubernetes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
)

// The values the image and tzctx fix, which the manifests must agree on.
const (
	imageUID   = 65532
	dataDir    = "/data"
	configDir  = "/etc/tzctx"
	servePort  = 8080
	readyPath  = "/readyz"
	livePath   = "/healthz"
	configFile = "config.json"
)

// kustomization is the part of kustomization.yaml this directory uses;
// strict decoding refuses any other member, so a new one is seen here.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
	Labels     []struct {
		Pairs map[string]string `json:"pairs"`
	} `json:"labels"`
}

// manifests is every object of the directory, decoded strictly.
type manifests struct {
	kust       kustomization
	deployment appsv1.Deployment
	service    corev1.Service
	hpa        autoscalingv2.HorizontalPodAutoscaler
	pdb        policyv1.PodDisruptionBudget
	configMap  corev1.ConfigMap
	secret     corev1.Secret
}

// decodeStrict decodes one YAML document into obj, refusing unknown and
// duplicate members, and checks its apiVersion and kind.
func decodeStrict(t *testing.T, name string, raw []byte, apiVersion, kind string, obj any) {
	t.Helper()
	if bytes.Contains(raw, []byte("\n---")) || bytes.HasPrefix(raw, []byte("---")) {
		t.Fatalf("%s: holds more than one document; keep one object per file", name)
	}
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(raw, &tm); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if tm.APIVersion != apiVersion || tm.Kind != kind {
		t.Fatalf("%s: is %s %s, want %s %s", name, tm.APIVersion, tm.Kind, apiVersion, kind)
	}
	if err := yaml.UnmarshalStrict(raw, obj); err != nil {
		t.Fatalf("%s: not a valid %s: %v", name, kind, err)
	}
}

// load decodes every YAML file of the directory; a file kustomization.yaml
// does not list, or one it lists that is not here, fails the test.
func load(t *testing.T) manifests {
	t.Helper()
	var m manifests
	want := map[string]struct {
		apiVersion, kind string
		obj              any
	}{
		"deployment.yaml": {"apps/v1", "Deployment", &m.deployment},
		"service.yaml":    {"v1", "Service", &m.service},
		"hpa.yaml":        {"autoscaling/v2", "HorizontalPodAutoscaler", &m.hpa},
		"pdb.yaml":        {"policy/v1", "PodDisruptionBudget", &m.pdb},
		"configmap.yaml":  {"v1", "ConfigMap", &m.configMap},
		"secret.yaml":     {"v1", "Secret", &m.secret},
	}
	raw, err := os.ReadFile("kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	decodeStrict(t, "kustomization.yaml", raw, "kustomize.config.k8s.io/v1beta1", "Kustomization", &m.kust)
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	yml, _ := filepath.Glob("*.yml")
	files = append(files, yml...)
	files = slices.DeleteFunc(files, func(f string) bool { return f == "kustomization.yaml" })
	sort.Strings(files)
	listed := slices.Clone(m.kust.Resources)
	sort.Strings(listed)
	if !slices.Equal(files, listed) {
		t.Fatalf("kustomization.yaml lists %v; the directory holds %v", listed, files)
	}
	for _, f := range files {
		w, ok := want[f]
		if !ok {
			t.Fatalf("%s: no check decodes it; add it to this test", f)
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		decodeStrict(t, f, raw, w.apiVersion, w.kind, w.obj)
	}
	for f := range want {
		if !slices.Contains(files, f) {
			t.Fatalf("%s is missing", f)
		}
	}
	return m
}

// TestStrictDecodeRefusesUnknownMembers shows the decoding the other tests
// rely on fails on a misspelt member, so their passing means something.
func TestStrictDecodeRefusesUnknownMembers(t *testing.T) {
	raw, err := os.ReadFile("deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(raw, []byte("\n  replicas: 3\n"), []byte("\n  replicas: 3\n  replicaz: 3\n"), 1)
	if bytes.Equal(bad, raw) {
		t.Fatal("deployment.yaml has no top-level `replicas: 3` line to misspell")
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(bad, &d); err == nil || !strings.Contains(err.Error(), "replicaz") {
		t.Fatalf("a Deployment with spec.replicaz decoded: %v", err)
	}
}

// tzctxContainer is the Deployment's one container.
func tzctxContainer(t *testing.T, d *appsv1.Deployment) *corev1.Container {
	t.Helper()
	cs := d.Spec.Template.Spec.Containers
	if len(cs) != 1 || cs[0].Name != "tzctx" {
		t.Fatalf("the Deployment has containers %v; want one, named tzctx", cs)
	}
	if len(d.Spec.Template.Spec.InitContainers) != 0 {
		t.Fatal("init containers would need their own checks here")
	}
	return &cs[0]
}

// flag returns the value of --name in args ("--name V" or "--name=V").
func flag(t *testing.T, args []string, name string) string {
	t.Helper()
	var got []string
	for i, a := range args {
		if a == "--"+name && i+1 < len(args) {
			got = append(got, args[i+1])
		} else if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			got = append(got, v)
		}
	}
	if len(got) != 1 {
		t.Fatalf("args %q: want --%s once, got %q", args, name, got)
	}
	return got[0]
}

// portOf resolves a probe's or Service's port (a number or a container
// port's name) to the container port number.
func portOf(t *testing.T, c *corev1.Container, p intstr.IntOrString, what string) int32 {
	t.Helper()
	if p.Type == intstr.Int {
		return p.IntVal
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return cp.ContainerPort
		}
	}
	t.Fatalf("%s: port %q names no port of the container", what, p.StrVal)
	return 0
}

func containerPort(t *testing.T, c *corev1.Container, name string) int32 {
	t.Helper()
	return portOf(t, c, intstr.FromString(name), "container port "+name)
}

func TestDeploymentServesTheFollowedVersion(t *testing.T) {
	m := load(t)
	d := &m.deployment
	c := tzctxContainer(t, d)
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("replicas = %s, want 3", ptrString(d.Spec.Replicas))
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("the Deployment's selector %v does not select its pods %v (%v)", d.Spec.Selector, d.Spec.Template.Labels, err)
	}

	// The command line: serve, on all interfaces of the container port,
	// following an s3://BUCKET/PREFIX pointer, with the mounted config.
	if len(c.Command) != 0 {
		t.Errorf("command %q overrides the image's entry point /tzctx", c.Command)
	}
	if len(c.Args) == 0 || c.Args[0] != "serve" {
		t.Fatalf("args %q: want tzctx serve", c.Args)
	}
	host, port, err := net.SplitHostPort(flag(t, c.Args, "addr"))
	if err != nil || host != "0.0.0.0" {
		t.Errorf("--addr %s:%s: want 0.0.0.0, so the kubelet and the Service reach it (%v)", host, port, err)
	}
	if n, _ := strconv.Atoi(port); int32(n) != containerPort(t, c, "http") || n != servePort {
		t.Errorf("--addr port %s, container port http %d: want both %d", port, containerPort(t, c, "http"), servePort)
	}
	follow, err := url.Parse(flag(t, c.Args, "follow"))
	if err != nil || follow.Scheme != "s3" || follow.Host == "" || strings.Trim(follow.Path, "/") == "" ||
		follow.RawQuery != "" || follow.User != nil {
		t.Errorf("--follow %v: want s3://BUCKET/PREFIX (%v)", follow, err)
	}
	cfgPath := flag(t, c.Args, "config")
	if path.Dir(cfgPath) != configDir || path.Base(cfgPath) != configFile {
		t.Errorf("--config %s: want %s/%s", cfgPath, configDir, configFile)
	}

	// Probes: readiness only once a version is active, liveness on
	// /healthz, both on the serve port.
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{{"readinessProbe", c.ReadinessProbe, readyPath}, {"livenessProbe", c.LivenessProbe, livePath}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s: want an httpGet probe", p.name)
			continue
		}
		g := p.probe.HTTPGet
		if g.Path != p.path {
			t.Errorf("%s path %q, want %q", p.name, g.Path, p.path)
		}
		if got := portOf(t, c, g.Port, p.name); got != servePort {
			t.Errorf("%s port %d, want the serve port %d", p.name, got, servePort)
		}
		if g.Scheme != "" && g.Scheme != corev1.URISchemeHTTP {
			t.Errorf("%s scheme %s: tzctx serves plain HTTP", p.name, g.Scheme)
		}
	}

	// Resources: both bounds, and a CPU request, which the HPA's
	// utilization target is a share of.
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, okReq := c.Resources.Requests[r]
		lim, okLim := c.Resources.Limits[r]
		if !okReq || !okLim || req.Sign() <= 0 || req.Cmp(lim) > 0 {
			t.Errorf("resources %s: request %v, limit %v; want both, request <= limit", r, req.String(), lim.String())
		}
	}

	// Environment: the data directory, and the Secret's values.
	for _, e := range c.Env {
		if e.Name == "TZCTX_DATA" && e.Value != dataDir {
			t.Errorf("TZCTX_DATA=%s, want %s", e.Value, dataDir)
		}
	}
	fromSecret := false
	for _, e := range c.EnvFrom {
		if e.SecretRef != nil && e.SecretRef.Name == m.secret.Name && (e.SecretRef.Optional == nil || !*e.SecretRef.Optional) {
			fromSecret = true
		}
	}
	if !fromSecret {
		t.Errorf("envFrom %v: want the Secret %s, not optional", c.EnvFrom, m.secret.Name)
	}
}

func TestDeploymentIsLockedDown(t *testing.T) {
	m := load(t)
	spec := &m.deployment.Spec.Template.Spec
	c := tzctxContainer(t, &m.deployment)
	pod := spec.SecurityContext
	if pod == nil {
		pod = &corev1.PodSecurityContext{}
	}
	sc := c.SecurityContext
	if sc == nil {
		t.Fatal("the container has no securityContext")
	}
	// The container's setting wins over the pod's where both are set.
	nonRoot := sc.RunAsNonRoot
	if nonRoot == nil {
		nonRoot = pod.RunAsNonRoot
	}
	if nonRoot == nil || !*nonRoot {
		t.Error("runAsNonRoot is not true")
	}
	user := sc.RunAsUser
	if user == nil {
		user = pod.RunAsUser
	}
	if user == nil || *user != imageUID {
		t.Errorf("runAsUser %s, want %d", ptrString(user), imageUID)
	}
	if pod.RunAsUser != nil && *pod.RunAsUser != imageUID {
		t.Errorf("the pod's runAsUser %d, want %d", *pod.RunAsUser, imageUID)
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Error("readOnlyRootFilesystem is not true")
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("allowPrivilegeEscalation is not false")
	}
	if sc.Privileged != nil && *sc.Privileged {
		t.Error("privileged")
	}
	if sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
		t.Errorf("capabilities %v: want drop [ALL], add none", sc.Capabilities)
	}
	seccomp := sc.SeccompProfile
	if seccomp == nil {
		seccomp = pod.SeccompProfile
	}
	if seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("seccompProfile %v, want RuntimeDefault", seccomp)
	}
	if spec.HostNetwork || spec.HostPID || spec.HostIPC {
		t.Error("the pod shares a host namespace")
	}
}

// TestDeploymentVolumes checks every path tzctx writes is a volume (the
// root file system is read-only) and the config is the ConfigMap's.
func TestDeploymentVolumes(t *testing.T) {
	m := load(t)
	spec := &m.deployment.Spec.Template.Spec
	c := tzctxContainer(t, &m.deployment)
	vols := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		vols[v.Name] = v
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, vm := range c.VolumeMounts {
		if _, dup := mounts[vm.MountPath]; dup {
			t.Errorf("%s is mounted twice", vm.MountPath)
		}
		if _, ok := vols[vm.Name]; !ok {
			t.Errorf("mount %s names no volume %q", vm.MountPath, vm.Name)
		}
		mounts[vm.MountPath] = vm
	}
	for _, p := range []string{dataDir, "/tmp"} {
		vm, ok := mounts[p]
		if !ok {
			t.Errorf("%s is not mounted; the root file system is read-only", p)
			continue
		}
		if v := vols[vm.Name]; v.EmptyDir == nil || vm.ReadOnly || vm.SubPath != "" {
			t.Errorf("%s: want a writable emptyDir, got %+v mounted %+v", p, v.VolumeSource, vm)
		}
	}
	vm, ok := mounts[configDir]
	if !ok {
		t.Fatalf("%s is not mounted", configDir)
	}
	v := vols[vm.Name]
	if v.ConfigMap == nil || v.ConfigMap.Name != m.configMap.Name || !vm.ReadOnly || vm.SubPath != "" {
		t.Fatalf("%s: want the ConfigMap %s mounted read-only, got %+v mounted %+v", configDir, m.configMap.Name, v.VolumeSource, vm)
	}
	// The file --config names is a key of the ConfigMap that the volume
	// projects under its own name.
	file := configFile
	if len(v.ConfigMap.Items) > 0 {
		file = ""
		for _, it := range v.ConfigMap.Items {
			if it.Path == configFile {
				file = it.Key
			}
		}
	}
	if _, ok := m.configMap.Data[file]; !ok || file == "" {
		t.Errorf("the ConfigMap %s has no %s for %s/%s", m.configMap.Name, configFile, configDir, configFile)
	}
}

// TestImageMatchesContainerfileAndMakefile ties the Deployment's image,
// user, data volume and port to the image make image builds.
func TestImageMatchesContainerfileAndMakefile(t *testing.T) {
	m := load(t)
	c := tzctxContainer(t, &m.deployment)
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	img := regexp.MustCompile(`(?m)^IMAGE\s*\?=\s*(\S+)\s*$`).FindSubmatch(mk)
	if img == nil {
		t.Fatal("the Makefile sets no IMAGE ?= default")
	}
	if c.Image != string(img[1]) {
		t.Errorf("image %s; make image builds %s", c.Image, img[1])
	}
	cf, err := os.ReadFile("../../Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	instr := map[string][]string{}
	for _, line := range strings.Split(string(cf), "\n") {
		if f := strings.Fields(line); len(f) > 1 && !strings.HasPrefix(f[0], "#") {
			instr[strings.ToUpper(f[0])] = append(instr[strings.ToUpper(f[0])], strings.Join(f[1:], " "))
		}
	}
	want := strconv.Itoa(imageUID) + ":" + strconv.Itoa(imageUID)
	if !slices.Equal(instr["USER"], []string{want}) {
		t.Errorf("Containerfile USER %q, want %s, the Deployment's runAsUser", instr["USER"], want)
	}
	if !slices.Equal(instr["VOLUME"], []string{dataDir}) {
		t.Errorf("Containerfile VOLUME %q, want %s", instr["VOLUME"], dataDir)
	}
	if !slices.Contains(instr["ENV"], "TZCTX_DATA="+dataDir) {
		t.Errorf("Containerfile ENV %q lacks TZCTX_DATA=%s", instr["ENV"], dataDir)
	}
	if !slices.Equal(instr["ENTRYPOINT"], []string{`["/tzctx"]`}) {
		t.Errorf("Containerfile ENTRYPOINT %q, want [\"/tzctx\"]", instr["ENTRYPOINT"])
	}
	if !slices.Contains(instr["EXPOSE"], strconv.Itoa(servePort)) {
		t.Errorf("Containerfile EXPOSE %q lacks %d", instr["EXPOSE"], servePort)
	}
}

func TestServiceSelectsThePods(t *testing.T) {
	m := load(t)
	s := &m.service
	c := tzctxContainer(t, &m.deployment)
	if len(s.Spec.Selector) == 0 || !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(m.deployment.Spec.Template.Labels)) {
		t.Errorf("the Service's selector %v does not select the pods %v", s.Spec.Selector, m.deployment.Spec.Template.Labels)
	}
	if len(s.Spec.Ports) != 1 {
		t.Fatalf("the Service has ports %v; want one", s.Spec.Ports)
	}
	p := s.Spec.Ports[0]
	if p.Port == 0 || (p.Protocol != "" && p.Protocol != corev1.ProtocolTCP) {
		t.Errorf("the Service's port %+v", p)
	}
	target := p.TargetPort
	if target.Type == intstr.Int && target.IntVal == 0 {
		target = intstr.FromInt32(p.Port) // an unset targetPort is the port
	}
	if got := portOf(t, c, target, "the Service's targetPort"); got != servePort {
		t.Errorf("the Service sends to container port %d, want the serve port %d", got, servePort)
	}
}

func TestAutoscalerAndDisruptionBudget(t *testing.T) {
	m := load(t)
	d := &m.deployment
	h := &m.hpa
	ref := h.Spec.ScaleTargetRef
	if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != d.Name || d.Name == "" {
		t.Errorf("the HPA scales %+v, want apps/v1 Deployment %s", ref, d.Name)
	}
	if h.Spec.MinReplicas == nil || d.Spec.Replicas == nil || *h.Spec.MinReplicas > *d.Spec.Replicas || h.Spec.MaxReplicas < *h.Spec.MinReplicas {
		t.Errorf("the HPA scales %v..%d; want min <= the Deployment's %v replicas <= max", h.Spec.MinReplicas, h.Spec.MaxReplicas, d.Spec.Replicas)
	}
	cpu := false
	for _, mt := range h.Spec.Metrics {
		if mt.Type == autoscalingv2.ResourceMetricSourceType && mt.Resource != nil && mt.Resource.Name == corev1.ResourceCPU &&
			mt.Resource.Target.Type == autoscalingv2.UtilizationMetricType && mt.Resource.Target.AverageUtilization != nil &&
			*mt.Resource.Target.AverageUtilization > 0 && *mt.Resource.Target.AverageUtilization <= 100 {
			cpu = true
		}
	}
	if !cpu {
		t.Errorf("the HPA's metrics %+v: want CPU utilization, a percentage", h.Spec.Metrics)
	}

	p := &m.pdb
	sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("the PDB's selector %v does not select the pods %v (%v)", p.Spec.Selector, d.Spec.Template.Labels, err)
	}
	// A budget that allows no disruption blocks every node drain.
	switch {
	case p.Spec.MinAvailable != nil && p.Spec.MaxUnavailable != nil:
		t.Error("the PDB sets both minAvailable and maxUnavailable")
	case p.Spec.MinAvailable != nil:
		if p.Spec.MinAvailable.Type != intstr.Int || p.Spec.MinAvailable.IntVal < 1 || p.Spec.MinAvailable.IntVal >= *h.Spec.MinReplicas {
			t.Errorf("minAvailable %s: want a number from 1 to below the %d replicas the HPA keeps", p.Spec.MinAvailable.String(), *h.Spec.MinReplicas)
		}
	case p.Spec.MaxUnavailable != nil:
		if p.Spec.MaxUnavailable.String() == "0" || p.Spec.MaxUnavailable.String() == "0%" {
			t.Error("maxUnavailable 0 blocks every drain")
		}
	default:
		t.Error("the PDB sets neither minAvailable nor maxUnavailable")
	}
}

// TestSecretHoldsPlaceholders checks the Secret has each variable tzctx
// reads, and only example values, so no real credential is committed.
func TestSecretHoldsPlaceholders(t *testing.T) {
	m := load(t)
	s := &m.secret
	if len(s.Data) != 0 {
		t.Errorf("the Secret's data %v: keep the example values readable in stringData", s.Data)
	}
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "TZCTX_RECORDS_POSTGRES_URL"} {
		if s.StringData[k] == "" {
			t.Errorf("the Secret has no %s", k)
		}
	}
	if s.StringData["AWS_ENDPOINT_URL_S3"] == "" && s.StringData["AWS_ENDPOINT_URL"] == "" {
		t.Error("the Secret has neither AWS_ENDPOINT_URL_S3 nor AWS_ENDPOINT_URL")
	}
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "TZCTX_RECORDS_POSTGRES_URL"} {
		if !strings.Contains(s.StringData[k], "PLACEHOLDER") {
			t.Errorf("the Secret's %s is not marked PLACEHOLDER", k)
		}
	}
	for _, k := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "TZCTX_RECORDS_POSTGRES_URL"} {
		if v, ok := s.StringData[k]; ok {
			u, err := url.Parse(v)
			if err != nil || u.Host == "" || !strings.HasSuffix(u.Hostname(), ".invalid") {
				t.Errorf("the Secret's %s %q: want a URL on an .invalid host (%v)", k, v, err)
			}
		}
	}
}

// TestConfigMetricsAreScraped checks /metrics is on and served where the
// pod's scrape annotation and metrics port point.
func TestConfigMetricsAreScraped(t *testing.T) {
	m := load(t)
	c := tzctxContainer(t, &m.deployment)
	var cfg struct {
		Metrics     *bool  `json:"metrics"`
		MetricsAddr string `json:"metrics_addr"`
	}
	if err := json.Unmarshal([]byte(m.configMap.Data[configFile]), &cfg); err != nil {
		t.Fatalf("%s: %v", configFile, err)
	}
	if cfg.Metrics != nil && !*cfg.Metrics {
		t.Fatal("metrics is false")
	}
	// On the main address /metrics answers loopback and admins alone.
	host, port, err := net.SplitHostPort(cfg.MetricsAddr)
	if err != nil || (host != "0.0.0.0" && host != "") {
		t.Fatalf("metrics_addr %q: want 0.0.0.0:PORT, reachable by Prometheus (%v)", cfg.MetricsAddr, err)
	}
	a := m.deployment.Spec.Template.Annotations
	if a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != port || a["prometheus.io/path"] != "/metrics" {
		t.Errorf("scrape annotations %v: want scrape true, port %s, path /metrics", a, port)
	}
	if n, _ := strconv.Atoi(port); int32(n) != containerPort(t, c, "metrics") {
		t.Errorf("metrics_addr port %s, container port metrics %d", port, containerPort(t, c, "metrics"))
	}
}

// TestConfigMapIsAcceptedByTzctx loads config.json with tzctx's own loader,
// through the CLI: serve reads --config before it opens the data directory,
// so with --data naming a file it stops at once, on the data directory
// where the configuration was accepted and on the configuration where not.
// A configuration with an unknown member shows the two apart.
func TestConfigMapIsAcceptedByTzctx(t *testing.T) {
	m := load(t)
	bin := testkit.Binary(t)
	dir := t.TempDir()
	notDir := filepath.Join(dir, "not-a-directory")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(config string) string {
		t.Helper()
		p := filepath.Join(dir, "config.json")
		if err := os.WriteFile(p, []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "--data", notDir, "serve", "--addr", "127.0.0.1:0", "--config", p)
		cmd.Env = append(os.Environ(), "TZCTX_DATA=")
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("serve with --data a file exited 0:\n%s", out)
		}
		return string(out)
	}
	good := m.configMap.Data[configFile]
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(good), &top); err != nil {
		t.Fatalf("%s does not parse: %v", configFile, err)
	}
	// loadConfig's faults begin "config FILE:" or "read config:".
	refused := regexp.MustCompile(`(?m)^tzctx: (read )?config[ :]`)
	out := run(good)
	if refused.MatchString(out) || !strings.Contains(out, "open data directory") {
		t.Fatalf("tzctx serve refused the ConfigMap's %s:\n%s", configFile, out)
	}
	t.Logf("the ConfigMap's %s accepted; serve stopped on: %s", configFile, strings.TrimSpace(out))
	top["no_such_member"] = json.RawMessage("1")
	bad, _ := json.Marshal(top)
	if out := run(string(bad)); !refused.MatchString(out) || !strings.Contains(out, "no_such_member") {
		t.Fatalf("tzctx serve did not refuse an unknown member, so this test cannot tell a refused configuration:\n%s", out)
	}
}

// ptrString prints *p, or "unset".
func ptrString[T any](p *T) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// TestMain removes the tzctx binary the package's tests share
// (testkit.Binary).
func TestMain(m *testing.M) {
	code := m.Run()
	testkit.RemoveBinary()
	os.Exit(code)
}
