package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/puzzled/puzzled/api/wire"
)

func TestReportPrintsScoreHistogramAndHardest(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	e := newEnv(strings.NewReader(""), &out, &bytes.Buffer{})
	score := 9
	rep := wire.Report{BatchID: 7}
	rep.Difficulty = wire.Difficulty{Rated: 3, Histogram: [10]int{2, 0, 0, 0, 0, 0, 0, 0, 1, 0},
		Hardest: []wire.ReportLevel{{JobID: 5, Kind: "sheep", LevelHash: "abcdef0123456789", Score: &score}}}
	if err := writeReport(e, rep); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"DIFFICULTY (3 rated levels", "HARDEST (difficulty score)", "abcdef012345", "#"} {
		if !strings.Contains(got, want) {
			t.Fatalf("report lacks %q:\n%s", want, got)
		}
	}
	// Score 1 has twice the levels of score 9: its bar is twice as long.
	lines := strings.Split(got, "\n")
	bar := func(prefix string) int {
		for _, l := range lines {
			if f := strings.Fields(l); len(f) == 3 && f[0] == prefix {
				return len(f[2])
			}
		}
		return -1
	}
	if bar("1") != 2*bar("9") || bar("9") <= 0 {
		t.Fatalf("bars: score 1 %d, score 9 %d:\n%s", bar("1"), bar("9"), got)
	}
}
