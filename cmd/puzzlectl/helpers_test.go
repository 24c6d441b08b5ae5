package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dpValue is an independent O(n²) solution of twoends: first minus second
// under optimal play.
func dpValue(v []int64) int64 {
	d := make([]int64, len(v))
	for j := range v {
		d[j] = v[j]
		for i := j - 1; i >= 0; i-- {
			d[i] = max(v[i]-d[i+1], v[j]-d[i])
		}
	}
	return d[0]
}

// replayLine plays a twoends line and returns first minus second.
func replayLine(v []int64, line string) (int64, error) {
	if len(line) != len(v) {
		return 0, fmt.Errorf("line has %d moves for %d values", len(line), len(v))
	}
	l, r, diff, sign := 0, len(v)-1, int64(0), int64(1)
	for _, m := range line {
		switch m {
		case 'L':
			diff += sign * v[l]
			l++
		case 'R':
			diff += sign * v[r]
			r--
		default:
			return 0, fmt.Errorf("bad move %q", m)
		}
		sign = -sign
	}
	return diff, nil
}

// randomValues returns n twoends level value lists of 1 to maxLen values.
func randomValues(seed uint64, n, maxLen int) [][]int64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	out := make([][]int64, n)
	for i := range out {
		v := make([]int64, 1+rng.IntN(maxLen))
		for j := range v {
			v[j] = rng.Int64N(2001) - 1000
		}
		out[i] = v
	}
	return out
}

func twoendsJSON(v []int64) string {
	data, _ := json.Marshal(map[string]any{"kind": "twoends", "values": v})
	return string(data)
}

// writeLevelFolder writes each level as dir/level%05d.json (lexical order is
// input order) and returns dir.
func writeLevelFolder(t *testing.T, values [][]int64) string {
	t.Helper()
	dir := t.TempDir()
	for i, v := range values {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("level%05d.json", i)), []byte(twoendsJSON(v)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runCLI runs puzzlectl in-process and returns its exit status and output.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	code = run(t.Context(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// decodeLines decodes NDJSON into a slice of T.
func decodeLines[T any](t *testing.T, r io.Reader) []T {
	t.Helper()
	var out []T
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("bad output line %q: %v", sc.Text(), err)
		}
		out = append(out, v)
	}
	return out
}
