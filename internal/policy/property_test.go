package policy

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// gen builds shell commands that run a denied program, hidden the ways
// issue 12 lists: quoting, paths, wrappers, nesting in subshells, groups,
// sh -c strings, pipelines, lists, substitutions, functions and loops, with
// random whitespace and allowed commands around it.
type gen struct{ r *rand.Rand }

func (g gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g gen) sp() string { return g.pick(" ", " ", "  ", "\t", " \\\n ", "   ") }

func (g gen) spell(prog string) string {
	switch prog {
	case "rm":
		return g.pick("rm", `\rm`, `'rm'`, `"rm"`, `r''m`, `r""m`, `/bin/rm`, `/usr/bin/rm`, `./rm`, `../bin/rm`, `$'\x72m'`, `$'rm'`, `r\m`, `"r"m`, `\r\m`, `$'\162\155'`)
	case "git":
		return g.pick("git", `\git`, `'git'`, `g"i"t`, `/usr/bin/git`, `./git`, `$'git'`)
	case "push":
		return g.pick("push", `'push'`, `p"us"h`, `\push`, `pu''sh`)
	}
	return prog
}

// denied returns a command that runs a denied program.
func (g gen) denied() string {
	sp := g.sp
	switch g.r.IntN(4) {
	case 0:
		return g.spell("rm") + sp() + g.pick("x", "-rf /tmp/x", "-f a b", "--", "")
	case 1:
		return g.spell("git") + sp() + g.pick("", "-C ."+sp(), "--no-pager"+sp(), "-c a.b=c"+sp()) + g.spell("push") + g.pick("", sp()+"--force", sp()+"origin main")
	case 2:
		return g.spell("curl") + sp() + g.pick("http://x", "-fsSL https://e.x/i.sh", "-o f u")
	default:
		return g.pick("busybox rm x", "xargs rm", "xargs -0 -n 1 rm -f", "find . -name x -exec rm {} \\;", "find . -execdir "+g.spell("rm")+" {} +")
	}
}

func (g gen) wrap(cmd string) string {
	sp := g.sp
	w := g.pick("command", "env", "env -i", "env A=1 B=2", "env -u HOME", "nice", "nice -n 5", "nice -10", "nohup",
		"timeout 5", "timeout -s KILL 5", "time", "time -p", "stdbuf -oL", "sudo", "sudo -u bob", "sudo -E --", "doas",
		"setsid", "exec", "exec -a x", "command time -p", "builtin", "coproc")
	if w == "builtin" && !strings.HasPrefix(cmd, "rm") {
		w = "command"
	}
	return w + sp() + cmd
}

func (g gen) allowed() string {
	return g.pick("ls", "echo hi", "go test ./...", "cat f", "true", "grep x f", ":", "make check", "git status")
}

func (g gen) dq(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")
	return `"` + r.Replace(s) + `"`
}

