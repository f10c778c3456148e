package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// transpile turns every .ts file under dir (outside node_modules) into the
// .js file beside it, so node runs the TypeScript tasks' tests without a
// TypeScript toolchain (none is installed where the suite runs, and the
// sandbox has no network to fetch one). Types are stripped, not checked;
// sources import each other as "./x.js", as TypeScript's ESM output does.
func transpile(dir string) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".ts") || strings.HasSuffix(p, ".d.ts") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		res := api.Transform(string(src), api.TransformOptions{Loader: api.LoaderTS, Format: api.FormatESModule, Target: api.ES2022, Sourcefile: p})
		if len(res.Errors) > 0 {
			e := res.Errors[0]
			line := 0
			if e.Location != nil {
				line = e.Location.Line
			}
			rel, _ := filepath.Rel(dir, p)
			return fmt.Errorf("%s:%d: %s (TypeScript syntax error)", rel, line, e.Text)
		}
		return os.WriteFile(strings.TrimSuffix(p, ".ts")+".js", res.Code, 0o644)
	})
}
