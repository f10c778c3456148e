package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// The ACP Registry entry (editors/acp-registry/agentls) is what Zed and
// the JetBrains IDEs install agentls from. It must pass the registry's own
// checks: its JSON schema (a copy in testdata/acp-registry, source noted
// there) and the rules its CI adds (CONTRIBUTING.md there): the directory
// is the id, a build for each of macOS, Linux and Windows, archive URLs at
// the entry's version and never /latest/, a 16×16 monochrome icon. Its
// command must start agentls as an ACP agent.
func TestACPRegistryManifest(t *testing.T) {
	dir := filepath.Join("..", "editors", "acp-registry", "agentls")
	raw, err := os.ReadFile(filepath.Join(dir, "agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	schemaText, err := os.ReadFile(filepath.Join("testdata", "acp-registry", "agent.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(schemaText, &schema); err != nil {
		t.Fatal(err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("agent.json: %v", err)
	}
	if err := resolved.Validate(doc); err != nil {
		t.Fatalf("agent.json against the registry's schema: %v", err)
	}
	// The schema itself must be able to fail: an entry without its
	// distribution, and one with an unknown platform, are refused.
	for _, bad := range []string{
		`{"id":"agentls","name":"a","version":"1.0.0","description":"d"}`,
		`{"id":"agentls","name":"a","version":"1.0.0","description":"d","distribution":{"binary":{"plan9-x86_64":{"archive":"https://x/a.tar.gz","cmd":"./a"}}}}`,
	} {
		var v any
		_ = json.Unmarshal([]byte(bad), &v)
		if resolved.Validate(v) == nil {
			t.Errorf("the schema took %s", bad)
		}
	}

	var m struct {
		ID, Version, Icon string
		Distribution      struct {
			Binary map[string]struct {
				Archive, Cmd string
				Args         []string
			}
		}
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m.ID != filepath.Base(dir) {
		t.Errorf("id %q is not its directory's name %q", m.ID, filepath.Base(dir))
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(m.Version) {
		t.Errorf("version %q is not x.y.z", m.Version)
	}
	oses := map[string]bool{}
	// The release archives' names: .goreleaser.yaml's name_template, with
	// the registry's platform names mapped to Go's.
	goName := map[string]string{"darwin": "darwin", "linux": "linux", "windows": "windows", "aarch64": "arm64", "x86_64": "amd64"}
	nameTemplate := releaseNameTemplate(t)
	for plat, b := range m.Distribution.Binary {
		osName, arch, _ := strings.Cut(plat, "-")
		oses[osName] = true
		u, err := url.Parse(b.Archive)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			t.Errorf("%s: archive %q is not an https URL", plat, b.Archive)
			continue
		}
		if strings.Contains(u.Path, "/latest/") || !strings.Contains(u.Path, "/download/v"+m.Version+"/") {
			t.Errorf("%s: archive %q is not the release of version %s", plat, b.Archive, m.Version)
		}
		ext := ".tar.gz"
		if osName == "windows" {
			ext = ".zip"
		}
		want := strings.NewReplacer("{{ .Os }}", goName[osName], "{{ .Arch }}", goName[arch], "{{ .Version }}", m.Version).Replace(nameTemplate) + ext
		if got := path.Base(u.Path); got != want {
			t.Errorf("%s: archive %s; the release builds %s", plat, got, want)
		}
		wantCmd := "./agentls"
		if osName == "windows" {
			wantCmd += ".exe"
		}
		if b.Cmd != wantCmd || strings.Join(b.Args, " ") != "acp" {
			t.Errorf("%s: starts %s %v, want %s acp", plat, b.Cmd, b.Args, wantCmd)
		}
	}
	for _, o := range []string{"darwin", "linux", "windows"} {
		if !oses[o] {
			t.Errorf("no build for %s: the registry wants every OS", o)
		}
	}
	checkRegistryIcon(t, filepath.Join(dir, m.Icon))

	// The entry's command starts an ACP agent: initialize is answered.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var linux []string
	for plat, b := range m.Distribution.Binary {
		if strings.HasPrefix(plat, "linux-") {
			linux = b.Args
		}
	}
	cmd := exec.CommandContext(ctx, binary, linux...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = in.Close(); _ = cmd.Wait() }()
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	line, err := bufio.NewReader(out).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Result struct {
			ProtocolVersion int `json:"protocolVersion"`
			AgentInfo       struct{ Name string }
		}
	}
	if err := json.Unmarshal(line, &res); err != nil || res.Result.ProtocolVersion != 1 || res.Result.AgentInfo.Name != "agentls" {
		t.Errorf("`agentls %s` answered initialize with %s", strings.Join(linux, " "), line)
	}
}

// releaseNameTemplate is the release archives' name template: from
// .goreleaser.yaml at the repository's root, where the release is built.
func releaseNameTemplate(t *testing.T) string {
	t.Helper()
	const built = "agentls_{{ .Os }}_{{ .Arch }}" // what the release builds
	data, err := os.ReadFile(filepath.Join("..", ".goreleaser.yaml"))
	if err != nil {
		t.Logf("no .goreleaser.yaml (%v): the names are checked against %q", err, built)
		return built
	}
	mm := regexp.MustCompile(`(?m)^\s*name_template:\s*"(agentls[^"]*)"`).FindSubmatch(data)
	if mm == nil {
		t.Fatal(".goreleaser.yaml has no archive name_template")
	}
	return string(mm[1])
}

// checkRegistryIcon applies the registry's icon rules: SVG, 16×16, and
// only currentColor (or none, inherit) as fill and stroke.
func checkRegistryIcon(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	root := true
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range el.Attr {
			attr[a.Name.Local] = a.Value
		}
		if root {
			root = false
			if el.Name.Local != "svg" || attr["width"] != "16" || attr["height"] != "16" {
				t.Errorf("icon: want a 16×16 svg, got <%s width=%q height=%q>", el.Name.Local, attr["width"], attr["height"])
			}
		}
		for _, k := range []string{"fill", "stroke"} {
			if v, ok := attr[k]; ok && v != "currentColor" && v != "none" && v != "inherit" {
				t.Errorf("icon: %s=%q; the registry wants currentColor", k, v)
			}
		}
	}
	if root {
		t.Error("icon: no svg element")
	}
}
