package api

import (
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/store"
)

// The store returns its own rows; these functions turn them into what the
// API sends (package wire), field by field, so that storage and the wire
// format can change apart (docs/architecture.md, "Rows and wire types").

func toWireJob(j store.Job) wire.Job {
	out := wire.Job{
		ID: j.ID, BatchID: j.BatchID, Seq: j.Seq, LevelHash: j.LevelHash, Kind: j.Kind, State: j.State,
		Priority: j.Priority, Budget: j.Budget, Labels: j.Labels, Attempts: j.Attempts, MaxAttempts: j.MaxAttempts,
		Cached: j.Cached, Error: j.Error, CreatedAt: j.CreatedAt, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt,
		Result: toWireResult(j.Result),
	}
	if j.Playouts != nil {
		out.Difficulty = &jobtype.Difficulty{Playouts: *j.Playouts}
	}
	if p := j.Progress; p != nil {
		out.Progress = &wire.Progress{Nodes: p.Nodes, Checkpoints: p.Checkpoints, LastCheckpoint: p.LastCheckpoint, Best: p.Best}
	}
	return out
}

func toWireResult(r *store.Result) *wire.Result {
	if r == nil {
		return nil
	}
	return &wire.Result{Result: r.Result, SolverVersion: r.SolverVersion, CreatedAt: r.CreatedAt}
}

func toWireLevel(l store.LevelResult) wire.Level {
	return wire.Level{Hash: l.Hash, Kind: l.Kind, Body: l.Body, Result: toWireResult(l.Result)}
}

func toWireBatch(b store.Batch) wire.Batch {
	return wire.Batch{
		ID: b.ID, Total: b.Total, Priority: b.Priority, Labels: b.Labels, CreatedAt: b.CreatedAt,
		CanceledAt: b.CanceledAt, States: b.States, Verdicts: b.Verdicts, Cached: b.Cached, Done: b.Done,
		FinishedAt: b.FinishedAt, Kinds: b.Kinds,
	}
}

func toWireBatchResult(r store.BatchResult) wire.BatchResult {
	return wire.BatchResult{
		Seq: r.Seq, JobID: r.JobID, LevelHash: r.LevelHash, Kind: r.Kind, State: r.State, Cached: r.Cached,
		Error: r.Error, Result: toWireResult(r.Result),
	}
}

func toWireJobListItem(j store.JobListItem) wire.JobListItem {
	return wire.JobListItem{
		ID: j.ID, BatchID: j.BatchID, Seq: j.Seq, LevelHash: j.LevelHash, Kind: j.Kind, State: j.State,
		Priority: j.Priority, Labels: j.Labels, Cached: j.Cached, Verdict: j.Verdict, Value: j.Value,
		Optimal: j.Optimal, Error: j.Error, CreatedAt: j.CreatedAt, FinishedAt: j.FinishedAt,
	}
}

func toWireBatchListItem(b store.BatchListItem) wire.BatchListItem {
	return wire.BatchListItem{ID: b.ID, Total: b.Total, Priority: b.Priority, Labels: b.Labels, CreatedAt: b.CreatedAt,
		CanceledAt: b.CanceledAt}
}

func toWireLevelListItem(l store.LevelListItem) wire.LevelListItem {
	return wire.LevelListItem{
		Hash: l.Hash, Kind: l.Kind, CreatedAt: l.CreatedAt, Verdict: l.Verdict, Value: l.Value, Optimal: l.Optimal,
		SolverVersion: l.SolverVersion, JobID: l.JobID, SolvedAt: l.SolvedAt,
	}
}

func toWireReport(r store.Report) wire.Report {
	return wire.Report{
		BatchID: r.BatchID, Figures: toWireFigures(r.Figures),
		Unsolvable: toWireReportLevels(r.Unsolvable), Unknown: toWireReportLevels(r.Unknown),
		Failed: toWireReportLevels(r.Failed), Slowest: toWireReportLevels(r.Slowest),
		Difficulty: wire.Difficulty{Rated: r.Difficulty.Rated, Histogram: r.Difficulty.Histogram,
			Hardest: toWireReportLevels(r.Difficulty.Hardest)},
		ListLimit: r.ListLimit, Truncated: r.Truncated,
	}
}

func toWireStats(s store.Stats) wire.Stats {
	return wire.Stats{Since: s.Since, Until: s.Until, Figures: toWireFigures(s.Figures)}
}

func toWireFigures(f store.Figures) wire.Figures {
	out := wire.Figures{
		Jobs: f.Jobs, States: f.States, Verdicts: f.Verdicts, Cached: f.Cached,
		SolveMS: toWirePercentiles(f.SolveMS), Nodes: toWirePercentiles(f.Nodes),
	}
	if f.Kinds != nil {
		out.Kinds = make(map[string]*wire.KindFigures, len(f.Kinds))
		for name, k := range f.Kinds {
			out.Kinds[name] = &wire.KindFigures{
				Jobs: k.Jobs, States: k.States, Verdicts: k.Verdicts, Cached: k.Cached,
				SolveMS: toWirePercentiles(k.SolveMS), Nodes: toWirePercentiles(k.Nodes),
			}
		}
	}
	return out
}

func toWirePercentiles(p store.Percentiles) wire.Percentiles {
	return wire.Percentiles{P50: p.P50, P95: p.P95, P99: p.P99}
}

// toWireReportLevels keeps a nil list nil and an empty one empty: the
// report shows [] for an empty list.
func toWireReportLevels(ls []store.ReportLevel) []wire.ReportLevel {
	if ls == nil {
		return nil
	}
	out := make([]wire.ReportLevel, len(ls))
	for i, l := range ls {
		out[i] = wire.ReportLevel{
			Seq: l.Seq, JobID: l.JobID, LevelHash: l.LevelHash, Kind: l.Kind, Proof: l.Proof, Value: l.Value,
			Details: l.Details, Plan: l.Plan, Error: l.Error, ElapsedMS: l.ElapsedMS, Nodes: l.Nodes, Score: l.Score,
		}
	}
	return out
}
