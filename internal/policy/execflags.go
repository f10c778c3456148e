package policy

import (
	"path"
	"strings"
)

// runsOther lists, per program, the arguments that make it run another
// program or code given on the command line. An invocation with one of them
// is allowed only by a tools.allow rule (not "*") that names the token it
// returns ("go test -exec", "npm test", "find . -exec"). A program listed here
// whose arguments are not all static asks, because a variable or a glob
// could expand to such a flag.
//
// The list, documented in docs/security.md:
//   - go: -exec, -toolexec, -vettool (any subcommand); go generate; go tool;
//     go env -w/-u.
//   - find: -exec, -execdir, -ok, -okdir. fd: -x, -X, --exec, --exec-batch.
//   - git: the global options -c, --config-env, --exec-path, --git-dir;
//     git config (writing); filter-branch; bisect run; submodule foreach;
//     rebase -x/--exec; difftool/mergetool -x/--extcmd/-t/--tool;
//     clone/fetch/pull/ls-remote/push/archive --upload-pack/--receive-pack/
//     --exec, clone -u/-c/--config/--template, init --template,
//     grep -O/--open-files-in-pager, send-email --sendmail-cmd/
//     --smtp-server/--to-cmd/--cc-cmd/--header-cmd, instaweb.
//     One-letter options count attached to their value and inside a
//     cluster of short options (-O'rm …', -xcmd, -ix cmd), for every
//     program of this list.
//   - make: --eval/-E and NAME=value arguments other than V and VERBOSE
//     (a recipe may run $(CC); CC=rm runs rm).
//   - npm, pnpm, yarn, bun: every subcommand but the read-only ones (ls,
//     view, outdated, audit, why, …): the others run package scripts.
//     npx, pnpx, bunx, and npm exec / pnpm dlx / yarn dlx: always.
//   - awk (gawk, mawk, nawk): a program using system(), a pipe or getline,
//     and -f/-E/--file. sed: the e command or s///e flag, and -f/--file.
//   - inline code: python -c, perl -e/-E, ruby -e, node/deno/bun -e/-p/
//     --eval/--print, php -r, lua -e, Rscript -e.
//   - tar: --to-command, -I/--use-compress-program, --checkpoint-action,
//     --rsh-command, -F/--info-script/--new-volume-script. rsync: -e/--rsh,
//     --rsync-path. ssh/scp/sftp: -o, -F. cargo: --config. vim/nvim: -c,
//     --cmd, -S, +cmd.
var runsOther = map[string]func(args []string) []string{
	"go": goFlags, "find": flagsIn("-exec", "-execdir", "-ok", "-okdir"),
	"fd": flagsIn("-x", "-X", "--exec", "--exec-batch"), "fdfind": flagsIn("-x", "-X", "--exec", "--exec-batch"),
	"git": gitFlags, "make": makeFlags, "gmake": makeFlags,
	"npm": pkgFlags, "pnpm": pkgFlags, "yarn": pkgFlags, "yarnpkg": pkgFlags, "bun": pkgFlags, "cnpm": pkgFlags,
	"npx": always("npx"), "pnpx": always("pnpx"), "bunx": always("bunx"),
	"awk": awkFlags, "gawk": awkFlags, "mawk": awkFlags, "nawk": awkFlags,
	"sed": sedFlags, "gsed": sedFlags,
	"python": shortCode("c"), "python2": shortCode("c"), "python3": shortCode("c"), "pypy": shortCode("c"), "pypy3": shortCode("c"),
	"perl": shortCode("eE"), "ruby": shortCode("e"), "lua": shortCode("e"), "Rscript": shortCode("e"), "php": shortCode("r"),
	"node": nodeFlags, "nodejs": nodeFlags, "deno": nodeFlags,
	"tar":   flagsIn("--to-command", "-I", "--use-compress-program", "--checkpoint-action", "--rsh-command", "-F", "--info-script", "--new-volume-script"),
	"rsync": flagsIn("-e", "--rsh", "--rsync-path"),
	"ssh":   flagsIn("-o", "-F"), "scp": flagsIn("-o", "-F", "-S"), "sftp": flagsIn("-o", "-F", "-S"),
	"cargo": flagsIn("--config"),
	"vim":   vimFlags, "nvim": vimFlags, "vi": vimFlags,
}

// flagsIn finds options by name, spelled alone or with =value. A
// one-letter option ("-x") is also found with its value attached ("-xcmd",
// "-O'rm -rf .'") and inside a cluster of short options ("-ix cmd",
// "-iOrm"), which is how getopt and git's option parser read them: a
// letter of the cluster may be the start of another option's value, so
// this errs toward finding the option, and a question.
func flagsIn(names ...string) func([]string) []string {
	return func(args []string) []string {
		var out []string
		for _, a := range args {
			if a == "--" {
				break // what follows is operands
			}
			for _, n := range names {
				if a == n || strings.HasPrefix(a, n+"=") || isShort(n) && inCluster(a, n[1]) {
					out = append(out, n)
				}
			}
		}
		return out
	}
}

