package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/waittest"
)

// projectToken is a token of the scope test: its project ("alpha",
// "beta"; "" for the operator) and role.
type projectToken struct {
	project, role, secret string
}

func (p projectToken) String() string {
	if p.project == "" {
		return "operator"
	}
	return p.project + "/" + p.role
}

var roleRank = map[string]int{"read": 1, "submit": 2, "admin": 3}

// scopeFixture holds two projects' data: alpha's resources, which beta's
// tokens must never see, and the markers that would show a leak.
type scopeFixture struct {
	*fixture
	op       string
	tokens   []projectToken
	alphaJob int64 // a solved job of alpha's own level
	alphaBat int64 // a batch with alpha's level and the shared one
	alphaGen int64 // a generation
	alphaLvl string
	shared   string    // a level of both projects
	betaJob  time.Time // when beta's job of the shared level was made
	victim   int64     // an alpha token the revoke row revokes
	markers  []string
}

func mustJSON(t *testing.T, status int, body string, want int, v any) {
	t.Helper()
	if status != want {
		t.Fatalf("status %d, want %d: %s", status, want, body)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
	}
}

func setupScopes(t *testing.T) *scopeFixture {
	f := &scopeFixture{fixture: setup(t, api.Config{Tokens: []api.StaticToken{{Name: "ops", Token: "op-secret"}},
		Metrics: prometheus.NewRegistry()}, true), op: "op-secret"}
	for _, name := range []string{"alpha", "beta"} {
		st, body := request(t, "POST", f.url+"/v1/projects", f.op, `{"name":"`+name+`"}`)
		mustJSON(t, st, body, 201, nil)
		for _, role := range []string{"read", "submit", "admin"} {
			var tok struct{ Token string }
			st, body := request(t, "POST", f.url+"/v1/tokens", f.op,
				fmt.Sprintf(`{"name":"%s-%s-tok","projects":[{"project":%q,"role":%q}]}`, name, role, name, role))
			mustJSON(t, st, body, 201, &tok)
			f.tokens = append(f.tokens, projectToken{project: name, role: role, secret: tok.Token})
		}
	}
	f.tokens = append(f.tokens, projectToken{secret: f.op})
	alphaAdmin, betaSubmit := f.token("alpha", "admin"), f.token("beta", "submit")

	alphaLevel := `{"kind":"twoends","values":[41,7,29,13,5,37]}`
	shared := `{"kind":"twoends","values":[8,3,6,2]}`
	var job struct {
		ID        int64
		LevelHash string `json:"level_hash"`
	}
	st, body := request(t, "POST", f.url+"/v1/jobs", alphaAdmin,
		`{"level":`+alphaLevel+`,"labels":{"owner":"markerALPHAjob"},"project":"alpha"}`)
	mustJSON(t, st, body, 202, &job)
	f.alphaJob, f.alphaLvl = job.ID, job.LevelHash
	var batch struct{ ID int64 }
	st, body = request(t, "POST", f.url+"/v1/batches", alphaAdmin,
		`{"levels":[`+alphaLevel+`,`+shared+`],"labels":{"owner":"markerALPHAbatch"},"project":"alpha"}`)
	mustJSON(t, st, body, 202, &batch)
	f.alphaBat = batch.ID
	var gen struct{ ID int64 }
	st, body = request(t, "POST", f.url+"/v1/generate", alphaAdmin,
		`{"template":`+sheepTemplate+`,"count":1,"score":{"min":1,"max":3},"seed":7,"max_candidates":5,
		"labels":{"owner":"markerALPHAgen"},"project":"alpha"}`)
	mustJSON(t, st, body, 202, &gen)
	f.alphaGen = gen.ID

	c := client.New(f.url)
	c.Token = alphaAdmin
	var err error
	waittest.WaitFor(t, time.Minute, "alpha's job and batch to finish", func() bool {
		j, err := c.GetJob(t.Context(), f.alphaJob)
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.GetBatch(t.Context(), f.alphaBat)
		if err != nil {
			t.Fatal(err)
		}
		if j.Project != "alpha" || b.Project != "alpha" {
			t.Fatalf("alpha's job and batch say projects %q and %q", j.Project, b.Project)
		}
		return j.State == "done" && b.Done == 1
	})
	err = c.BatchResults(t.Context(), f.alphaBat, func(r wire.BatchResult) error {
		if r.Seq == 1 {
			f.shared = r.LevelHash
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Beta submits the shared level after alpha solved it: its job must
	// not be served from alpha's result.
	st, body = request(t, "POST", f.url+"/v1/jobs", betaSubmit, `{"level":`+shared+`,"labels":{"owner":"beta-own"}}`)
	mustJSON(t, st, body, 202, &job)
	var betaJob struct {
		Cached    bool
		CreatedAt time.Time `json:"created_at"`
	}
	mustJSON(t, st, body, 202, &betaJob)
	if betaJob.Cached {
		t.Fatal("beta's job of the shared level was served from alpha's result")
	}
	f.betaJob = betaJob.CreatedAt

	// A delivered event of a callback of alpha's batch, to redeliver.
	conn, err := pgx.Connect(t.Context(), f.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), `
		WITH h AS (
			INSERT INTO webhooks (batch_id, url, owner, finished_at) VALUES ($1, 'https://example.com/markerALPHAhook', 'static:ops', now())
			RETURNING id
		)
		INSERT INTO webhook_events (id, webhook_id, type, body, state) SELECT $2, h.id, 'batch.jobs_finished', '{}', 'delivered' FROM h`,
		f.alphaBat, alphaEvent); err != nil {
		t.Fatal(err)
	}

	var victim struct{ ID int64 }
	st, body = request(t, "POST", f.url+"/v1/tokens", alphaAdmin, `{"name":"alpha-victim","projects":[{"project":"alpha","role":"read"}]}`)
	mustJSON(t, st, body, 201, &victim)
	f.victim = victim.ID

	// Ids are markers under keys that name one kind of id: "id" is any
	// kind's, and beta's batch may have the id of an alpha job.
	f.markers = []string{"markerALPHA", f.alphaLvl, `"alpha"`, "41,7,29,13,5,37"}
	jobs, batches := f.alphaIDs(t, "jobs"), f.alphaIDs(t, "batches")
	for _, tail := range []string{",", "}"} {
		for _, id := range jobs {
			f.markers = append(f.markers, fmt.Sprintf(`"job_id":%d%s`, id, tail))
		}
		for _, id := range batches {
			f.markers = append(f.markers, fmt.Sprintf(`"batch_id":%d%s`, id, tail))
		}
	}
	return f
}

// alphaIDs are the ids of alpha's jobs or batches (list "jobs",
// "batches").
func (f *scopeFixture) alphaIDs(t *testing.T, list string) []int64 {
	var ids []int64
	var page struct{ Items []struct{ ID int64 } }
	st, body := request(t, "GET", f.url+"/v1/"+list+"?project=alpha&limit=1000", f.op, "")
	mustJSON(t, st, body, 200, &page)
	for _, it := range page.Items {
		ids = append(ids, it.ID)
	}
	return ids
}

// alphaEvent is the id of alpha's webhook event.
const alphaEvent = "evt-alpha-1"

func (f *scopeFixture) token(project, role string) string {
	for _, tok := range f.tokens {
		if tok.project == project && tok.role == role {
			return tok.secret
		}
	}
	panic("no token " + project + "/" + role)
}

// scopeRow is one request of the table: want gives the status a token
// must get.
type scopeRow struct {
	method, path, body string
	want               func(projectToken) int
}

// onAlpha is the rule for a resource of alpha that needs role: alpha's
// tokens get ok with the role and 403 below it; beta's get 404 (as for a
// missing resource) when they have the role on their own project, else
// 403 (a role too low everywhere says nothing of alpha).
func onAlpha(role string, ok int) func(projectToken) int {
	return func(tok projectToken) int {
		has := tok.project == "" || roleRank[tok.role] >= roleRank[role]
		switch {
		case !has:
			return http.StatusForbidden
		case tok.project == "beta":
			return http.StatusNotFound
		}
		return ok
	}
}

// everyone answers ok to every token.
func everyone(ok int) func(projectToken) int { return func(projectToken) int { return ok } }

// withRole answers ok to a token with role on some project, else 403.
func withRole(role string, ok int) func(projectToken) int {
	return func(tok projectToken) int {
		if tok.project == "" || roleRank[tok.role] >= roleRank[role] {
			return ok
		}
		return http.StatusForbidden
	}
}

func (f *scopeFixture) rows() []scopeRow {
	job, batch, gen := strconv.FormatInt(f.alphaJob, 10), strconv.FormatInt(f.alphaBat, 10), strconv.FormatInt(f.alphaGen, 10)
	newJob := `{"level":{"kind":"twoends","values":[1,2,3,4,5,6,7,8,9,10]},"labels":{"o":"markerALPHAnew"},"project":"alpha"}`
	newBatch := `{"levels":[{"kind":"twoends","values":[9,9,1]}],"labels":{"o":"markerALPHAnew"},"project":"alpha"}`
	newGen := `{"template":` + sheepTemplate + `,"count":1,"score":{"min":1,"max":3},"max_candidates":2,"project":"alpha"}`
	operatorOnly := func(ok int) func(projectToken) int {
		return func(tok projectToken) int {
			if tok.project == "" {
				return ok
			}
			return http.StatusForbidden
		}
	}
	return []scopeRow{
		{"GET", "/healthz", "", everyone(200)},
		{"GET", "/readyz", "", everyone(200)},
		{"GET", "/metrics", "", everyone(200)},
		{"GET", "/v1/openapi.json", "", everyone(200)},
		{"GET", "/v1/jobs", "", everyone(200)},
		{"GET", "/v1/jobs?level=" + f.shared, "", everyone(200)},
		{"GET", "/v1/jobs?batch=" + batch, "", everyone(200)},
		{"GET", "/v1/jobs?label=owner:markerALPHAjob", "", everyone(200)},
		{"GET", "/v1/jobs/" + job, "", onAlpha("read", 200)},
		{"GET", "/v1/jobs/" + job + "?wait=1s", "", onAlpha("read", 200)},
		{"GET", "/v1/jobs/" + job + "/solution", "", onAlpha("read", 200)},
		{"GET", "/v1/jobs/" + job + "/replay", "", onAlpha("read", 200)},
		{"GET", "/v1/jobs/" + job + "/deliveries", "", onAlpha("read", 200)},
		{"GET", "/v1/batches", "", everyone(200)},
		{"GET", "/v1/batches?label=owner:markerALPHAbatch", "", everyone(200)},
		{"GET", "/v1/batches/" + batch, "", onAlpha("read", 200)},
		{"GET", "/v1/batches/" + batch + "/results", "", onAlpha("read", 200)},
		{"GET", "/v1/batches/" + batch + "/report", "", onAlpha("read", 200)},
		{"GET", "/v1/batches/" + batch + "/deliveries", "", onAlpha("read", 200)},
		{"GET", "/v1/generations/" + gen, "", onAlpha("read", 200)},
		{"GET", "/v1/levels", "", everyone(200)},
		{"GET", "/v1/levels?label=owner:markerALPHAbatch", "", everyone(200)},
		{"GET", "/v1/levels?verdict=solved", "", everyone(200)},
		{"GET", "/v1/levels/" + f.alphaLvl, "", onAlpha("read", 200)},
		{"GET", "/v1/levels/" + f.alphaLvl + "/results", "", onAlpha("read", 200)},
		{"GET", "/v1/levels/" + f.shared, "", everyone(200)},
		{"GET", "/v1/levels/" + f.shared + "/results", "", everyone(200)},
		{"POST", "/v1/levels/validate", `{"kind":"twoends","values":[1,2]}`, everyone(200)},
		{"POST", "/v1/play", `{"level":{"kind":"twoends","values":[1,2]}}`, everyone(200)},
		{"GET", "/v1/stats", "", everyone(200)},
		{"GET", "/v1/projects", "", everyone(200)},
		{"GET", "/v1/webhook-secrets", "", everyone(200)},
		{"POST", "/v1/webhook-secrets", "", withRole("submit", 201)},
		{"DELETE", "/v1/webhook-secrets/999999", "", withRole("submit", 404)},
		{"POST", "/v1/webhook-events/nope/redeliver", "", withRole("submit", 404)},
		{"POST", "/v1/webhook-events/" + alphaEvent + "/redeliver", "", onAlpha("submit", 202)},
		{"GET", "/v1/tokens", "", withRole("admin", 200)},
		{"GET", "/v1/audit", "", withRole("admin", 200)},
		{"POST", "/v1/projects", `{"name":"gamma"}`, operatorOnly(201)},
		{"PATCH", "/v1/projects/alpha", `{"bulk_weight":2}`, operatorOnly(200)},
		{"POST", "/v1/tokens", `{"name":"made","projects":[{"project":"alpha","role":"read"}]}`, onAlpha("admin", 201)},
		{"DELETE", "/v1/tokens/" + strconv.FormatInt(f.victim, 10), "", onAlpha("admin", 200)},
		{"POST", "/v1/jobs", newJob, onAlpha("submit", 202)},
		{"POST", "/v1/batches", newBatch, onAlpha("submit", 202)},
		{"POST", "/v1/generate", newGen, onAlpha("submit", 202)},
		{"POST", "/v1/jobs/" + job + "/repair", "", onAlpha("submit", 409)}, // solved: scope passed
		{"POST", "/v1/generations/" + gen + "/cancel", "", onAlpha("submit", 200)},
		{"POST", "/v1/jobs/" + job + "/cancel", "", onAlpha("submit", 200)},
		{"POST", "/v1/batches/" + batch + "/cancel", "", onAlpha("submit", 200)},
	}
}

// TestProjectScopes is the scope table: every route and method of
// Server.Routes() with the tokens of two projects in each role and an
// operator's; each answer's status is the expected one, no answer to a
// beta token carries any of alpha's markers (labels, level hash, ids,
// name), and beta's 404 for alpha's resource is word for word the 404 of
// a missing one.
func TestProjectScopes(t *testing.T) {
	t.Parallel()
	f := setupScopes(t)
	rows := f.rows()

	covered := map[string]bool{}
	for _, row := range rows {
		path, _, _ := strings.Cut(row.path, "?")
		covered[row.method+" "+routePattern(path)] = true
	}
	for _, route := range f.api.Routes() {
		if !covered[route] {
			t.Errorf("route %s is not in the scope table", route)
		}
	}

	// The gamma project and the victim token are made once, by the first
	// token allowed; the others then get 409 and 200 (idempotent revoke).
	made := false
	for _, row := range rows {
		for _, tok := range f.tokens {
			want := row.want(tok)
			if row.path == "/v1/projects" && row.method == "POST" && want == 201 && made {
				want = http.StatusConflict
			}
			st, body := request(t, row.method, f.url+row.path, tok.secret, row.body)
			if row.path == "/v1/projects" && st == 201 {
				made = true
			}
			if st != want {
				t.Errorf("%s %s as %s = %d, want %d: %.300s", row.method, row.path, tok, st, want, body)
			}
			if tok.project != "beta" {
				continue
			}
			// A 404 names the hash beta asked for: that echo is not a leak.
			seen := body
			for _, seg := range strings.Split(row.path, "/") {
				if len(seg) == 64 {
					seen = strings.ReplaceAll(seen, seg, "")
				}
			}
			for _, m := range f.markers {
				if strings.Contains(seen, m) {
					t.Errorf("%s %s as %s: the answer carries alpha's %q: %.300s", row.method, row.path, tok, m, body)
				}
			}
			if st == http.StatusNotFound {
				f.checkSameAsMissing(t, row, tok, body)
			}
		}
	}
}

// checkSameAsMissing compares beta's 404 for alpha's resource with the
// 404 for an id (hash) that does not exist.
func (f *scopeFixture) checkSameAsMissing(t *testing.T, row scopeRow, tok projectToken, body string) {
	t.Helper()
	path := row.path
	var real, missing string
	for _, id := range []string{strconv.FormatInt(f.alphaJob, 10), strconv.FormatInt(f.alphaBat, 10),
		strconv.FormatInt(f.alphaGen, 10), f.alphaLvl, alphaEvent} {
		if strings.Contains(path, "/"+id+"/") || strings.HasSuffix(path, "/"+id) || strings.Contains(path, "/"+id+"?") {
			real = id
			missing = "987654321"
			if len(id) == 64 {
				missing = strings.Repeat("e", 64)
			}
			break
		}
	}
	if real == "" {
		return
	}
	_, want := request(t, row.method, f.url+strings.Replace(path, "/"+real, "/"+missing, 1), tok.secret, row.body)
	if strings.ReplaceAll(want, missing, real) != body {
		t.Errorf("%s %s as %s: %q, but a missing one answers %q", row.method, path, tok, body, want)
	}
}

// routePattern turns a request path into its route's pattern.
func routePattern(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if i == 0 {
			continue
		}
		switch {
		case len(p) == 64 || (p != "" && strings.Trim(p, "0123456789") == ""):
			if parts[i-1] == "levels" {
				parts[i] = "{hash}"
			} else {
				parts[i] = "{id}"
			}
		case parts[i-1] == "webhook-events":
			parts[i] = "{id}"
		case parts[i-1] == "projects":
			parts[i] = "{project}"
		}
	}
	return strings.Join(parts, "/")
}

// TestProjectStatsAndLists: a project's stats count its batches and its
// jobs posted one by one, never another project's, and a list narrowed to
// a project beta cannot read is empty.
func TestProjectStatsAndLists(t *testing.T) {
	t.Parallel()
	f := setupScopes(t)
	beta := f.token("beta", "read")
	at := func(d time.Duration) string { return f.betaJob.Add(d).UTC().Format(time.RFC3339) }
	for _, c := range []struct {
		name, token, query string
		min, max           int
	}{
		// beta has one job, outside a batch; alpha one too.
		{"beta: its job, not alpha's", beta, "", 1, 1},
		{"beta: a window with its job", beta, "?since=" + at(-time.Minute) + "&until=" + at(time.Second), 1, 1},
		{"beta: a window after its job", beta, "?since=" + at(time.Second), 0, 0},
		{"operator: beta's", f.op, "?project=beta", 1, 1},
		// alpha: its job, its batch's 2 and the generation's kept level.
		{"alpha: its job and batches, not beta's job", f.token("alpha", "read"), "", 3, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stats struct{ Jobs int }
			st, body := request(t, "GET", f.url+"/v1/stats"+c.query, c.token, "")
			mustJSON(t, st, body, 200, &stats)
			if stats.Jobs < c.min || stats.Jobs > c.max {
				t.Errorf("%d jobs, want %d to %d: %s", stats.Jobs, c.min, c.max, body)
			}
		})
	}
	var page struct{ Items []json.RawMessage }
	st, body := request(t, "GET", f.url+"/v1/jobs?project=alpha", beta, "")
	mustJSON(t, st, body, 200, &page)
	if len(page.Items) != 0 {
		t.Errorf("beta lists alpha's jobs: %s", body)
	}
	st, body = request(t, "GET", f.url+"/v1/stats?project=alpha", beta, "")
	if st != 404 {
		t.Errorf("beta's stats of alpha = %d %s, want 404", st, body)
	}
	// The shared level is beta's since beta's job: alpha's earlier one
	// does not show in when it was made.
	var levels struct {
		Items []struct {
			Hash      string
			CreatedAt time.Time `json:"created_at"`
		}
	}
	st, body = request(t, "GET", f.url+"/v1/levels", beta, "")
	mustJSON(t, st, body, 200, &levels)
	if len(levels.Items) != 1 || levels.Items[0].Hash != f.shared || !levels.Items[0].CreatedAt.Equal(f.betaJob) {
		t.Errorf("beta's levels %s, want the shared level made at %s", body, f.betaJob)
	}
	var audit struct {
		Items []struct{ Action, Project string }
	}
	st, body = request(t, "GET", f.url+"/v1/audit?limit=100", f.token("alpha", "admin"), "")
	mustJSON(t, st, body, 200, &audit)
	var actions []string
	for _, a := range audit.Items {
		if a.Project != "alpha" {
			t.Errorf("alpha's admin reads an audit row of %q", a.Project)
		}
		actions = append(actions, a.Action)
	}
	for _, want := range []string{"job.create", "batch.create", "generation.create", "token.create", "project.create"} {
		if !slices.Contains(actions, want) {
			t.Errorf("audit %v lacks %s", actions, want)
		}
	}
}

