package archtest

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/puzzled/puzzled"

// pkg is one package of the module as `go list` sees it.
type pkg struct {
	path    string   // without the module prefix: "store", "solver/zuma"
	imports []string // direct imports of ours (non-test files), without the prefix
	deps    []string // every package it links, full paths
}

// listModule lists the module's packages.
func listModule(t *testing.T) map[string]pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "|")
		p := pkg{path: ours(parts[0]), deps: strings.Fields(parts[2])}
		for _, imp := range strings.Fields(parts[1]) {
			if strings.HasPrefix(imp, module+"/") {
				p.imports = append(p.imports, ours(imp))
			}
		}
		pkgs[p.path] = p
	}
	return pkgs
}

func ours(path string) string { return strings.TrimPrefix(path, module+"/") }

// isTestSupport reports whether a package is test support: its name ends
// in "test" (envtest, storetest, twoendstest, …).
func isTestSupport(path string) bool { return strings.HasSuffix(filepath.Base(path), "test") }

// TestImportRules: nothing imports upward. The job vocabulary (jobtype)
// and the solvers sit at the bottom; the store, the queue and the worker
// import nothing of the HTTP API; the client side (puzzlectl, api/client,
// api/wire) links no database code; production code imports no test
// support but for the bench commands, which seed histories with storetest.
func TestImportRules(t *testing.T) {
	t.Parallel()
	pkgs := listModule(t)
	forbid := func(p pkg, why string, bad func(dep string) bool) {
		for _, d := range p.deps {
			if bad(d) {
				t.Errorf("%s links %s: %s", p.path, d, why)
			}
		}
	}
	underAPI := func(d string) bool { return d == module+"/api" || strings.HasPrefix(d, module+"/api/") }
	database := func(d string) bool {
		return strings.HasPrefix(d, "github.com/jackc/pgx") || strings.HasPrefix(d, "github.com/pressly/goose") ||
			d == module+"/migrations" || d == module+"/store"
	}
	for _, p := range pkgs {
		switch {
		case p.path == "jobtype":
			forbid(p, "the job vocabulary is a leaf", func(d string) bool {
				return strings.HasPrefix(d, module+"/") && d != module+"/solver" && d != module+"/solver/difficulty"
			})
		case p.path == "solver" || strings.HasPrefix(p.path, "solver/"):
			forbid(p, "solvers never see the service", func(d string) bool {
				return strings.HasPrefix(d, module+"/") && !strings.HasPrefix(d, module+"/solver")
			})
		case slices.Contains([]string{"store", "queue", "worker", "migrations", "internal/solveproc", "web"}, p.path):
			forbid(p, "below the API", underAPI)
		}
		if slices.Contains([]string{"cmd/puzzlectl", "api/client", "api/wire", "jobtype"}, p.path) {
			forbid(p, "the client side links no database code", database)
		}
		for _, imp := range p.imports {
			if isTestSupport(imp) && !isTestSupport(p.path) && p.path != "internal/archtest" &&
				!(p.path == "internal/bench" && imp == "store/storetest") {
				t.Errorf("%s imports %s: production code imports no test support", p.path, imp)
			}
		}
	}
	// The bench commands link storetest into the puzzled binary: it must
	// not bring the testing package along.
	forbid(pkgs["store/storetest"], "linked by puzzled bench-query", func(d string) bool { return d == "testing" })
	for _, want := range []string{"jobtype", "store", "queue", "worker", "cmd/puzzlectl"} {
		if _, ok := pkgs[want]; !ok {
			t.Errorf("go list has no package %s: the rules above check nothing for it", want)
		}
	}
}

// tableRow matches a row of the packages table of docs/architecture.md:
// | `package` | what lives there | `import`, `import` (or —) |
var tableRow = regexp.MustCompile("^\\| `([^`]+)` \\|.*\\| ([^|]*) \\|$")

// TestArchitectureTableIsTrue: docs/architecture.md lists every package of
// the module once, with exactly the packages of ours it imports. A row
// `solver/<kind>` stands for each kind's package, and `solver/<kind>` in
// an imports column for all of them.
func TestArchitectureTableIsTrue(t *testing.T) {
	t.Parallel()
	pkgs := listModule(t)
	kinds := pkgs["solver/kinds"].imports
	kinds = slices.DeleteFunc(slices.Clone(kinds), func(p string) bool { return p == "solver" })
	expand := func(name string) []string {
		if name == "solver/<kind>" {
			return kinds
		}
		return []string{name}
	}
	f, err := os.Open("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := tableRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		var written []string
		for _, imp := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(m[2], -1) {
			written = append(written, expand(imp[1])...)
		}
		slices.Sort(written)
		for _, name := range expand(m[1]) {
			p, ok := pkgs[name]
			switch {
			case !ok:
				t.Errorf("docs/architecture.md lists %s, which go list does not know", name)
				continue
			case seen[name]:
				t.Errorf("docs/architecture.md lists %s twice", name)
			}
			seen[name] = true
			got := slices.Sorted(slices.Values(p.imports))
			if !slices.Equal(got, written) {
				t.Errorf("docs/architecture.md: %s imports %v, the code %v", name, written, got)
			}
		}
	}
	for name := range pkgs {
		if !seen[name] {
			t.Errorf("docs/architecture.md does not list %s", name)
		}
	}
}

// TestWorkerFunctionsAreShort: no function of package worker is over 50
// lines, so that each reads in one screen (Worker.run was 91 lines with
// six flags before the solve strategies).
func TestWorkerFunctionsAreShort(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../worker/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("worker sources: %v", err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > 50 {
				t.Errorf("%s: %s is %d lines, over 50", filepath.Base(file), fn.Name.Name, n)
			}
		}
	}
}
