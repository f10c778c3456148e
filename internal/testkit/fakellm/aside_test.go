package fakellm

import (
	"io"
	"strings"
	"testing"
)

// An aside answers every request its expect matches, out of order and
// without taking a turn; the script goes on where it was. One without an
// expect is refused, since it would answer everything.
func TestAsidesAnswerOutOfOrder(t *testing.T) {
	s, url := start(t, &Script{
		Turns:  []Turn{{Text: "first turn"}, {Text: "second turn"}},
		Asides: []Turn{{Text: "probe answer", Expect: &Expect{LastUserContains: "probe"}}},
	})
	body := func(content string) string {
		return strings.Replace(simpleBody, `"content":"hi"`, `"content":"`+content+`"`, 1)
	}
	read := func(content string) string {
		b, _ := io.ReadAll(post(t, url, body(content)).Body)
		return string(b)
	}
	var got []string
	for _, c := range []string{"probe", "hi", "probe", "probe", "hi"} {
		got = append(got, read(c))
	}
	for i, want := range []string{"probe", "first", "probe", "probe", "second"} {
		if !strings.Contains(got[i], want) {
			t.Errorf("request %d answered %q, want %q", i, got[i], want)
		}
	}
	if reqs := s.Requests(); len(reqs) != 5 || reqs[0].Turn != 1000 || reqs[1].Turn != 0 || reqs[4].Turn != 1 {
		t.Errorf("recorded turns: %+v", reqs)
	}
	if _, err := Parse([]byte(`{"turns": [], "asides": [{"text": "x"}]}`)); err == nil || !strings.Contains(err.Error(), "needs an expect") {
		t.Errorf("an aside without expect: %v", err)
	}
}
