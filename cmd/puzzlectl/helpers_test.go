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

	"github.com/puzzled/puzzled/internal/e2etest"
	"github.com/puzzled/puzzled/internal/envtest"
)

func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }

// startStack runs `puzzled serve` and `puzzled work` on databases of the
// test's own and returns the API's URL and the database URL.
func startStack(t *testing.T) (url, databaseURL string) {
	t.Helper()
	s := e2etest.StartStack(t, "PUZZLED_CONCURRENCY=2")
	return s.URL, s.DatabaseURL
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
