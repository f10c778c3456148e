package delegate

import (
	"slices"
	"strings"
	"testing"
)

const commit = "0123456789abcdef0123456789abcdef01234567"

func TestParseJobRefusesBadInput(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"not json", `{`, "not a job"},
		{"unknown field", `{"id":"a","repo":"r","commit":"` + commit + `","task":"t","apiKey":"x"}`, "unknown field"},
		{"subject in id", `{"id":"a.b","repo":"r","commit":"` + commit + `","task":"t"}`, "job id"},
		{"wildcard id", `{"id":"*","repo":"r","commit":"` + commit + `","task":"t"}`, "job id"},
		{"option as repo", `{"id":"a","repo":"--upload-pack=x","commit":"` + commit + `","task":"t"}`, "bad repository"},
		{"short commit", `{"id":"a","repo":"r","commit":"0123abc","task":"t"}`, "full commit"},
		{"no task", `{"id":"a","repo":"r","commit":"` + commit + `","task":"  "}`, "no task"},
	} {
		if _, err := ParseJob([]byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := ParseJob([]byte(`{"id":"j1-x_2","repo":"git@h:r.git","commit":"` + commit + `","task":"t"}`)); err != nil {
		t.Errorf("a good job: %v", err)
	}
}

// A job narrows the worker's policy and never widens it.
func TestPolicyOnlyNarrows(t *testing.T) {
	p := Policy{Repos: []string{"git@h:team/*"}, Allow: []string{"go test ./...", "go vet ./..."}, MaxSteps: 20}
	job := Job{ID: "a", Repo: "git@h:team/app", Commit: commit, Task: "t"}

	allow, steps, err := p.Narrow(job)
	if err != nil || !slices.Equal(allow, p.Allow) || steps != 20 {
		t.Fatalf("no narrowing: %v %d %v", allow, steps, err)
	}
	job.Allow, job.MaxSteps = []string{"go test ./...", "rm -rf /"}, 500
	allow, steps, err = p.Narrow(job)
	if err != nil || !slices.Equal(allow, []string{"go test ./..."}) || steps != 20 {
		t.Fatalf("a job asking for more: %v %d %v", allow, steps, err)
	}
	job.Allow, job.MaxSteps = []string{}, 5
	allow, steps, _ = p.Narrow(job)
	if len(allow) != 0 || steps != 5 {
		t.Fatalf("a job asking for less: %v %d", allow, steps)
	}
	job.Repo = "git@h:other/app"
	if _, _, err := p.Narrow(job); err == nil {
		t.Fatal("a repository outside --repo was taken")
	}
	if _, _, err := (Policy{}).Narrow(Job{ID: "a", Repo: "/tmp/r"}); err == nil {
		t.Fatal("a worker with no --repo took a job")
	}
}

// A job's run gets the worker's settings less tools.allow (the job's
// narrowed list comes as --allow) and less the API key (kept out of any
// file a sandboxed command could read), in every spelling.
func TestJobSettingsDropAllowAndKey(t *testing.T) {
	for _, in := range []string{
		`{"tools":{"allow":["rm *"],"deny":["curl *"]},"llm":{"apiKey":"sk-123456789","model":"m"}}`,
		`{"tools.allow":["rm *"],"tools.deny":["curl *"],"llm.apiKey":"sk-123456789","llm.model":"m"}`,
		`{"agentls":{"tools":{"allow":["rm *"],"deny":["curl *"]},"llm.apiKey":"sk-123456789","llm":{"model":"m"}}}`,
	} {
		out, key, err := jobSettings([]byte(in))
		if err != nil || key != "sk-123456789" {
			t.Fatalf("%s: key %q, %v", in, key, err)
		}
		s := string(out)
		if strings.Contains(s, "rm *") || strings.Contains(s, "sk-123456789") || !strings.Contains(s, "curl *") || !strings.Contains(s, `"m"`) {
			t.Errorf("%s → %s", in, s)
		}
	}
	if _, _, err := jobSettings([]byte(`[`)); err == nil {
		t.Error("bad settings accepted")
	}
}

// A token in the remote's URL never goes into a job (every worker reads
// it, everyone who lists jobs sees it).
func TestRemoteURLLosesItsSecret(t *testing.T) {
	for in, want := range map[string]string{
		"https://x-access-token:ghs_abc123@example.com/team/app.git": "https://example.com/team/app.git",
		"https://ghp_tokenonly@example.com/team/app.git":             "https://example.com/team/app.git",
		"ssh://git:secret@example.com/team/app.git":                  "ssh://git@example.com/team/app.git",
		"ssh://git@example.com/team/app.git":                         "ssh://git@example.com/team/app.git",
		"git@example.com:team/app.git":                               "git@example.com:team/app.git",
		"/srv/git/app.git":                                           "/srv/git/app.git",
	} {
		if got := withoutSecret(in); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}