// TestProjectShare: POST /v1/projects takes a share, PATCH
// /v1/projects/{project} changes the fields it names and GET /v1/projects
// shows them; a weight or cap out of range is 400 naming the field.
func TestProjectShare(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Tokens: []api.StaticToken{{Name: "ops", Token: "op-secret"}}}, false)
	c := client.New(f.url)
	c.Token = "op-secret"
	var p wire.Project
	st, body := request(t, "POST", f.url+"/v1/projects", c.Token, `{"name":"plain"}`)
	mustJSON(t, st, body, 201, &p)
	if p.BulkWeight != 1 || p.BulkCap != 0 || strings.Contains(body, "bulk_cap") {
		t.Errorf("a new project's share: %s, want weight 1 and no cap", body)
	}
	st, body = request(t, "POST", f.url+"/v1/projects", c.Token, `{"name":"big","bulk_weight":5,"bulk_cap":3}`)
	mustJSON(t, st, body, 201, &p)
	if p.BulkWeight != 5 || p.BulkCap != 3 {
		t.Errorf("created with weight 5, cap 3: %s", body)
	}

	weight := 7
	if p, err := c.UpdateProject(t.Context(), "big", wire.ProjectShare{BulkWeight: &weight}); err != nil || p.BulkWeight != 7 || p.BulkCap != 3 {
		t.Fatalf("PATCH weight 7 = %+v, %v; want weight 7, cap 3 kept", p, err)
	}
	ps, err := c.Projects(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ps, func(p wire.Project) bool { return p.Name == "big" })
	if i < 0 || ps[i].BulkWeight != 7 || ps[i].BulkCap != 3 {
		t.Errorf("GET /v1/projects after the PATCH: %+v", ps)
	}
	var uncapped wire.Project
	st, body = request(t, "PATCH", f.url+"/v1/projects/big", c.Token, `{"bulk_cap":0}`)
	mustJSON(t, st, body, 200, &uncapped)
	if uncapped.BulkWeight != 7 || uncapped.BulkCap != 0 {
		t.Errorf("PATCH cap 0: %s, want weight 7 kept and no cap", body)
	}

	for _, bad := range []struct{ method, path, body, field string }{
		{"PATCH", "/v1/projects/big", `{"bulk_weight":0}`, "bulk_weight"},
		{"PATCH", "/v1/projects/big", `{"bulk_weight":1001}`, "bulk_weight"},
		{"PATCH", "/v1/projects/big", `{"bulk_cap":-1}`, "bulk_cap"},
		{"POST", "/v1/projects", `{"name":"heavy","bulk_weight":0}`, "bulk_weight"},
	} {
		var e struct{ Field string }
		st, body := request(t, bad.method, f.url+bad.path, c.Token, bad.body)
		mustJSON(t, st, body, 400, &e)
		if e.Field != bad.field {
			t.Errorf("%s %s: field %q, want %q", bad.method, bad.body, e.Field, bad.field)
		}
	}
	if st, body := request(t, "PATCH", f.url+"/v1/projects/nope", c.Token, `{"bulk_weight":2}`); st != 404 {
		t.Errorf("PATCH of an unknown project = %d %s, want 404", st, body)
	}
	if ps, err = c.Projects(t.Context()); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(ps, func(p wire.Project) bool { return p.Name == "heavy" || (p.Name == "big" && p.BulkWeight != 7) }) {
		t.Errorf("a refused request changed the projects: %+v", ps)
	}
	var audit struct{ Items []wire.AuditEntry }
	st, body = request(t, "GET", f.url+"/v1/audit?limit=100", c.Token, "")
	mustJSON(t, st, body, 200, &audit)
	shares := 0
	for _, e := range audit.Items {
		if e.Action == "project.share" && e.Project == "big" && e.Target == "big" {
			shares++
		}
	}
	if shares != 2 {
		t.Errorf("audit has %d project.share rows of big, want 2 (the PATCHes that passed): %s", shares, body)
	}
}

