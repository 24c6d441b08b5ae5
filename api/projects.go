package api

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// Projects, tokens and the audit log: POST/GET /v1/projects, PATCH
// /v1/projects/{project}, POST/GET /v1/tokens, DELETE /v1/tokens/{id},
// GET /v1/audit (scope.go has the roles).

var projectName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

func (s *Server) createProject(w http.ResponseWriter, r *http.Request) {
	var req wire.ProjectRequest
	if !s.decodeSmallBody(w, r, &req) {
		return
	}
	if !projectName.MatchString(req.Name) {
		writeError(w, http.StatusBadRequest, "name: 1 to 63 of a-z 0-9 . _ -, starting with a letter or digit", "name")
		return
	}
	if !checkShare(w, req.ProjectShare) {
		return
	}
	p, err := s.cfg.Store.CreateProject(r.Context(), req.Name)
	if errors.Is(err, store.ErrExists) {
		writeError(w, http.StatusConflict, err.Error(), "name")
		return
	}
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	// The store makes a project with the default share; a request that
	// names another sets it after (the project stands if that fails).
	var detail any
	if sh := withShare(p.Share, req.ProjectShare); sh != p.Share {
		if err := s.cfg.Store.SetShare(r.Context(), p.ID, sh); err != nil {
			s.writeStoreError(w, r, err)
			return
		}
		p.Share = sh
		detail = shareDetail(p)
	}
	if rt := withRetention(p.Retention, req.ProjectShare); rt != p.Retention {
		if err := s.cfg.Store.SetRetention(r.Context(), p.ID, rt); err != nil {
			s.writeStoreError(w, r, err)
			return
		}
		p.Retention = rt
		detail = shareDetail(p)
	}
	s.audit(r, &p.ID, "project.create", p.Name, detail)
	writeJSON(w, http.StatusCreated, toWireProject(p))
}

// updateProject sets a project's share of bulk work and its retention (an
// operator only); a field the body leaves out keeps its value.
func (s *Server) updateProject(w http.ResponseWriter, r *http.Request) {
	var req wire.ProjectShare
	if !s.decodeSmallBody(w, r, &req) || !checkShare(w, req) {
		return
	}
	p, err := s.cfg.Store.ProjectByName(r.Context(), r.PathValue("project"))
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	// Read, then write both fields: two operators' PATCHes of different
	// fields at once may lose one, which is fine for a rare admin action.
	p.Share = withShare(p.Share, req)
	if err := s.cfg.Store.SetShare(r.Context(), p.ID, p.Share); err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	action := "project.share"
	if rt := withRetention(p.Retention, req); rt != p.Retention {
		if err := s.cfg.Store.SetRetention(r.Context(), p.ID, rt); err != nil {
			s.writeStoreError(w, r, err)
			return
		}
		p.Retention, action = rt, "project.retention"
	}
	s.audit(r, &p.ID, action, p.Name, shareDetail(p))
	writeJSON(w, http.StatusOK, toWireProject(p))
}

// checkShare answers 400 (and returns false) for a share field out of
// range. The cap's column is an integer: a larger cap would be a 500.
func checkShare(w http.ResponseWriter, req wire.ProjectShare) bool {
	if v := req.BulkWeight; v != nil && (*v < 1 || *v > store.MaxWeight) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("bulk_weight: 1 to %d", store.MaxWeight), "bulk_weight")
		return false
	}
	if v := req.BulkCap; v != nil && (*v < 0 || *v > math.MaxInt32) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("bulk_cap: 0 (no cap) to %d", math.MaxInt32), "bulk_cap")
		return false
	}
	if v := req.RetentionHours; v != nil && (*v < 0 || *v > maxRetentionHours) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("retention_hours: 0 (forever) or 1 to %d", maxRetentionHours), "retention_hours")
		return false
	}
	return true
}

// maxRetentionHours is a hundred years: longer is forever, which is 0.
const maxRetentionHours = 100 * 366 * 24

// withRetention is rt with the fields req sets.
func withRetention(rt store.Retention, req wire.ProjectShare) store.Retention {
	if req.RetentionHours != nil {
		rt.Keep = time.Duration(*req.RetentionHours) * time.Hour
	}
	if req.KeepResults != nil {
		rt.DropResults = !*req.KeepResults
	}
	return rt
}

// withShare is sh with the fields req sets.
func withShare(sh store.Share, req wire.ProjectShare) store.Share {
	if req.BulkWeight != nil {
		sh.Weight = *req.BulkWeight
	}
	if req.BulkCap != nil {
		sh.Cap = *req.BulkCap
	}
	return sh
}

// shareDetail is the audit detail of a project's settings.
func shareDetail(p store.Project) map[string]any {
	return map[string]any{"bulk_weight": p.Share.Weight, "bulk_cap": p.Share.Cap,
		"retention_hours": int(p.Retention.Keep / time.Hour), "keep_results": !p.Retention.DropResults}
}