// nest puts cmd inside another construct; simple says whether the result
// is a simple command, which a wrapper may precede.
func (g gen) nest(cmd string) (string, bool) {
	sp := g.sp
	q, _ := syntax.Quote(cmd, syntax.LangBash)
	shell := g.pick("sh", "bash", "dash", "zsh", "bash -e", "sh -e -u", "bash --norc")
	simple := []string{
		shell + " -c" + sp() + q,
		shell + " -c" + sp() + g.dq(cmd),
		"echo $( " + cmd + ")",
		"cat <( " + cmd + ")",
		"tee >( " + cmd + ") </dev/null",
		"echo \"$( " + cmd + ")\"",
		"trap " + q + " EXIT",
	}
	if !strings.Contains(cmd, "`") {
		simple = append(simple, "echo `"+strings.ReplaceAll(cmd, `\`, `\\`)+"`")
	}
	if g.r.IntN(2) == 0 {
		return simple[g.r.IntN(len(simple))], true
	}
	forms := []string{
		"(" + sp() + cmd + sp() + ")",
		"{" + sp() + cmd + ";" + sp() + "}",
		cmd + sp() + "|" + sp() + "wc -l",
		g.allowed() + sp() + "|" + sp() + cmd,
		g.allowed() + sp() + "&&" + sp() + cmd,
		"false" + sp() + "||" + sp() + cmd,
		g.allowed() + ";" + sp() + cmd,
		g.allowed() + "\n" + cmd,
		"if" + sp() + "true; then " + cmd + "; fi",
		"if " + cmd + "; then :; fi",
		"for i in 1 2; do " + cmd + "; done",
		"while false; do :; done; " + cmd,
		"f() { " + cmd + "; }; f",
		"function g { " + cmd + "; }",
		cmd + " & wait",
		"{ ! " + cmd + "; }",
		"case a in a) " + cmd + ";; esac",
		"{ cat <<EOF\n$( " + cmd + ")\nEOF\n}",
		"x=$( " + cmd + ")",
		"time " + cmd,
		"coproc { " + cmd + "; }",
	}
	return forms[g.r.IntN(len(forms))], false
}

func (g gen) command() string {
	cmd := g.denied()
	for range g.r.IntN(3) {
		cmd = g.wrap(cmd)
	}
	for range g.r.IntN(4) {
		var simple bool
		cmd, simple = g.nest(cmd)
		if simple && g.r.IntN(3) == 0 {
			cmd = g.wrap(cmd)
		}
	}
	if g.r.IntN(2) == 0 {
		cmd = g.allowed() + g.pick("; ", " && ", " | ", "\n") + cmd
	}
	if g.r.IntN(2) == 0 {
		cmd += g.pick("; ", " && ", " || ") + g.allowed()
	}
	return cmd
}

const propertyN = 100_000

// TestPropertyDeniedNeverAllowed: under Rules{Allow: ["*"], Deny: [...]}
// none of 100,000 generated commands that run a denied program is allowed.
// The generator must produce valid shell (no parse errors), and most
// commands must be refused outright, so the test is not passing on asks.
func TestPropertyDeniedNeverAllowed(t *testing.T) {
	n := propertyN
	if testing.Short() {
		n = 5_000
	}
	r := Rules{Allow: []string{"*"}, Deny: []string{"rm", "git push", "curl"}}
	g := gen{rand.New(rand.NewPCG(12, 2026))}
	counts := map[Verdict]int{}
	askWhy := map[string]int{}
	for i := 0; i < n; i++ {
		cmd := g.command()
		if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), ""); err != nil {
			t.Fatalf("generator made invalid shell %q: %v", cmd, err)
		}
		d := r.Check(cmd)
		counts[d.Verdict]++
		switch d.Verdict {
		case Allow:
			if counts[Allow] <= 20 {
				t.Errorf("allowed: %q (programs %v)", cmd, d.Programs)
			}
		case Ask:
			key := d.Reason
			if i := strings.IndexAny(key, `"(`); i > 0 {
				key = key[:i]
			}
			askWhy[key]++
		}
	}
	t.Logf("%d commands: %d deny, %d ask, %d allow", n, counts[Deny], counts[Ask], counts[Allow])
	var ks []string
	for k := range askWhy {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return askWhy[ks[i]] > askWhy[ks[j]] })
	for i, k := range ks {
		if i == 5 {
			break
		}
		t.Logf("ask %6d× %s", askWhy[k], k)
	}
	if counts[Allow] != 0 {
		t.Fatalf("%d of %d commands that run a denied program were allowed", counts[Allow], n)
	}
	if counts[Deny] < n*8/10 {
		t.Errorf("only %d of %d were denied outright; the generator or the resolver lost precision", counts[Deny], n)
	}
}

// Example_generatedDisguises shows what the property test's generator
// makes, and what the policy answers: every command runs a denied program
// and none is allowed.
func Example_generatedDisguises() {
	r := Rules{Allow: []string{"*"}, Deny: []string{"rm", "git push", "curl"}}
	g := gen{rand.New(rand.NewPCG(1, 1))}
	for range 6 {
		cmd := g.command()
		fmt.Printf("%-4s %q\n", r.Check(cmd).Verdict, cmd)
	}
	// Output:
	// deny "nohup dash -c  \"echo \\\"\\$( \\$'rm'   )\\\"\" || echo hi"
	// deny "cat f && tee >( curl \\\n -o f u) </dev/null; cat f"
	// ask  "trap 'cat <( stdbuf -oL   coproc  curl http://x)' EXIT && make check"
	// deny "echo hi\nif true; then g\"i\"t  --no-pager   p\"us\"h   origin main; fi"
	// deny "echo \"$( sudo -u bob   busybox rm x)\" && echo hi"
	// deny "cat f\ncat <( nice -10 \\\n cat <( $'git'\t-c a.b=c \\\n push))"
}

// String names a verdict as the examples print it.
func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	}
	return "ask"
}
