package sheep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// realStyleLayouts are the layouts of BenchmarkDeals, shaped like the
// game's: 24 layers stacked into towers (Mounds), two blind piles of 8–12
// tiles each, 14 and 15 types. L255 is one tight tower, far harder than
// the game's layouts (sheep/2 leaves every deal unknown); L264, two
// towers, is easier (all solved in milliseconds). L255w is one broad
// mound (Spread 24): sheep/2 leaves about half its deals unknown at 10 s,
// as it does on real deals of the game's layouts.
func realStyleLayouts(tb testing.TB) map[string]*Level {
	tb.Helper()
	out := map[string]*Level{}
	for name, o := range map[string]GenerateOpts{
		"L255":  {Tiles: 255, Layers: 24, Types: 14, Mounds: 1},
		"L264":  {Tiles: 264, Layers: 24, Types: 15, Mounds: 2},
		"L255w": {Tiles: 255, Layers: 24, Types: 14, Mounds: 1, Spread: 24},
	} {
		g, err := Generate(rand.New(rand.NewPCG(1, 0x1a70)), o)
		if err != nil {
			tb.Fatal(err)
		}
		out[name] = g.Level
	}
	return out
}

// benchDeals is SHEEP_DEALS deals per layout, 20 unless set (the issue's
// full size is 1,000).
func benchDeals() int {
	if v, err := strconv.Atoi(os.Getenv("SHEEP_DEALS")); err == nil && v > 0 {
		return v
	}
	return 20
}

// BenchmarkDeals solves SHEEP_DEALS deals of each real-style layout with
// SHEEP_BENCH_MS per deal (default 10 s; SHEEP_BENCH_NODES: a node budget
// instead), with sheep/9, with sheep/8 (sheep8ScheduleFor: no retrograde
// proofs), with sheep/7 (sheep7ScheduleFor: sheep/8 with sheep/7's beams)
// and with sheep/2 (sheep2Schedule: its schedule and pruning on today's
// table and node) on the same deals, in the same run;
// -bench 'BenchmarkDeals/layout=L/solver=sheepN$' picks one. Besides the
// verdict counts it reports proven-unsolvable deals by proof kind.
// SHEEP_LAYOUTS picks layouts (default L255,L255w,L264),
// SHEEP_DEAL_FROM the first deal (default 0: deals 0..SHEEP_DEALS-1);
// SHEEP_DEAL_LIST names deals instead (63,188,211);
// SHEEP_BENCH_LOG=1 logs every deal's verdict, proof, nodes and time. Run
// with -benchtime=1x.
func BenchmarkDeals(b *testing.B) {
	layouts := realStyleLayouts(b)
	n := benchDeals()
	budget := benchDealBudget()
	perDeal := os.Getenv("SHEEP_BENCH_LOG") != ""
	for _, name := range benchLayoutNames() {
		var deals []*Level
		numbers := benchDealNumbers(n)
		for _, k := range numbers {
			d, err := Deal(rand.New(rand.NewPCG(1, uint64(k))), layouts[name], 0)
			if err != nil {
				b.Fatal(err)
			}
			deals = append(deals, d)
		}
		for _, sv := range []struct {
			name  string
			sched func(*Level) schedule
		}{{"sheep9", scheduleFor}, {"sheep8", sheep8ScheduleFor}, {"sheep7", sheep7ScheduleFor}, {"sheep2", sheep2ScheduleFor}} {
			b.Run("layout="+name+"/solver="+sv.name, func(b *testing.B) {
				for range b.N {
					var t benchTally
					proofs := map[string]int{}
					for k, d := range deals {
						start := time.Now()
						res, err := solveWith(context.Background(), d, solver.Options{Budget: budget}, sv.sched(d))
						if err != nil {
							b.Fatal(err)
						}
						if err := Verify(d, res); err != nil {
							b.Fatal(err)
						}
						took := time.Since(start)
						t.add(res.Verdict, false, took, res.Stats.Nodes)
						if perDeal {
							// stderr, not b.Logf: a benchmark's log is cut after 10 lines
							fmt.Fprintf(os.Stderr, "%s deal %d: %s %s %d nodes %.1f ms\n", name, numbers[k], res.Verdict, res.Proof, res.Stats.Nodes, float64(took.Microseconds())/1000)
						}
						if res.Verdict == solver.Unsolvable {
							kind, _, _ := strings.Cut(res.Proof, ":types=")
							kind, _, _ = strings.Cut(kind, ":left=")
							proofs[kind]++
						}
					}
					t.report(b)
					for kind, c := range proofs {
						b.ReportMetric(float64(c), "proof_"+strings.ReplaceAll(kind, ":", "_"))
					}
				}
			})
		}
	}
}

// benchDealNumbers is SHEEP_DEAL_LIST (comma-separated deal numbers) when
// set, else n deals from SHEEP_DEAL_FROM (default 0).
func benchDealNumbers(n int) []int {
	var out []int
	if v := os.Getenv("SHEEP_DEAL_LIST"); v != "" {
		for _, f := range strings.Split(v, ",") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			if err == nil {
				out = append(out, k)
			}
		}
		return out
	}
	from, _ := strconv.Atoi(os.Getenv("SHEEP_DEAL_FROM"))
	for k := from; k < from+n; k++ {
		out = append(out, k)
	}
	return out
}

// benchDealBudget is SHEEP_BENCH_NODES nodes per deal when set (node
// counts do not depend on the machine's load, so two solvers run minutes
// apart on a shared machine compare fairly), else SHEEP_BENCH_MS.
func benchDealBudget() solver.Budget {
	if v, err := strconv.ParseInt(os.Getenv("SHEEP_BENCH_NODES"), 10, 64); err == nil && v > 0 {
		return solver.Budget{MaxNodes: v}
	}
	return solver.Budget{MaxMS: benchBudget()}
}

// benchLayoutNames is SHEEP_LAYOUTS (comma-separated) or all layouts.
func benchLayoutNames() []string {
	if v := os.Getenv("SHEEP_LAYOUTS"); v != "" {
		return strings.Split(v, ",")
	}
	return []string{"L255", "L255w", "L264"}
}

// sheep2ScheduleFor is scheduleFor as sheep/2 had it.
func sheep2ScheduleFor(l *Level) schedule {
	if len(l.tiles) <= exhaustFirstTiles {
		return schedule{noPressure: true, noSleep: true}
	}
	return sheep2Schedule
}

// sheep8ScheduleFor is scheduleFor without the retrograde proof, as
// sheep/8 ran.
func sheep8ScheduleFor(l *Level) schedule {
	sc := scheduleFor(l)
	sc.retro, sc.retroFar = retroPlan{}, retroPlan{}
	return sc
}

// sheep7Beams are the beams of sheep/7: no noise, no second beam of 4000,
// no beam with one child per parent.
var sheep7Beams = []beamRun{{width: 50, dig: 100}, {width: 500, dig: 100},
	{width: 2000, dig: 200, near: 80}, {width: 4000, dig: 200, near: 80, perParent: 2},
	{width: 8000, dig: 200, near: 80, perParent: 2}}

// sheep7ScheduleFor is scheduleFor with sheep/7's beams and gate (a
// gated beam never runs): the same passes, so the two differ only in the
// beams.
func sheep7ScheduleFor(l *Level) schedule {
	sc := sheep8ScheduleFor(l)
	if sc.beams != nil {
		sc.beams, sc.lateBeams = sheep7Beams, 0
	}
	return sc
}