// toWireProject maps a project.
func toWireProject(p store.Project) wire.Project {
	return wire.Project{ID: p.ID, Name: p.Name, CreatedAt: p.CreatedAt, BulkWeight: p.Share.Weight, BulkCap: p.Share.Cap,
		RetentionHours: int(p.Retention.Keep / time.Hour), KeepResults: !p.Retention.DropResults}
}

// listProjects lists the projects the token reads.
func (s *Server) listProjects(w http.ResponseWriter, r *http.Request) {
	ps, err := s.cfg.Store.Projects(r.Context(), principalOf(r.Context()).readable())
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	out := wire.ProjectList{Items: make([]wire.Project, len(ps))}
	for i, p := range ps {
		out.Items[i] = toWireProject(p)
	}
	writeJSON(w, http.StatusOK, out)
}

// createToken makes a token: an operator any (without projects an
// operator's token), a project admin one with roles on its own projects
// only, none above admin. The secret is in this answer only.
func (s *Server) createToken(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r.Context())
	var req wire.TokenRequest
	if !s.decodeSmallBody(w, r, &req) {
		return
	}
	if req.Name == "" {
		writeError(w, http.StatusBadRequest, "missing: name", "name")
		return
	}
	if len(req.Projects) == 0 && !p.operator {
		writeError(w, http.StatusForbidden, "only an operator's token may create a token without projects", "projects")
		return
	}
	roles := map[int64]string{}
	for i, tr := range req.Projects {
		field := fmt.Sprintf("projects[%d]", i)
		rl := roleNamed(tr.Role)
		if rl == roleNone {
			writeError(w, http.StatusBadRequest, field+".role: must be read, submit or admin", field+".role")
			return
		}
		pr, err := s.cfg.Store.ProjectByName(r.Context(), tr.Project)
		if errors.Is(err, store.ErrNotFound) || (err == nil && p.role(pr.ID) < roleRead) {
			writeError(w, http.StatusNotFound, fmt.Sprintf("project %q: not found", tr.Project), field+".project")
			return
		}
		if err != nil {
			s.writeStoreError(w, r, err)
			return
		}
		if p.role(pr.ID) < roleAdmin || rl > p.role(pr.ID) {
			writeError(w, http.StatusForbidden, fmt.Sprintf("%s: this token is not admin of project %q", field, tr.Project), field)
			return
		}
		roles[pr.ID] = rl.String()
	}
	secret := NewTokenSecret()
	t, err := s.cfg.Store.CreateToken(r.Context(), store.TokenParams{Name: req.Name, Hash: HashToken(secret),
		ReadOnly: req.ReadOnly && len(roles) == 0, Roles: roles, CreatedBy: p.owner})
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	s.auditProjects(r, roles, "token.create", strconv.FormatInt(t.ID, 10), map[string]any{"name": t.Name, "projects": req.Projects})
	names, ok := s.projectNames(w, r)
	if !ok {
		return
	}
	out := toWireToken(t, names, nil)
	out.Token = secret
	writeJSON(w, http.StatusCreated, out)
}

// NewTokenSecret is a new token: "pzd_" and 24 random bytes. The API's
// POST /v1/tokens and `puzzled token create` both make theirs here.
func NewTokenSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "pzd_" + base64.RawURLEncoding.EncodeToString(b)
}

// listTokens lists the stored tokens: all for an operator, else those with
// a role on a project the caller administers, showing only those roles.
func (s *Server) listTokens(w http.ResponseWriter, r *http.Request) {
	admin := principalOf(r.Context()).projectsWith(roleAdmin)
	ts, err := s.cfg.Store.Tokens(r.Context(), admin)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	names, ok := s.projectNames(w, r)
	if !ok {
		return
	}
	out := wire.TokenList{Items: make([]wire.Token, len(ts))}
	for i, t := range ts {
		out.Items[i] = toWireToken(t, names, admin)
	}
	writeJSON(w, http.StatusOK, out)
}

// revokeToken revokes a stored token: an operator any, a project admin a
// scoped token whose every project it administers. A token it sees no
// role of answers 404.
func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	p := principalOf(r.Context())
	t, err := s.cfg.Store.TokenByID(r.Context(), id)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if !p.operator {
		shared, all := false, t.Scoped
		for project := range t.Roles {
			if p.role(project) >= roleAdmin {
				shared = true
			} else {
				all = false
			}
		}
		if !shared {
			s.writeStoreError(w, r, fmt.Errorf("token %d: %w", id, store.ErrNotFound))
			return
		}
		if !all {
			writeError(w, http.StatusForbidden, "the token has a role on a project this token does not administer", "")
			return
		}
	}
	if t, err = s.cfg.Store.RevokeToken(r.Context(), id); err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	s.auth.forget()
	s.auditProjects(r, t.Roles, "token.revoke", strconv.FormatInt(t.ID, 10), map[string]any{"name": t.Name})
	names, ok := s.projectNames(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, toWireToken(t, names, p.projectsWith(roleAdmin)))
}

