package main

import (
	"encoding/json"
	"encoding/xml"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/solver/columns"
)

// slowColumnsLevel is a columns level whose search takes thousands of
// nodes (hundreds of ms): longer than a bundle lets a job run, so it is
// solved alone, after the others, and the check waits for it.
func slowColumnsLevel(t *testing.T) []byte {
	t.Helper()
	lvl, err := columns.Generate(rand.New(rand.NewPCG(13, 3)), columns.GenConfig{Width: 6, Height: 12,
		Rule: columns.RuleLines, Colors: 5, Fill: 0.3, Pieces: 20, Goal: columns.GoalScore, Score: 90})
	if err != nil {
		t.Fatal(err)
	}
	return lvl.Canonical()
}

// junitDoc is what the test reads back of a JUnit report.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Suites   []struct {
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error     *struct{} `xml:"error"`
			SystemOut string    `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	validateJUnit(t, path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil || len(doc.Suites) != 1 {
		t.Fatalf("report: %v\n%s", err, data)
	}
	return doc
}

// TestCheckInCI runs `puzzlectl check` as a CI step would, against
// `puzzled serve` + `puzzled work`: a folder with a solvable level, a slow
// one, an unsolvable one and an NDJSON file gives exit 1 and a JUnit
// report (valid by the schema) with exactly one failing case, the
// unsolvable file; the same folder again is answered from the cache; an
// expectation in a sidecar or inside a wrapped level turns the failure
// into a pass.
func TestCheckInCI(t *testing.T) {
	t.Parallel()
	url, _ := startStack(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a-easy.json":       `{"kind":"zuma","board":"WWRRBBWW","hand":"WRBRW"}`,
		"b-slow.json":       string(slowColumnsLevel(t)),
		"c-unsolvable.json": `{"kind":"zuma","board":"RRBB","hand":"R"}`,
		"d-lines.ndjson":    `{"kind":"twoends","values":[3,1,2]}` + "\n\n" + `{"kind":"twoends","values":[5,-3,8,8,-1]}` + "\n",
	})
	report := filepath.Join(t.TempDir(), "junit.xml")

	code, stdout, stderr := runCLI(t, "", "--server", url, "check", "--junit", report, dir)
	if code != checkFailed {
		t.Fatalf("exit %d, want 1\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	unsolvablePath := filepath.Join(dir, "c-unsolvable.json")
	if !strings.Contains(stdout, "FAIL  "+unsolvablePath+" (zuma): expected solvable, got unsolvable") ||
		!strings.Contains(stdout, "proof: exhaustive") || !strings.Contains(stdout, "5 levels: 4 passed, 1 failed, 0 errors") ||
		strings.Count(stdout, "FAIL") != 1 {
		t.Fatalf("summary:\n%s", stdout)
	}
	doc := readJUnit(t, report)
	cases := doc.Suites[0].Cases
	if doc.Tests != 5 || doc.Failures != 1 || doc.Errors != 0 || len(cases) != 5 {
		t.Fatalf("report counts %+v", doc)
	}
	names := map[string]bool{}
	failing := 0
	for _, c := range cases {
		names[c.Name] = true
		if c.Error != nil {
			t.Fatalf("case %s has an error", c.Name)
		}
		if c.Failure == nil {
			continue
		}
		failing++
		if c.Name != unsolvablePath || c.Classname != "zuma" || c.Failure.Type != "unsolvable" ||
			c.Failure.Message != "expected solvable, got unsolvable" || !strings.Contains(c.Failure.Text, "proof: exhaustive") ||
			!strings.Contains(c.Failure.Text, url+"/ui/jobs/") {
			t.Fatalf("failing case %+v %+v", c, c.Failure)
		}
	}
	lines := filepath.Join(dir, "d-lines.ndjson")
	if failing != 1 || !names[lines+":1"] || !names[lines+":3"] || !names[filepath.Join(dir, "b-slow.json")] {
		t.Fatalf("%d failing cases; names %v", failing, names)
	}

	t.Run("a re-run is answered from the cache", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "", "--server", url, "check", "--format", "json", dir)
		var rep checkReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != checkFailed {
			t.Fatalf("exit %d, %v\n%s\n%s", code, err, stdout, stderr)
		}
		if rep.Total != 5 || rep.Failed != 1 || rep.Cached != 5 {
			t.Fatalf("report %+v", rep)
		}
		// No new solve: every job of the batch was done from a stored result
		// when the batch was stored.
		b, err := client.New(url).GetBatch(t.Context(), rep.BatchID)
		if err != nil || b.Cached != 5 || b.States["done"] != 5 {
			t.Fatalf("batch %+v, %v", b, err)
		}
		for _, c := range rep.Levels {
			if !c.Cached || c.ElapsedMS != 0 || c.JobID == 0 || c.URL == "" {
				t.Fatalf("level %+v", c)
			}
		}
	})

	t.Run("expectations in a sidecar and a wrapped level", func(t *testing.T) {
		writeFiles(t, dir, map[string]string{
			"c-unsolvable.json.expect": "unsolvable\n",
			"e-wrapped.ndjson": `{"level":{"kind":"zuma","board":"RRGGBB","hand":"B"},"expect":"unsolvable"}` + "\n" +
				`{"level":{"kind":"twoends","values":[1,2]},"expect":{"plan":"2"}}` + "\n",
		})
		code, stdout, stderr := runCLI(t, "", "--server", url, "check", "-v", dir)
		if code != checkPassed || !strings.Contains(stdout, "7 levels: 7 passed, 0 failed") ||
			!strings.Contains(stdout, "PASS  "+unsolvablePath+" (zuma): unsolvable (cached)") {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
	})

	t.Run("a plan-length bound", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "", "--server", url, "check", "--plan", "-1", filepath.Join(dir, "a-easy.json"))
		if code != checkFailed || !strings.Contains(stdout, "expected a plan of -1 moves, got 2") ||
			!strings.Contains(stdout, `solution: [{"at":2,"ball":"B"},{"at":3,"ball":"R"}]`) {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
	})

	t.Run("an invalid level fails, named by its line", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.ndjson")
		writeFiles(t, filepath.Dir(bad), map[string]string{"bad.ndjson": `{"kind":"twoends","values":[1]}` + "\n" + `{"kind":"zuma","board":"RRR"}` + "\n"})
		report := filepath.Join(t.TempDir(), "junit.xml")
		code, stdout, _ := runCLI(t, "", "--server", url, "check", "--junit", report, bad)
		if code != checkFailed || !strings.Contains(stdout, "FAIL  "+bad+":2: invalid level: board") {
			t.Fatalf("exit %d\n%s", code, stdout)
		}
		doc := readJUnit(t, report)
		if doc.Tests != 2 || doc.Failures != 1 || doc.Suites[0].Cases[1].Failure.Type != "invalid" {
			t.Fatalf("report %+v", doc)
		}
	})

	t.Run("usage and server errors exit 2", func(t *testing.T) {
		for _, args := range [][]string{
			{"--server", url, "check"},
			{"--server", url, "check", "--expect", "maybe", dir},
			{"--server", url, "check", "--score", "9-2", dir},
			{"--server", url, "check", "--nope", dir},
			{"--server", url, "check", filepath.Join(dir, "missing.json")},
			{"--server", "http://127.0.0.1:1", "check", dir},
		} {
			if code, _, stderr := runCLI(t, "", args...); code != checkError {
				t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
			}
		}
		badSidecar := t.TempDir()
		writeFiles(t, badSidecar, map[string]string{"x.json": `{"kind":"twoends","values":[1]}`, "x.json.expect": `{"verdict":"sometimes"}`})
		if code, _, stderr := runCLI(t, "", "--server", url, "check", badSidecar); code != checkError ||
			!strings.Contains(stderr, "x.json.expect: bad expectation") {
			t.Errorf("bad sidecar: exit %d: %s", code, stderr)
		}
	})
}