// TestProjectRetention: an operator sets a project's retention and
// whether it keeps each level's newest result past it, on create and by
// PATCH; the answer and GET /v1/projects show it (0 hours: forever, the
// default), a bad value is 400, and the change is audited.
func TestProjectRetention(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Tokens: []api.StaticToken{{Name: "ops", Token: "op-secret"}}}, false)
	c := client.New(f.url)
	c.Token = "op-secret"
	var p wire.Project
	st, body := request(t, "POST", f.url+"/v1/projects", c.Token, `{"name":"plain"}`)
	mustJSON(t, st, body, 201, &p)
	if p.RetentionHours != 0 || !p.KeepResults {
		t.Errorf("a new project: %s, want retention 0 (forever) and keep_results", body)
	}
	st, body = request(t, "POST", f.url+"/v1/projects", c.Token, `{"name":"weekly","retention_hours":168}`)
	mustJSON(t, st, body, 201, &p)
	if p.RetentionHours != 168 || !p.KeepResults {
		t.Errorf("created with 168 hours: %s", body)
	}
	no := false
	if p, err := c.UpdateProject(t.Context(), "weekly", wire.ProjectShare{KeepResults: &no}); err != nil || p.RetentionHours != 168 || p.KeepResults {
		t.Fatalf("PATCH keep_results false = %+v, %v; want 168 hours kept, results not", p, err)
	}
	st, body = request(t, "PATCH", f.url+"/v1/projects/weekly", c.Token, `{"retention_hours":0}`)
	mustJSON(t, st, body, 200, &p)
	if p.RetentionHours != 0 || p.KeepResults {
		t.Errorf("PATCH retention 0: %s, want forever and keep_results false kept", body)
	}
	for _, bad := range []string{`{"retention_hours":-1}`, `{"retention_hours":1e9}`, `{"retention_hours":"7d"}`} {
		if st, body := request(t, "PATCH", f.url+"/v1/projects/weekly", c.Token, bad); st != 400 {
			t.Errorf("PATCH %s = %d %s, want 400", bad, st, body)
		}
	}
	ps, err := c.Projects(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ps, func(p wire.Project) bool { return p.Name == "weekly" })
	if i < 0 || ps[i].RetentionHours != 0 || ps[i].KeepResults {
		t.Errorf("GET /v1/projects after the PATCHes: %+v", ps)
	}
	var audit struct{ Items []wire.AuditEntry }
	st, body = request(t, "GET", f.url+"/v1/audit?limit=100", c.Token, "")
	mustJSON(t, st, body, 200, &audit)
	if n := strings.Count(body, `"project.retention"`); n != 2 {
		t.Errorf("audit has %d project.retention rows, want 2 (the PATCHes that changed it): %s", n, body)
	}
}