// listAudit pages the audit log, newest first: all of it for an operator,
// else the rows of the projects the caller administers.
func (s *Server) listAudit(w http.ResponseWriter, r *http.Request) {
	q := newListQuery(r)
	f := store.AuditFilter{Projects: principalOf(r.Context()).projectsWith(roleAdmin), After: q.cursor(false), Limit: q.limit()}
	if !q.done(w) {
		return
	}
	names, ok := s.projectNames(w, r)
	if !ok {
		return
	}
	limit := f.Limit
	f.Limit++
	streamPage(s, w, r, limit, func(e wire.AuditEntry) store.Position {
		return store.Position{At: e.At, ID: e.ID}
	}, func(fn func(wire.AuditEntry) error) error {
		return s.cfg.Store.ListAudit(r.Context(), f, func(e store.AuditEntry) error {
			out := wire.AuditEntry{ID: e.ID, At: e.At, Actor: e.Actor, Action: e.Action, Target: e.Target, Detail: e.Detail}
			if e.ProjectID != nil {
				out.Project = names[*e.ProjectID]
			}
			return fn(out)
		})
	})
}

// projectNames maps every project's id to its name; on failure it has
// answered.
func (s *Server) projectNames(w http.ResponseWriter, r *http.Request) (map[int64]string, bool) {
	ps, err := s.cfg.Store.Projects(r.Context(), nil)
	if err != nil {
		s.writeStoreError(w, r, err)
		return nil, false
	}
	names := make(map[int64]string, len(ps))
	for _, p := range ps {
		names[p.ID] = p.Name
	}
	return names, true
}

// toWireToken maps a token; shown (nil: all) limits the roles listed to
// those projects.
func toWireToken(t store.Token, names map[int64]string, shown []int64) wire.Token {
	out := wire.Token{ID: t.ID, Name: t.Name, Operator: !t.Scoped, ReadOnly: t.ReadOnly, Projects: []wire.TokenRole{},
		CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt, RevokedAt: t.RevokedAt}
	for project, rl := range t.Roles {
		if shown == nil || slices.Contains(shown, project) {
			out.Projects = append(out.Projects, wire.TokenRole{Project: names[project], Role: rl})
		}
	}
	slices.SortFunc(out.Projects, func(a, b wire.TokenRole) int { return strings.Compare(a.Project, b.Project) })
	return out
}

// decodeSmallBody reads a small JSON body strictly into v; on failure it
// has answered.
func (s *Server) decodeSmallBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if !acceptContentType(w, r, mediaJSON) {
		return false
	}
	body, ok := s.readBody(w, r, 64<<10)
	if !ok {
		return false
	}
	if err := solver.DecodeStrict(body, v); err != nil {
		writeLevelError(w, err)
		return false
	}
	return true
}

// audit writes an audit row for an action of the request's caller on
// project (nil: none). A row that cannot be written is logged; the action
// stands.
func (s *Server) audit(r *http.Request, project *int64, action, target string, detail any) {
	var raw json.RawMessage
	if detail != nil {
		raw, _ = json.Marshal(detail)
	}
	err := s.cfg.Store.AddAudit(r.Context(), store.AuditEntry{Actor: principalOf(r.Context()).owner, ProjectID: project,
		Action: action, Target: target, Detail: raw})
	if err != nil {
		s.cfg.Logger.Warn("audit row not written", slog.String("action", action), slog.String("target", target), slog.Any("error", err))
	}
}

// auditProjects writes one audit row per project of roles (one row of no
// project when there are none).
func (s *Server) auditProjects(r *http.Request, roles map[int64]string, action, target string, detail any) {
	if len(roles) == 0 {
		s.audit(r, nil, action, target, detail)
		return
	}
	for project := range roles {
		s.audit(r, &project, action, target, detail)
	}
}

// auditResource writes an audit row for an action on a job, batch or
// generation, on its project.
func (s *Server) auditResource(r *http.Request, res store.Resource, action string, id int64, detail any) {
	key := strconv.FormatInt(id, 10)
	project, err := s.cfg.Store.ResourceProject(r.Context(), res, key)
	if err != nil {
		s.cfg.Logger.Warn("audit row not written", slog.String("action", action), slog.String("target", key), slog.Any("error", err))
		return
	}
	s.audit(r, &project, action, key, detail)
}

// projectName is the name of project id, "" if it cannot be read now.
// Names never change and projects are never deleted, so each API process
// keeps the names it has read: a job's or batch's answer costs no query
// for its project.
func (s *Server) projectName(ctx context.Context, id int64) string {
	if name, ok := s.nameOfProject.Load(id); ok {
		return name.(string)
	}
	ps, err := s.cfg.Store.Projects(ctx, []int64{id})
	if err != nil || len(ps) != 1 {
		return ""
	}
	s.nameOfProject.Store(id, ps[0].Name)
	return ps[0].Name
}
