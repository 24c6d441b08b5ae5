package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/kinds"
)

// TestValidateLevel: the parser's refusal names the field; a valid level
// comes back canonical with its hash and the linter's warnings (sheep
// tiles of one layer overlapping, a type count that is not a multiple of
// 3); nothing is stored.
func TestValidateLevel(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	c := client.New(f.url)
	for _, tc := range []struct {
		name, level   string
		valid         bool
		field, inText string
		warnings      int
	}{
		{"unknown color", `{"kind":"zuma","board":"RRgB","hand":"R"}`, false, "board[2]", "not a color", 0},
		{"unknown kind", `{"kind":"tetris"}`, false, "kind", "unknown kind", 0},
		{"bidi in a tile id", `{"kind":"sheep","tiles":[{"id":"a\u202eb","type":1,"x":0,"y":0,"layer":0}]}`, false, "tiles[0].id", "bidirectional", 0},
		{"zuma", `{"kind":"zuma","hand":"BRW","board":"WWRRBBWW"}`, true, "", `"hand":"BRW"`, 0},
		{"sheep overlap and type count", `{"kind":"sheep","tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":1},
			{"id":"b","type":1,"x":4,"y":0,"layer":1},{"id":"c","type":2,"x":40,"y":0,"layer":1}]}`, true, "", `"tile_size":8`, 2},
	} {
		v, err := c.ValidateLevel(t.Context(), json.RawMessage(tc.level))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := v.Error + string(v.Level)
		if v.Valid != tc.valid || v.Field != tc.field || !strings.Contains(got, tc.inText) || len(v.Warnings) != tc.warnings {
			t.Errorf("%s: %+v", tc.name, v)
		}
		if v.Valid {
			lr, err := kinds.Registry().Parse(v.Level)
			if err != nil || string(lr.Canonical()) != string(v.Level) {
				t.Errorf("%s: the canonical level does not parse back to itself: %v", tc.name, err)
			}
		}
	}
	v, _ := c.ValidateLevel(t.Context(), json.RawMessage(`{"kind":"sheep","tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":1},
		{"id":"b","type":1,"x":4,"y":0,"layer":1},{"id":"c","type":2,"x":40,"y":0,"layer":1}]}`))
	if !slices.ContainsFunc(v.Warnings, func(w solver.Warning) bool {
		return slices.Equal(w.Marks, []string{"a", "b"}) && strings.Contains(w.Message, "overlap on layer 1")
	}) {
		t.Errorf("no overlap warning for a and b: %+v", v.Warnings)
	}
	if _, err := c.GetLevel(t.Context(), v.Hash); !isStatus(err, 404) {
		t.Errorf("validate stored the level: %v", err)
	}
}

// TestPlay: the step endpoint plays moves with the kind's simulator, lists
// the legal moves and says whether the position can still be won, and its
// answer agrees with the kind's solver run here on the same position.
func TestPlay(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	c := client.New(f.url)
	reg := kinds.Registry()
	// a covers b; three 1s and three 2s; with 3 slots the order matters.
	sheep := json.RawMessage(`{"kind":"sheep","slots":3,"tiles":[
		{"id":"a","type":1,"x":0,"y":0,"layer":2},{"id":"b","type":2,"x":0,"y":0,"layer":1},
		{"id":"c","type":1,"x":20,"y":0,"layer":1},{"id":"d","type":2,"x":30,"y":0,"layer":1},
		{"id":"e","type":1,"x":40,"y":0,"layer":1},{"id":"f","type":2,"x":50,"y":0,"layer":1}]}`)
	for _, tc := range []struct {
		moves    string
		winnable bool
		moveIDs  []string
	}{
		{`[]`, true, []string{"a", "c", "d", "e", "f"}},
		{`["a","c"]`, true, []string{"b", "d", "e", "f"}},
		{`["a","d"]`, false, []string{"b", "c", "e", "f"}}, // tray 1 2: any click fills it
	} {
		p, err := c.Play(t.Context(), wire.PlayRequest{Level: sheep, Moves: json.RawMessage(tc.moves)})
		if err != nil {
			t.Fatalf("%s: %v", tc.moves, err)
		}
		var ids []string
		for _, m := range p.Moves {
			var id string
			_ = json.Unmarshal(m, &id)
			ids = append(ids, id)
		}
		want := solveHere(t, reg, sheep, tc.moves)
		if p.Winnable == nil || *p.Winnable != want || want != tc.winnable || !slices.Equal(ids, tc.moveIDs) || !p.Goal || p.Over {
			t.Errorf("after %s: winnable %v (solver here: %t), moves %v: %+v", tc.moves, p.Winnable, want, ids, p)
		}
		if !strings.HasPrefix(p.State.Text, "sheep ") {
			t.Errorf("state text %q", p.State.Text)
		}
	}
	// The last two clicks of a won game: over, won.
	won, err := c.Play(t.Context(), wire.PlayRequest{Level: sheep, Moves: json.RawMessage(`["a","c","e","b","d","f"]`)})
	if err != nil || !won.Over || !won.Won || won.Winnable == nil || !*won.Winnable || len(won.Moves) != 0 {
		t.Errorf("won game: %+v %v", won, err)
	}
	// twoends: the final margin under best play from here.
	te, err := c.Play(t.Context(), wire.PlayRequest{Level: json.RawMessage(`{"kind":"twoends","values":[3,9,1,2]}`), Moves: json.RawMessage(`"L"`)})
	if err != nil || te.Goal || te.Winnable != nil || te.Value == nil || *te.Value != 3-9+2-1 {
		t.Errorf("twoends: %+v %v", te, err)
	}
	// An illegal move is a 400 naming the moves.
	_, err = c.Play(t.Context(), wire.PlayRequest{Level: sheep, Moves: json.RawMessage(`["b"]`)})
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.Field != "moves" || !strings.Contains(apiErr.Message, "covered") {
		t.Errorf("illegal move: %v", err)
	}
}

