package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sort"
	"strconv"
	"strings"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/internal/solveproc"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/generate"
	"github.com/puzzled/puzzled/solver/repair"
	"github.com/puzzled/puzzled/store"
)

// HandleGenerate runs a generation's task (docs/generate.md): it works
// through the candidates from the first not stored, solving each like a
// bulk job (in a solve process when the worker has them, rated, its plan
// replayed), and stores each outcome before the next, until the
// generation has what it asked for, runs out of candidates, or is
// canceled. A task that ends early (a shutdown, asynq's timeout) returns
// an error and is retried; it resumes where the store says.
func (w *Worker) HandleGenerate(ctx context.Context, t *asynq.Task) error {
	id, err := queue.GenerationOf(t)
	if err != nil {
		return err
	}
	log := w.cfg.Logger.With(slog.Int64("generation_id", id))
	g, err := w.cfg.Store.GetGeneration(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		log.Warn("generation task for no generation")
		return nil
	case err != nil:
		return err
	case g.State != store.GenerationRunning:
		return nil
	}
	src, err := w.newSource(g)
	if err != nil {
		return w.endGeneration(ctx, log, g, store.GenerationFailed, err.Error())
	}
	defer src.close()
	for {
		if g.BatchCanceled {
			return w.endGeneration(ctx, log, g, store.GenerationCanceled, "the batch was canceled")
		}
		c, more, err := src.next(g)
		if err != nil {
			return w.endGeneration(ctx, log, g, store.GenerationFailed, err.Error())
		}
		if !more {
			state, note := src.end(g)
			return w.endGeneration(ctx, log, g, state, note)
		}
		next, err := w.recordCandidate(ctx, log, g, src, c)
		if err != nil || next.ID == 0 {
			return err
		}
		if g = next; g.State != store.GenerationRunning {
			return nil
		}
	}
}

// recordCandidate solves a generation's next candidate, records it, and
// returns the generation as it is now; a zero generation when it ended
// (and the task with it).
func (w *Worker) recordCandidate(ctx context.Context, log *slog.Logger, g store.Generation, src source, c candidate) (store.Generation, error) {
	res, err := w.solveCandidate(ctx, log, g, c.level)
	if errors.Is(err, solveproc.ErrFinal) {
		return store.Generation{}, w.endGeneration(ctx, log, g, store.GenerationFailed, fmt.Sprintf("candidate %d: %v", g.Tried, err))
	}
	if err != nil {
		return store.Generation{}, fmt.Errorf("generation %d, candidate %d: %w", g.ID, g.Tried, err)
	}
	body := c.level.Canonical()
	sum := sha256.Sum256(body)
	if _, err := w.cfg.Store.RecordCandidate(ctx, store.Candidate{
		GenerationID: g.ID, Index: g.Tried, Reject: src.judge(res),
		Level:  store.Level{Hash: hex.EncodeToString(sum[:]), Kind: g.Kind, Body: body},
		Result: res, SolverVersion: src.version(), Labels: c.labels,
	}); err != nil {
		return store.Generation{}, err
	}
	return w.cfg.Store.GetGeneration(ctx, g.ID)
}

// endGeneration ends g and logs why.
func (w *Worker) endGeneration(ctx context.Context, log *slog.Logger, g store.Generation, state, note string) error {
	log.Info("generation ended", slog.String("state", state), slog.String("note", note),
		slog.Int("tried", g.Tried), slog.Int("kept", g.Kept))
	_, err := w.cfg.Store.EndGeneration(ctx, g.ID, state, note)
	return err
}

// solveCandidate solves a candidate as a bulk job: in a solve process
// when the worker has them, verified, rated when the generation asks for
// figures.
func (w *Worker) solveCandidate(ctx context.Context, log *slog.Logger, g store.Generation, lvl solver.Level) (solver.Result, error) {
	req := solveproc.Request{Kind: g.Kind, Level: lvl.Canonical(), Budget: g.Request.Budget,
		Playouts: g.Request.Playouts, PlayoutWorkers: w.playoutWorkers()}
	w.solving.Add(1)
	defer w.solving.Add(-1)
	if w.cfg.Processes != nil {
		res, err := w.cfg.Processes.Solve(ctx, req, nil)
		if !errors.Is(err, solveproc.ErrNoChild) {
			return res, err
		}
		log.Warn("no solve process: the candidate is solved in the worker process", slog.Any("error", err))
	}
	return solveproc.Run(ctx, w.cfg.Registry, req, nil, log)
}

// candidate is a generation's next level and the labels of its job.
type candidate struct {
	level  solver.Level
	labels json.RawMessage
}

// source is where a generation's candidates come from: dealt anew
// (generate) or edits of a level (repair).
type source interface {
	// next is candidate g.Tried, or more false when g is over: enough
	// kept, no candidate left.
	next(g store.Generation) (c candidate, more bool, err error)
	// judge says why a candidate with result res is not kept ("": kept).
	judge(res solver.Result) string
	// end is the state and note of a generation that next ended.
	end(g store.Generation) (state, note string)
	version() string
	close()
}

