package config

import "testing"

func TestParsePortHidden(t *testing.T) {
	good := map[string]int{"": 8080, "   ": 8080, "80": 80, " 443 ": 443, "65535": 65535}
	for in, want := range good {
		if got, err := ParsePort(in); err != nil || got != want {
			t.Errorf("ParsePort(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "70000", "-1", "http", "8o"} {
		if _, err := ParsePort(in); err == nil {
			t.Errorf("ParsePort(%q): no error", in)
		}
	}
}
