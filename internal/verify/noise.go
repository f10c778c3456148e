package verify

import (
	"strings"
)

// noiseRE matches lines that carry nothing for a summary when no parser
// claimed them: progress chatter, separators, excerpts and stack frames.
// Everything else that names no file is reported as unlocated.
var noiseRE = lazyRegexp(strings.Join([]string{
	`^[\s=_\-~*#.^|+]*$`,             // separators, carets, blank
	`^\s*\d*\s+\|`,                   // gcc and rustc excerpt gutters
	`^\s*= (?:note|help):`,           // rustc notes under an excerpt
	`^(?:PASS|FAIL|ok)$`,             // go test
	`^ok\s+\S+`,                      // go test: a passing package
	`^\?\s+\S+\s+\[no test files\]$`, // go test
	`^FAIL\s+\S+\s+[\d.]+s$`,         // go test: the failing package, already located
	`^exit status \d+$`,              // go run / go test
	`^goroutine \d+ \[`,              // Go stack dumps
	`^\t\S+:\d+(?: \+0x[0-9a-f]+)?$`, // Go stack frames
	`^\s*(?:Compiling|Checking|Finished|Running|Fresh|Blocking|Downloaded|Downloading|Updating|Locking|Adding|Doc-tests|Documenting|Building)\s`, // cargo
	`^running \d+ tests?$`,             // cargo test
	`^test \S+ \.\.\. (?:ok|ignored)$`, // cargo test
	`^---- \S+ stdout ----$`,           // cargo test
	`^stack backtrace:$`,               // rust
	`^\s+\d+: \S`,                      // rust backtrace frames
	`^\s+at \S+`,                       // rust, JavaScript frames
	`^note: (?:Some details are omitted|run with .RUST_BACKTRACE)`,
	`^[.FEsxX]+\s*(?:\[\s*\d+%\])?$`,                                             // pytest progress
	`^={3,} (?:FAILURES|ERRORS|short test summary info|warnings summary) ={3,}$`, // pytest banners
	`^\S*make(?:\[\d+\])?: (?:Entering|Leaving) directory`,
	`^\S*make(?:\[\d+\])?: Nothing to be done`,
	`^> \S+@\S+ \S+`, // npm's echo of the script it runs
	`^npm (?:ERR!|error)\s*$`,
}, "|"))

func isNoise(l string) bool {
	return noiseRE.MatchString(l)
}
