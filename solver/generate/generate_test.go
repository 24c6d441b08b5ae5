package generate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/columns"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/solver/sheep"
)

// templates are one template per dealing kind, small enough for tests.
func templates(t *testing.T) map[string]solver.Level {
	t.Helper()
	reg := kinds.Registry()
	g, err := sheep.Generate(rand.New(rand.NewPCG(33, 7)), sheep.GenerateOpts{Tiles: 90, Layers: 8, Types: 8, Slots: 5, Solvable: true})
	if err != nil {
		t.Fatal(err)
	}
	col, err := columns.Generate(rand.New(rand.NewPCG(33, 8)), columns.GenConfig{Width: 6, Height: 12,
		Rule: columns.RuleLines, Colors: 4, Fill: 0.3, Pieces: 6, Goal: columns.GoalScore, Score: 9})
	if err != nil {
		t.Fatal(err)
	}
	zuma, err := reg.Parse([]byte(`{"kind":"zuma","board":"AABBCCAABB","hand":"AABBCC"}`))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]solver.Level{"sheep": g.Level, "columns": col, "zuma": zuma}
}

// TestRunKeepsOnlySolvableLevelsInTheBand: every level kept is solved,
// its plan replays, its score lies in the band, and the counts add up.
func TestRunKeepsOnlySolvableLevelsInTheBand(t *testing.T) {
	t.Parallel()
	reg := kinds.Registry()
	// Bands that some candidates of each template miss: the sheep deals
	// of 90 tiles and 5 slots score 1 to 6, the zuma boards are often unsolvable.
	bands := map[string][2]int{"sheep": {2, 4}, "zuma": {1, 3}, "columns": {1, 2}}
	for name, tpl := range templates(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			kind, _ := reg.Kind(name)
			r := Request{Template: tpl, Count: 3, MinScore: bands[name][0], MaxScore: bands[name][1], Seed: 5, MaxCandidates: 60,
				Rating: difficulty.Options{Playouts: 200}}
			var seen []Candidate
			rep, err := Run(context.Background(), kind, r, 0, 0, func(c Candidate) error {
				seen = append(seen, c)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			rejected := 0
			for _, n := range rep.Rejected {
				rejected += n
			}
			if rep.Tried != len(rep.Accepted)+rejected || rep.Tried != len(seen) {
				t.Fatalf("tried %d, kept %d + rejected %d %v, seen %d", rep.Tried, len(rep.Accepted), rejected, rep.Rejected, len(seen))
			}
			if len(rep.Accepted) == 0 {
				t.Fatalf("nothing kept of %d candidates: %v", rep.Tried, rep.Rejected)
			}
			for i, c := range seen {
				if c.Index != i {
					t.Fatalf("candidate %d seen at %d", c.Index, i)
				}
			}
			for _, c := range rep.Accepted {
				if c.Result.Verdict != solver.Solved {
					t.Fatalf("candidate %d kept with verdict %s", c.Index, c.Result.Verdict)
				}
				if err := kind.Verify(c.Level, c.Result); err != nil {
					t.Fatalf("candidate %d: plan does not replay: %v", c.Index, err)
				}
				if s := *c.Figures.Score; s < r.MinScore || s > r.MaxScore {
					t.Fatalf("candidate %d: score %d outside [%d, %d]", c.Index, s, r.MinScore, r.MaxScore)
				}
			}
			t.Logf("%s: kept %d of %d, rejected %v", name, len(rep.Accepted), rep.Tried, rep.Rejected)
		})
	}
}

// TestRunResumes: a run stopped after its first level and resumed from
// the next candidate keeps the same levels as one run.
func TestRunResumes(t *testing.T) {
	t.Parallel()
	reg := kinds.Registry()
	kind, _ := reg.Kind("sheep")
	r := Request{Template: templates(t)["sheep"], Count: 3, MinScore: 1, MaxScore: 10, Seed: 9, Rating: difficulty.Options{Playouts: 100}}
	whole, err := Run(context.Background(), kind, r, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	errStop := errors.New("stop")
	first, err := Run(context.Background(), kind, r, 0, 0, func(c Candidate) error {
		if c.Reject == "" {
			return errStop
		}
		return nil
	})
	if !errors.Is(err, errStop) || len(first.Accepted) != 1 {
		t.Fatalf("first part: %v, kept %d", err, len(first.Accepted))
	}
	rest, err := Run(context.Background(), kind, r, first.Tried, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(indexes(append(first.Accepted, rest.Accepted...)))
	if want := fmt.Sprint(indexes(whole.Accepted)); got != want || first.Tried+rest.Tried != whole.Tried {
		t.Fatalf("resumed run kept %s after %d+%d candidates, one run %s after %d", got, first.Tried, rest.Tried, want, whole.Tried)
	}
}

func indexes(cs []Candidate) []int {
	var out []int
	for _, c := range cs {
		out = append(out, c.Index)
	}
	return out
}

func TestCheckRefusesBadRequests(t *testing.T) {
	t.Parallel()
	reg := kinds.Registry()
	sheepKind, _ := reg.Kind("sheep")
	twoends, _ := reg.Kind("twoends")
	zumaKind, _ := reg.Kind("zuma")
	unlimited, err := reg.Parse([]byte(`{"kind":"zuma","board":"AABB"}`))
	if err != nil {
		t.Fatal(err)
	}
	tpl := templates(t)["sheep"]
	for _, tc := range []struct {
		name string
		kind solver.Kind
		r    Request
	}{
		{"no count", sheepKind, Request{Template: tpl, MinScore: 1, MaxScore: 10}},
		{"band upside down", sheepKind, Request{Template: tpl, Count: 1, MinScore: 6, MaxScore: 5}},
		{"band past 10", sheepKind, Request{Template: tpl, Count: 1, MinScore: 1, MaxScore: 11}},
		{"kind without a dealer", twoends, Request{Template: tpl, Count: 1, MinScore: 1, MaxScore: 10}},
		{"zuma unlimited", zumaKind, Request{Template: unlimited, Count: 1, MinScore: 1, MaxScore: 10}},
	} {
		if err := tc.r.Check(tc.kind); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: %v, want ErrBadRequest", tc.name, err)
		}
	}
}
