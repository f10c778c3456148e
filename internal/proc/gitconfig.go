package proc

import (
	"bytes"
	"regexp"
	"sync"
)

var (
	// userinfo in a URL: scheme://user[:password]@
	urlUserinfo = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)([^/@\s"]+)@`)
	})
	// keys whose values are credentials wherever they stand.
	secretKey = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(extraheader|password|token|accesstoken|oauthtoken|secret)\s*=`)
	})
)

// StripGitCredentials is a git configuration file's text without the
// credentials it may hold: the userinfo of every URL with a password, or
// of any http(s) URL (https://TOKEN@host/… is a token too), and every
// extraheader, password or token key (http.extraheader holds the
// Authorization header CI checkouts leave). ssh://git@host and
// git@host:path keep their user name, which is no secret. Everything else,
// remotes and branches included, is kept as it is, so `git remote -v` and
// `git status` work on it.
func StripGitCredentials(text []byte) []byte {
	lines := bytes.SplitAfter(text, []byte("\n"))
	var out bytes.Buffer
	for _, line := range lines {
		if secretKey().Match(line) {
			continue
		}
		line = urlUserinfo().ReplaceAllFunc(line, func(m []byte) []byte {
			sub := urlUserinfo().FindSubmatch(m)
			scheme, info := sub[1], sub[2]
			low := bytes.ToLower(scheme)
			if bytes.Contains(info, []byte(":")) || bytes.HasPrefix(low, []byte("http")) {
				return scheme
			}
			return m
		})
		out.Write(line)
	}
	return out.Bytes()
}
