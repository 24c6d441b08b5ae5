package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/solver/sheep"
)

// writeFiles creates files (path → content) below dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// wheres lists where each level came from, relative to dir.
func wheres(t *testing.T, dir string, levels []level) []string {
	t.Helper()
	out := make([]string, len(levels))
	for i, l := range levels {
		rel, err := filepath.Rel(dir, l.file)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = level{file: filepath.ToSlash(rel), line: l.line}.where()
	}
	return out
}

func TestCollectFolderRecursiveSorted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"b.json":          `{"kind":"twoends","values":[2]}`,
		"a.json":          `{"kind":"twoends","values":[1]}`,
		"sub/c.ndjson":    "{\"kind\":\"twoends\",\"values\":[3]}\n{\"kind\":\"twoends\",\"values\":[4]}\n",
		"sub/deep/d.JSON": `{"kind":"twoends","values":[5]}`,
		"notes.txt":       "not a level",
		"sub/e.yaml":      "kind: twoends",
	})
	levels, err := collectLevels([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(wheres(t, dir, levels), " ")
	want := "a.json b.json sub/c.ndjson:1 sub/c.ndjson:2 sub/deep/d.JSON"
	if got != want {
		t.Fatalf("levels from %s, want %s", got, want)
	}
}

func TestCollectGlobsAndFilesInArgumentOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"x2.json":     `{"kind":"twoends","values":[2]}`,
		"x1.json":     `{"kind":"twoends","values":[1]}`,
		"y.json":      `{"kind":"twoends","values":[3]}`,
		"dir1/z.json": `{"kind":"twoends","values":[4]}`,
	})
	levels, err := collectLevels([]string{
		filepath.Join(dir, "y.json"), filepath.Join(dir, "x*.json"), filepath.Join(dir, "dir?"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(wheres(t, dir, levels), " ")
	if want := "y.json x1.json x2.json dir1/z.json"; got != want {
		t.Fatalf("levels from %s, want %s", got, want)
	}
}

func TestCollectNDJSONBlankLinesAndBadLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"l.ndjson": "\n{\"kind\":\"twoends\",\"values\":[1]}\n   \n\r\n{\"kind\":\"twoends\",\"values\":[2]}\r\n{oops\n" +
			"{\"kind\":\"twoends\",\"values\":[3]}", // no final newline
	})
	levels, err := collectLevels([]string{filepath.Join(dir, "l.ndjson")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(wheres(t, dir, levels), " "), "l.ndjson:2 l.ndjson:5 l.ndjson:6 l.ndjson:7"; got != want {
		t.Fatalf("levels at %s, want %s", got, want)
	}
	if levels[2].err == nil || levels[2].data != nil {
		t.Fatalf("line 6 should be a bad level: %+v", levels[2])
	}
	if !strings.Contains(levels[2].err.Error(), "invalid JSON") {
		t.Fatalf("line 6 error: %v", levels[2].err)
	}
	if string(levels[1].data) != `{"kind":"twoends","values":[2]}` {
		t.Fatalf("line 5 data %q: CR/LF not trimmed", levels[1].data)
	}
}

func TestCollectBadJSONFileNamesLineAndColumn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"bad.json":   "{\n  \"kind\": \"twoends\",\n  \"values\": [1, 2,, 3]\n}\n",
		"empty.json": "  \n",
	})
	levels, err := collectLevels([]string{filepath.Join(dir, "bad.json"), filepath.Join(dir, "empty.json")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if levels[0].err == nil || !strings.Contains(levels[0].err.Error(), "line 3, column 19") {
		t.Fatalf("bad.json error %v, want it at line 3, column 19", levels[0].err)
	}
	if levels[1].err == nil || !strings.Contains(levels[1].err.Error(), "empty") {
		t.Fatalf("empty.json error %v", levels[1].err)
	}
}

func TestCollectPathErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"only.txt": "x"})
	for name, paths := range map[string][]string{
		"missing file":     {filepath.Join(dir, "nope.json")},
		"glob no match":    {filepath.Join(dir, "*.json")},
		"bad pattern":      {filepath.Join(dir, "[")},
		"stdin twice":      {"-", "-"},
		"folder no levels": {dir},
	} {
		if _, err := collectLevels(paths, strings.NewReader("")); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestCollectStdinOneLevelOrNDJSON(t *testing.T) {
	t.Parallel()
	one, err := collectLevels([]string{"-"}, strings.NewReader("{\n \"kind\": \"twoends\",\n \"values\": [1, 2]\n}\n"))
	if err != nil || len(one) != 1 || one[0].err != nil || one[0].line != 0 {
		t.Fatalf("pretty JSON on stdin: %+v, %v", one, err)
	}
	many, err := collectLevels([]string{"-"}, strings.NewReader("{\"kind\":\"twoends\",\"values\":[1]}\n\n{\"kind\":\"twoends\",\"values\":[2]}\n"))
	if err != nil || len(many) != 2 || many[1].line != 3 {
		t.Fatalf("NDJSON on stdin: %+v, %v", many, err)
	}
}

// communityLevel is a small file in the community format (docs/formats.md).
const communityLevel = `{
  "widthNum": 8, "heightNum": 10, "levelKey": 90029, "blockTypeData": {"1": 1},
  "levelData": {
    "1": [
      {"id": "1-0-0", "type": 1, "rolNum": 0, "rowNum": 0, "layerNum": 1, "moldType": 1, "blockNode": null},
      {"id": "1-8-0", "type": 1, "rolNum": 8, "rowNum": 0, "layerNum": 1, "moldType": 1, "blockNode": null},
      {"id": "1-16-0", "type": 1, "rolNum": 16, "rowNum": 0, "layerNum": 1, "moldType": 2, "blockNode": null}
    ]
  }
}`

// TestCollectCommunitySheepIsALevel: community files go as they are, and
// the registry's detector (the server's too) takes them for sheep levels.
func TestCollectCommunitySheepIsALevel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"level_90029.json": communityLevel,
		"named.json":       `{"kind":"sheep","levelData":{"1":[{"id":"a","type":1,"rolNum":0,"rowNum":0,"layerNum":1}]}}`,
		"lines.ndjson":     strings.ReplaceAll(communityLevel, "\n", "") + "\n",
	}
	writeFiles(t, dir, files)
	levels, err := collectLevels([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := kinds.Registry()
	for _, l := range levels {
		lvl, err := parseLevel(reg, l)
		if err != nil || lvl.Kind() != sheep.Name {
			t.Fatalf("%s: %v (in %s)", l.where(), err, l.data)
		}
		if want := strings.TrimSpace(files[filepath.Base(l.file)]); string(l.data) != want {
			t.Fatalf("%s: sent as %s, want the file as it is", l.where(), l.data)
		}
	}
}
