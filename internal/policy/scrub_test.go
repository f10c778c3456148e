package policy

import (
	"strings"
	"testing"
)

func TestScrubberRemovesTheKeyAndSecretVariables(t *testing.T) {
	isSecret := func(n string) bool { return strings.HasSuffix(n, "_TOKEN") }
	s := NewScrubber("sk-live-abcdef", []string{
		"GITHUB_TOKEN=ghp_0123456789", "SHORT_TOKEN=abc", "HOME=/home/u", "LLM_KEY=sk-live-abcdef",
		"PREFIX_TOKEN=ghp_0123",
	}, isSecret)
	cases := map[string]string{
		"key sk-live-abcdef here":      "key [redacted] here",
		"tok=ghp_0123456789;":          "tok=[redacted];",
		"abc and /home/u stay":         "abc and /home/u stay",
		"ghp_0123 alone":               "[redacted] alone",
		"sk-live-abcdefsk-live-abcdef": "[redacted][redacted]",
		"":                             "",
	}
	for in, want := range cases {
		if got := s.Scrub(in); got != want {
			t.Errorf("Scrub(%q) = %q, want %q", in, got, want)
		}
	}
	var none *Scrubber
	if none.Scrub("x") != "x" || !NewScrubber("", nil, isSecret).Empty() {
		t.Error("an empty scrubber changed text")
	}
}