// solveHere is the kind's solver on the position after moves, run in the
// test: solvable or not.
func solveHere(t *testing.T, reg *solver.Registry, level json.RawMessage, moves string) bool {
	t.Helper()
	lvl, err := reg.Parse(level)
	if err != nil {
		t.Fatal(err)
	}
	k := reg.KindOf(lvl)
	p, err := k.(solver.Positioner).Position(lvl, json.RawMessage(moves))
	if err != nil {
		t.Fatal(err)
	}
	if p.Over {
		return p.Won
	}
	res, err := k.Solve(context.Background(), p.Level, solver.Options{})
	if err != nil || !res.Verdict.Definitive() {
		t.Fatalf("solve here: %v %s", err, res.Verdict)
	}
	return res.Verdict == solver.Solved
}

func isStatus(err error, status int) bool {
	var apiErr *client.Error
	return errors.As(err, &apiErr) && apiErr.Status == status
}

// TestCrossSiteRequestsRefused: every POST route refuses a request whose
// Origin names another host or whose Sec-Fetch-Site says another site,
// and a body without a JSON Content-Type, with auth off and with auth on
// (and a valid token: the check does not depend on it); same-origin
// requests and clients without those headers pass. Every /v1 answer
// carries nosniff and frame-ancestors 'none'.
func TestCrossSiteRequestsRefused(t *testing.T) {
	t.Parallel()
	for _, auth := range []bool{false, true} {
		cfg := api.Config{Limits: api.Limits{SubmitRate: 1000}}
		token := ""
		if auth {
			token = "s3cret"
			cfg.Tokens = []api.StaticToken{{Name: "ci", Token: token}}
		}
		f := setup(t, cfg, false)
		var posts []string
		for _, route := range f.api.Routes() {
			if path, ok := strings.CutPrefix(route, "POST "); ok {
				posts = append(posts, strings.ReplaceAll(path, "{id}", "1"))
			}
		}
		if len(posts) < 6 {
			t.Fatalf("POST routes: %v", posts)
		}
		for _, path := range posts {
			for _, tc := range []struct {
				name    string
				headers map[string]string
				status  int
			}{
				{"another origin", map[string]string{"Origin": "http://evil.example", "Content-Type": "application/json"}, 403},
				{"another port", map[string]string{"Origin": "http://127.0.0.1:1", "Content-Type": "application/json"}, 403},
				{"null origin", map[string]string{"Origin": "null", "Content-Type": "application/json"}, 403},
				{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}, 403},
				{"same-site fetch", map[string]string{"Sec-Fetch-Site": "same-site", "Content-Type": "application/json"}, 403},
				{"no-cors body without a type", map[string]string{}, 415},
				{"form body", map[string]string{"Content-Type": "text/plain"}, 415},
			} {
				req, _ := http.NewRequest("POST", f.url+path, strings.NewReader(`{"kind":"twoends","values":[1]}`))
				for k, v := range tc.headers {
					req.Header.Set(k, v)
				}
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != tc.status {
					t.Errorf("auth %t, POST %s, %s: %d, want %d", auth, path, tc.name, resp.StatusCode, tc.status)
				}
			}
		}
		// Same origin (the workbench) passes the check.
		req, _ := http.NewRequest("POST", f.url+"/v1/jobs", strings.NewReader(`{"kind":"twoends","values":[1]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", f.url)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 202 {
			t.Errorf("auth %t: same-origin submit: %d", auth, resp.StatusCode)
		}
		for _, path := range []string{"/v1/stats", "/v1/nope", "/v1/jobs/1"} {
			req, _ := http.NewRequest("GET", f.url+path, nil)
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Content-Security-Policy") != "frame-ancestors 'none'" {
				t.Errorf("auth %t: GET %s: headers %v", auth, path, resp.Header)
			}
		}
	}
}

// TestReplayExplains: an unsolvable level's replay says why in words; a
// solved one carries no explanation.
func TestReplayExplains(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Metrics: prometheus.NewRegistry()}, true)
	c := client.New(f.url)
	for _, tc := range []struct{ level, want string }{
		{`{"kind":"zuma","board":"RGGBB","hand":"G"}`, "R: the board has 1, so the hand must bring at least 2 more"},
		{`{"kind":"sheep","tiles":[{"id":"a","type":1,"x":0,"y":0,"layer":1},{"id":"b","type":2,"x":8,"y":0,"layer":1},{"id":"c","type":2,"x":16,"y":0,"layer":1}]}`,
			"type 1 (A) has 1, type 2 (B) has 2"},
		{`{"kind":"twoends","values":[3,1,2]}`, ""},
	} {
		j, err := c.CreateJob(t.Context(), json.RawMessage(tc.level), jobtype.Options{})
		if err != nil {
			t.Fatal(err)
		}
		waittest.WaitFor(t, time.Minute, "job done", func() bool {
			j, err = c.GetJob(t.Context(), j.ID)
			return err == nil && j.State == jobtype.Done
		})
		rp, err := c.GetReplay(t.Context(), j.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want == "" && rp.Explanation != nil:
			t.Errorf("%s: solved, explained %+v", tc.level, rp.Explanation)
		case tc.want != "" && (rp.Explanation == nil || !strings.Contains(rp.Explanation.Summary, tc.want)):
			t.Errorf("%s: explanation %+v", tc.level, rp.Explanation)
		}
	}
}
