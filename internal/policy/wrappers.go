package policy

import (
	"strings"
)

// wrapper describes a program that runs another program given in its
// arguments. Its options are parsed exactly: an option the table does not
// know makes the command Ask, because guessing whether it takes a value
// would let "wrapper --unknown rm x" hide rm.
type wrapper struct {
	flags   string          // one-letter options without a value
	vals    string          // one-letter options with a value (attached or next)
	optVals string          // one-letter options whose value may only be attached (xargs -i)
	long    map[string]bool // long options → whether they take a value
	query   string          // one-letter options after which nothing runs (command -v)
	numeric bool            // "-10" is an option (nice)
	envArgs bool            // NAME=VALUE arguments come before the program (env, sudo)
	skip    int             // positional arguments before the program (timeout DURATION)
	forbid  map[string]string
	opaque  bool // allow rules do not see through it (sudo)
	noOpts  bool // the next word is the program (builtin, busybox)

}

var wrappers = map[string]wrapper{
	"command": {flags: "p", query: "vV"},
	"builtin": {noOpts: true},
	"exec":    {flags: "cl", vals: "a"},
	"nohup":   {},
	"env": {flags: "i0v", vals: "uC", envArgs: true,
		long:   map[string]bool{"ignore-environment": false, "null": false, "unset": true, "chdir": true, "debug": false},
		forbid: map[string]string{"S": "env -S splits a string into a command, which the policy does not follow", "split-string": "env --split-string splits a string into a command, which the policy does not follow"}},
	"nice":    {vals: "n", numeric: true, long: map[string]bool{"adjustment": true}},
	"ionice":  {flags: "t", vals: "cn", long: map[string]bool{"class": true, "classdata": true, "ignore": false}},
	"setsid":  {flags: "cfw", long: map[string]bool{"ctty": false, "fork": false, "wait": false}},
	"timeout": {flags: "v", vals: "ks", skip: 1, long: map[string]bool{"preserve-status": false, "foreground": false, "verbose": false, "kill-after": true, "signal": true}},
	"time":    {flags: "pvaq", vals: "fo", long: map[string]bool{"verbose": false, "portability": false, "append": false, "quiet": false, "format": true, "output": true}},
	"stdbuf":  {vals: "ioe", long: map[string]bool{"input": true, "output": true, "error": true}},
	"sudo": {flags: "AbEHKknPSVv", vals: "CDghpRrTtUu", envArgs: true, opaque: true,
		long:   map[string]bool{"askpass": false, "background": false, "preserve-env": false, "set-home": false, "non-interactive": false, "stdin": false, "user": true, "group": true, "chdir": true, "prompt": true},
		forbid: map[string]string{"s": "sudo -s runs a shell", "i": "sudo -i runs a login shell", "e": "sudo -e edits files as another user", "l": "", "shell": "sudo --shell runs a shell", "login": "sudo --login runs a login shell", "edit": "sudo --edit edits files as another user"}},
	"doas": {flags: "n", vals: "uC", opaque: true, forbid: map[string]string{"s": "doas -s runs a shell"}},
	"xargs": {flags: "0rtpxo", vals: "adEILnPs", optVals: "iel",
		long: map[string]bool{"null": false, "no-run-if-empty": false, "verbose": false, "interactive": false, "exit": false, "open-tty": false,
			"arg-file": true, "delimiter": true, "max-lines": true, "max-args": true, "max-procs": true, "max-chars": true, "process-slot-var": true,
			"replace": false, "eof": false}},
	"busybox": {noOpts: true},
	"toybox":  {noOpts: true},
}

// shells are parsed for -c strings.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "yash": true, "posh": true}

// parse returns the index in ws of the program the wrapper runs (-1 when it
// runs none whatever follows, len(ws) when none is given), or why the
// command must be asked about.
func (w wrapper) parse(ws []word) (int, string) {
	if w.noOpts {
		return 1, ""
	}
	i := 1
	for ; i < len(ws); i++ {
		a := ws[i]
		if !a.static() {
			return 0, "an argument is a " + a.dyn + ", so the policy cannot tell what runs"
		}
		s := a.s
		if s == "--" {
			i++
			break
		}
		if strings.HasPrefix(s, "--") {
			name, _, hasVal := strings.Cut(s[2:], "=")
			if why, ok := w.forbid[name]; ok && why != "" {
				return 0, why
			}
			takes, ok := w.long[name]
			if !ok {
				return 0, "the option " + s + " is not one the policy knows"
			}
			if takes && !hasVal {
				i++
			}
			continue
		}
		if len(s) < 2 || s[0] != '-' {
			break
		}
		if w.numeric && isDigits(s[1:]) {
			continue
		}
		for j := 1; j < len(s); j++ {
			c := s[j]
			if why, ok := w.forbid[string(c)]; ok {
				if why == "" {
					return -1, "" // lists, runs nothing
				}
				return 0, why
			}
			switch {
			case strings.IndexByte(w.query, c) >= 0:
				return -1, ""
			case strings.IndexByte(w.flags, c) >= 0:
				continue
			case strings.IndexByte(w.optVals, c) >= 0:
				j = len(s)
			case strings.IndexByte(w.vals, c) >= 0:
				if j == len(s)-1 {
					i++ // the value is the next word
				}
				j = len(s)
			default:
				return 0, "the option -" + string(c) + " is not one the policy knows"
			}
		}
	}
	if w.envArgs {
		for ; i < len(ws); i++ {
			if !ws[i].static() {
				return 0, "an argument is a " + ws[i].dyn + ", so the policy cannot tell what runs"
			}
			n, ok := assignment(ws[i].s)
			if !ok {
				break
			}
			if dangerousVar(n) {
				return 0, "it sets " + n + ", which decides which programs run"
			}
		}
	}
	for k := 0; k < w.skip && i < len(ws); k++ {
		if !ws[i].static() {
			return 0, "an argument is a " + ws[i].dyn + ", so the policy cannot tell what runs"
		}
		i++
	}
	if i > len(ws) {
		i = len(ws)
	}
	return i, ""
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
