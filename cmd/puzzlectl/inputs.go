package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// level is one level read from the inputs.
type level struct {
	file string // the file it came from; "-" for stdin
	line int    // 1-based line of an NDJSON file; 0 for a whole-file level
	data []byte // the level's JSON; nil when err is set
	err  error  // why the text is not a level (invalid JSON)
}

// where names the level for messages: "file" or "file:line".
func (l level) where() string {
	if l.line > 0 {
		return fmt.Sprintf("%s:%d", l.file, l.line)
	}
	return l.file
}

// errNoLevels is returned when the inputs hold no level at all.
var errNoLevels = errors.New("no levels found")

// collectLevels reads the levels of every path in order. A path is "-"
// (stdin: one JSON level or NDJSON), a file (NDJSON when named .ndjson or
// .jsonl, else one JSON level), a folder (its .json, .ndjson and .jsonl
// files, recursively, in lexical order) or a glob pattern. Unreadable paths
// and patterns without a match are errors; text that is not JSON becomes a
// level with err set, so that the caller can report it with its line.
func collectLevels(paths []string, stdin io.Reader) ([]level, error) {
	var out []level
	stdinUsed := false
	for _, p := range paths {
		if p == "-" {
			if stdinUsed {
				return nil, errors.New(`"-" (stdin) given twice`)
			}
			stdinUsed = true
			data, err := io.ReadAll(stdin)
			if err != nil {
				return nil, fmt.Errorf("reading stdin: %w", err)
			}
			out = append(out, splitStdin(data)...)
			continue
		}
		files, err := expandPath(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			lv, err := readLevelFile(f)
			if err != nil {
				return nil, err
			}
			out = append(out, lv...)
		}
	}
	if len(out) == 0 {
		return nil, errNoLevels
	}
	return out, nil
}

// expandPath turns a path argument into the files it names.
func expandPath(p string) ([]string, error) {
	info, err := os.Stat(p)
	switch {
	case err == nil && info.IsDir():
		return levelFilesIn(p)
	case err == nil:
		return []string{p}, nil
	case !errors.Is(err, fs.ErrNotExist) || !strings.ContainsAny(p, `*?[`):
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	matches, err := filepath.Glob(p)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", p, err)
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("no file matches %q", p)
	}
	sort.Strings(matches)
	var files []string
	for _, m := range matches {
		more, err := expandPath(m)
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	return files, nil
}

// levelFilesIn lists the level files below dir in lexical order.
func levelFilesIn(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (isNDJSON(path) || strings.EqualFold(filepath.Ext(path), ".json")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading folder %s: %w", dir, err)
	}
	return files, nil
}

func isNDJSON(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".ndjson" || ext == ".jsonl"
}

// readLevelFile reads the levels of one file.
func readLevelFile(path string) ([]level, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading level file: %w", err)
	}
	defer f.Close()
	if isNDJSON(path) {
		lv, err := splitNDJSON(path, f)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		return lv, nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return []level{wholeLevel(path, data)}, nil
}

// splitStdin reads stdin as one JSON level when it is one JSON value, and
// as NDJSON otherwise.
func splitStdin(data []byte) []level {
	if json.Valid(data) {
		return []level{wholeLevel("-", data)}
	}
	lv, _ := splitNDJSON("-", bytes.NewReader(data)) // a bytes.Reader does not fail
	return lv
}

// wholeLevel makes a level of a file holding one JSON value.
func wholeLevel(file string, data []byte) level {
	data = bytes.TrimSpace(data)
	if err := checkJSON(data); err != nil {
		return level{file: file, err: err}
	}
	return level{file: file, data: data}
}

// splitNDJSON reads one level per non-blank line.
func splitNDJSON(file string, r io.Reader) ([]level, error) {
	var out []level
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		text, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if t := bytes.TrimSpace(text); len(t) > 0 {
			lv := level{file: file, line: n}
			if lv.err = checkJSON(t); lv.err == nil {
				lv.data = t
			}
			out = append(out, lv)
		}
		if err != nil {
			return out, nil
		}
	}
}

// checkJSON reports invalid JSON, with the line and column of the fault
// for multi-line text.
func checkJSON(data []byte) error {
	if len(data) == 0 {
		return errors.New("empty file")
	}
	var v json.RawMessage
	err := json.Unmarshal(data, &v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) && bytes.IndexByte(data, '\n') >= 0 {
		line, col := position(data, se.Offset)
		return fmt.Errorf("invalid JSON at line %d, column %d: %s", line, col, strings.TrimPrefix(se.Error(), "json: "))
	}
	return fmt.Errorf("invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 1), int64(len(data)))
	before := data[:offset-1]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}