// isShort reports whether n is a one-letter option such as -x.
func isShort(n string) bool { return len(n) == 2 && n[0] == '-' && n[1] != '-' }

// inCluster reports whether the argument a is a cluster of short options
// ("-abc", one dash) that holds the letter c.
func inCluster(a string, c byte) bool {
	return len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], c) >= 0
}

func always(tok string) func([]string) []string {
	return func([]string) []string { return []string{tok} }
}

// shortCode finds one-letter options that take inline code, also inside a
// cluster (perl -pe, python -Bc).
func shortCode(letters string) func([]string) []string {
	return func(args []string) []string {
		for _, a := range args {
			if a == "--" || !strings.HasPrefix(a, "-") {
				return nil // the script file and its own arguments
			}
			if !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], letters) {
				return []string{a}
			}
		}
		return nil
	}
}

func nodeFlags(args []string) []string {
	if len(args) > 0 && args[0] == "eval" {
		return []string{"eval"}
	}
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return nil
		}
		for _, f := range []string{"-e", "-p", "--eval", "--print", "-pe"} {
			if a == f || strings.HasPrefix(a, f+"=") {
				return []string{f}
			}
		}
	}
	return nil
}

func goFlags(args []string) []string {
	out := flagsIn("-exec", "--exec", "-toolexec", "--toolexec", "-vettool", "--vettool")(args)
	for i := range out {
		out[i] = "-" + strings.TrimLeft(out[i], "-")
	}
	sub, rest := subcommand(args, map[string]bool{"-C": true})
	switch sub {
	case "generate", "tool":
		out = append(out, sub)
	case "env":
		out = append(out, flagsIn("-w", "-u")(rest)...)
	}
	return out
}

// subcommand returns the first word that is not an option, skipping the
// values of the options in withVal.
func subcommand(args []string, withVal map[string]bool) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if withVal[a] {
			i++
			continue
		}
		if !strings.HasPrefix(a, "-") {
			return a, args[i+1:]
		}
	}
	return "", nil
}

func gitFlags(args []string) []string {
	var out []string
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		a := args[i]
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "-c", "--config-env", "--exec-path", "--git-dir":
			out = append(out, name)
		}
		switch a {
		case "-c", "-C", "--config-env", "--git-dir", "--work-tree", "--namespace":
			i++ // the value
		}
	}
	if i >= len(args) {
		return out
	}
	sub, rest := args[i], args[i+1:]
	first, _ := subcommand(rest, nil) // git submodule --quiet foreach
	if sub == "config" && len(rest) > 0 {
		first = rest[0]
	}
	switch sub {
	case "filter-branch", "filter-repo":
		out = append(out, sub)
	case "config":
		read := first == "get" || first == "list"
		for _, r := range rest {
			switch strings.SplitN(r, "=", 2)[0] {
			case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color", "--get-colorbool":
				read = true
			}
		}
		if !read {
			out = append(out, "config")
		}
	case "bisect":
		if first == "run" {
			out = append(out, "run")
		}
	case "submodule":
		if first == "foreach" {
			out = append(out, "foreach")
		}
	case "rebase":
		out = append(out, flagsIn("-x", "--exec")(rest)...)
	case "difftool", "mergetool":
		out = append(out, flagsIn("-x", "--extcmd", "-t", "--tool")(rest)...)
	case "clone":
		out = append(out, flagsIn("-u", "--upload-pack", "-c", "--config", "--template")(rest)...)
	case "fetch", "pull", "ls-remote", "fetch-pack", "push", "send-pack", "archive":
		out = append(out, flagsIn("--upload-pack", "--receive-pack", "--exec")(rest)...)
	case "init":
		out = append(out, flagsIn("--template")(rest)...)
	case "grep":
		out = append(out, flagsIn("-O", "--open-files-in-pager")(rest)...)
	case "send-email":
		out = append(out, flagsIn("--sendmail-cmd", "--smtp-server", "--to-cmd", "--cc-cmd", "--header-cmd")(rest)...)
	case "instaweb":
		out = append(out, sub)
	}
	return out
}

func makeFlags(args []string) []string {
	out := flagsIn("--eval", "-E")(args)
	for _, a := range args {
		if n, ok := assignment(a); ok && n != "V" && n != "VERBOSE" {
			out = append(out, n+"=")
		}
	}
	return out
}