func (w *Worker) newSource(g store.Generation) (source, error) {
	kind, ok := w.cfg.Registry.Kind(g.Kind)
	if !ok {
		return nil, fmt.Errorf("kind %q is not registered in this worker", g.Kind)
	}
	tpl, err := kind.Parse(g.Body)
	if err != nil {
		return nil, fmt.Errorf("stored template does not parse: %w", err)
	}
	switch g.Mode {
	case store.ModeGenerate:
		r := generate.Request{Template: tpl, Count: g.Request.Count, MinScore: g.Request.MinScore,
			MaxScore: g.Request.MaxScore, Seed: g.Request.Seed, MaxCandidates: g.Request.MaxCandidates}
		if err := r.Check(kind); err != nil {
			return nil, err
		}
		return &dealt{kind: kind, r: r}, nil
	case store.ModeRepair:
		r, err := repair.Request{Level: tpl, MaxEdits: g.Request.MaxEdits, Count: g.Request.Count,
			MaxCandidates: g.Request.MaxCandidates}.Normalize(kind)
		if err != nil {
			return nil, err
		}
		next, stop := iter.Pull2(repair.Candidates(kind, r, g.Tried))
		return &edits{kind: kind, r: r, pull: next, stop: stop}, nil
	}
	return nil, fmt.Errorf("unknown generation mode %q", g.Mode)
}

// dealt are the candidates of a generate generation.
type dealt struct {
	kind solver.Kind
	r    generate.Request
}

func (d *dealt) next(g store.Generation) (candidate, bool, error) {
	if g.Kept >= d.r.Count || g.Tried >= d.r.MaxTried() {
		return candidate{}, false, nil
	}
	lvl, err := generate.Deal(d.kind, d.r, g.Tried)
	if err != nil {
		return candidate{}, false, err
	}
	return candidate{level: lvl, labels: labelsOf("candidate", strconv.Itoa(g.Tried))}, true, nil
}

func (d *dealt) judge(res solver.Result) string {
	var f *difficulty.Figures
	if len(res.Difficulty) > 0 {
		f = new(difficulty.Figures)
		if json.Unmarshal(res.Difficulty, f) != nil {
			f = nil
		}
	}
	return generate.Judge(d.r, res, f)
}

func (d *dealt) end(g store.Generation) (string, string) {
	if g.Kept >= d.r.Count {
		return store.GenerationDone, fmt.Sprintf("kept %d of %d candidates%s", g.Kept, g.Tried, rejections(g.Rejected))
	}
	return store.GenerationExhausted, fmt.Sprintf("kept %d of the %d asked for within %d candidates%s",
		g.Kept, d.r.Count, g.Tried, rejections(g.Rejected))
}

func (d *dealt) version() string { return d.kind.Version() }
func (d *dealt) close()          {}

// edits are the candidates of a repair generation, pulled from
// repair.Candidates from the first not stored.
type edits struct {
	kind     solver.Kind
	r        repair.Request
	pull     func() (repair.Candidate, error, bool)
	stop     func()
	complete bool // the last next stopped at the end of a size, or of the edits
}

func (e *edits) next(g store.Generation) (candidate, bool, error) {
	c, err, ok := e.pull()
	if !ok {
		e.complete = true
		return candidate{}, false, nil
	}
	if err != nil {
		return candidate{}, false, fmt.Errorf("edit %d (%s): %w", c.Index, c.Desc, err)
	}
	if c.Index != g.Tried {
		return candidate{}, false, fmt.Errorf("edit %d where %d was expected", c.Index, g.Tried)
	}
	if repair.Stop(e.r, c, g.Kept) {
		e.complete = g.Kept > 0 && c.First
		return candidate{}, false, nil
	}
	return candidate{level: c.Level, labels: labelsOf("edit", c.Desc, "edit_size", strconv.Itoa(c.Size))}, true, nil
}

func (e *edits) judge(res solver.Result) string { return repair.Judge(res) }

func (e *edits) end(g store.Generation) (string, string) {
	switch {
	case g.Kept > 0:
		return store.GenerationDone, fmt.Sprintf("%d fixes within %d edits tried%s", g.Kept, g.Tried, rejections(g.Rejected))
	case e.complete && g.Rejected[repair.RejectUnknown] == 0:
		return store.GenerationExhausted, fmt.Sprintf("none within %d edits: all %d edits of size %d or less leave the level unsolvable",
			e.r.MaxEdits, g.Tried, e.r.MaxEdits)
	case e.complete:
		return store.GenerationExhausted, fmt.Sprintf("none found within %d edits; %d of the %d edits tried ran out of budget",
			e.r.MaxEdits, g.Rejected[repair.RejectUnknown], g.Tried)
	}
	return store.GenerationExhausted, fmt.Sprintf("none found within the first %d edits (max_candidates)%s", g.Tried, rejections(g.Rejected))
}

func (e *edits) version() string { return e.kind.Version() }
func (e *edits) close()          { e.stop() }

// labelsOf is a JSON object of the key, value pairs.
func labelsOf(kv ...string) json.RawMessage {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	out, _ := json.Marshal(m)
	return out
}

// rejections formats rejection counts: "; rejected: above_band 3, …".
func rejections(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return "; rejected: " + strings.Join(parts, ", ")
}