var readOnlyPkg = map[string]bool{
	"ls": true, "list": true, "ll": true, "la": true, "view": true, "v": true, "info": true, "show": true,
	"outdated": true, "whoami": true, "help": true, "search": true, "root": true, "prefix": true,
	"doctor": true, "explain": true, "why": true, "query": true, "fund": true, "ping": true,
}

func pkgFlags(args []string) []string {
	sub, rest := subcommand(args, nil)
	switch {
	case sub == "" && len(args) > 0 && (args[0] == "-v" || args[0] == "--version"):
		return nil
	case readOnlyPkg[sub]:
		return nil
	case sub == "audit" && !contains(rest, "fix"):
		return nil
	case sub == "config" && len(rest) > 0 && (rest[0] == "get" || rest[0] == "list" || rest[0] == "ls"):
		return nil
	case sub == "":
		return []string{"install"} // yarn alone installs and runs scripts
	}
	return []string{sub}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func awkFlags(args []string) []string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || a == "-E" || strings.HasPrefix(a, "--file") || strings.HasPrefix(a, "--exec") || strings.HasPrefix(a, "-f"):
			return []string{"-f"}
		case a == "-F" || a == "-v":
			i++
		case a == "-e" || a == "--source":
			if i+1 < len(args) && awkRuns(args[i+1]) {
				return []string{"system()"}
			}
			i++
		case a == "--":
			if i+1 < len(args) && awkRuns(args[i+1]) {
				return []string{"system()"}
			}
			return nil
		case strings.HasPrefix(a, "-"):
		default:
			if awkRuns(a) {
				return []string{"system()"}
			}
			return nil
		}
	}
	return nil
}

func awkRuns(prog string) bool {
	return strings.Contains(prog, "system") || strings.Contains(prog, "|") || strings.Contains(prog, "getline") || strings.Contains(prog, "@load")
}

func sedFlags(args []string) []string {
	var scripts []string
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || strings.HasPrefix(a, "--file"):
			return []string{"-f"}
		case a == "-e" || a == "--expression":
			explicit = true
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
			}
			i++
		case strings.HasPrefix(a, "--expression="):
			explicit = true
			scripts = append(scripts, strings.TrimPrefix(a, "--expression="))
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "ef") && len(a) > 2:
			return []string{a} // a cluster such as -ne or -nf: ask rather than guess
		case strings.HasPrefix(a, "-"):
		case !explicit && len(scripts) == 0:
			scripts = append(scripts, a)
		}
	}
	for _, s := range scripts {
		if sedRuns(s) {
			return []string{"e"}
		}
	}
	return nil
}

// sedRuns reports whether a sed script may use GNU sed's e command or the e
// flag of s. It errs toward yes: any e after a command separator or an s
// command's closing delimiter counts.
func sedRuns(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 's' || c == 'y':
			if i+1 >= len(s) {
				return false
			}
			d := s[i+1]
			n, j := 0, i+2
			for ; j < len(s) && n < 2; j++ {
				if s[j] == '\\' {
					j++
					continue
				}
				if s[j] == d {
					n++
				}
			}
			for ; j < len(s) && strings.IndexByte(";\n}", s[j]) < 0; j++ {
				if c == 's' && s[j] == 'e' {
					return true
				}
			}
			i = j
		case c == '/' || c == '\\':
			// an address /re/ or \%re%: skip the regular expression
			d := byte('/')
			if c == '\\' && i+1 < len(s) {
				i++
				d = s[i]
			}
			for i++; i < len(s) && s[i] != d; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case strings.IndexByte("aicrwRW:btT", c) >= 0:
			// text, file names and labels run to the end of the line (a, i,
			// c, r, w) or of the command (labels)
			for i < len(s) && s[i] != '\n' && !(strings.IndexByte(":btT", c) >= 0 && s[i] == ';') {
				i++
			}
		case c == 'e':
			return true
		}
	}
	return false
}

func vimFlags(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "-c" || a == "--cmd" || a == "-S" || strings.HasPrefix(a, "+") {
			out = append(out, a)
		}
	}
	return out
}

// findings returns the tokens of invocation layer l that run another
// program, or a dynamic-argument reason for a listed program.
func findings(l layer, open bool) (toks []string, why string) {
	name := path.Base(l.words[0].s)
	f, ok := runsOther[name]
	if !ok {
		return nil, ""
	}
	args := make([]string, 0, len(l.words)-1)
	for _, w := range l.words[1:] {
		if !w.static() {
			return nil, "an argument of " + name + " is a " + w.dyn + ", which could be an option that runs another program"
		}
		args = append(args, w.s)
	}
	if open {
		return nil, "xargs adds arguments to " + name + " from its input, which could be an option that runs another program"
	}
	return f(args), ""
}
