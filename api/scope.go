package api

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/puzzled/puzzled/store"
)

// Projects and roles (docs/service.md, "Projects and tokens"). A token
// has a role per project, read < submit < admin; an operator has admin on
// every project and manages projects and tokens. A resource of a project
// the caller cannot read answers 404, the same answer as a missing one; a
// role too low on a project it can read answers 403.

// role is what a token may do on one project.
type role int

const (
	roleNone   role = iota
	roleRead        // read its resources
	roleSubmit      // and create and cancel them
	roleAdmin       // and manage its tokens, read its audit
)

var roleNames = []string{roleRead: "read", roleSubmit: "submit", roleAdmin: "admin"}

func (r role) String() string {
	if r <= roleNone || int(r) >= len(roleNames) {
		return "none"
	}
	return roleNames[r]
}

// roleNamed is the role of a name ("read", "submit", "admin"), or roleNone.
func roleNamed(name string) role {
	if i := slices.Index(roleNames, name); i > 0 {
		return role(i)
	}
	return roleNone
}

// role is p's role on a project.
func (p principal) role(project int64) role {
	switch {
	case p.operator:
		return roleAdmin
	case p.readAll:
		return roleRead
	}
	return p.roles[project]
}

// projectsWith returns the ids of the projects on which p has at least
// r, sorted; nil means every project (an operator, or readAll for read).
func (p principal) projectsWith(r role) []int64 {
	if p.operator || (p.readAll && r <= roleRead) {
		return nil
	}
	ids := []int64{}
	for id, have := range p.roles {
		if have >= r {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// readable is projectsWith(roleRead): what lists and stats show.
func (p principal) readable() []int64 { return p.projectsWith(roleRead) }

// hasAny reports whether p has at least r on some project.
func (p principal) hasAny(r role) bool {
	ids := p.projectsWith(r)
	return ids == nil || len(ids) > 0
}

// scopeError is a refusal of the scope checks: its status and message.
type scopeError struct {
	status int
	msg    string
	field  string
}

func (e *scopeError) Error() string { return e.msg }

func writeScopeError(w http.ResponseWriter, e *scopeError) {
	writeError(w, e.status, e.msg, e.field)
}

// forbidden is the 403 of a role too low on a project the caller reads.
func forbidden(need role) *scopeError {
	return &scopeError{status: http.StatusForbidden, msg: "this token's role on the project is below " + need.String()}
}

// checkResource answers whether p may act on a resource of project with
// role need: nil, a 404 worded as a missing resource when p cannot read
// the project, or a 403.
func checkResource(p principal, project int64, need role, res store.Resource, key string) error {
	have := p.role(project)
	if have < roleRead {
		return store.NotFound(res, key)
	}
	if have < need {
		return forbidden(need)
	}
	return nil
}

// requestProject resolves the project a create goes to: the one named
// (the body's "project", or ?project=), else the token's only project,
// else 'default' when the token has a role there; and checks that p has
// need on it. A project p cannot read answers 404 as a missing one.
func (s *Server) requestProject(r *http.Request, named string, need role) (int64, error) {
	ctx, p := r.Context(), principalOf(r.Context())
	if named == "" {
		named = r.URL.Query().Get("project")
	}
	var id int64
	switch {
	case named != "":
		pr, err := s.cfg.Store.ProjectByName(ctx, named)
		if errors.Is(err, store.ErrNotFound) || (err == nil && p.role(pr.ID) < roleRead) {
			return 0, &scopeError{status: http.StatusNotFound, msg: fmt.Sprintf("project %q: not found", named), field: "project"}
		}
		if err != nil {
			return 0, err
		}
		id = pr.ID
	case !p.operator && !p.readAll && len(p.roles) == 1:
		for only := range p.roles {
			id = only
		}
	case p.role(store.DefaultProject) >= roleRead:
		id = store.DefaultProject
	default:
		return 0, &scopeError{status: http.StatusBadRequest, field: "project",
			msg: "project: name the project (\"project\" in the body or ?project=); this token has several"}
	}
	if p.role(id) < need {
		return 0, forbidden(need)
	}
	return id, nil
}

// need is what a route asks of the caller (guard).
type need struct {
	role role // on the resource's project, or else on some project
	// res, when set, is what the path's {id} names: the caller needs
	// role on its project, and one it cannot read answers 404.
	res store.Resource
	// level: the path's {hash} is a level that a job of a project the
	// caller reads must have, or it answers 404.
	level    bool
	operator bool // only an operator
	rate     bool // a submission: within the rate limit
}

var (
	needRead   = need{role: roleRead}
	needSubmit = need{role: roleSubmit, rate: true}
	needAdmin  = need{role: roleAdmin}
)

func readOf(res store.Resource) need   { return need{role: roleRead, res: res} }
func submitOn(res store.Resource) need { return need{role: roleSubmit, res: res} }

// checkScope applies n to an authenticated request: it answers (and
// returns false) a refusal or a lookup that failed. A resource of a
// project the caller cannot read must answer exactly as a missing one:
// what a handler checks before its lookup (?wait=) is checked here first.
func (s *Server) checkScope(w http.ResponseWriter, r *http.Request, p principal, n need) bool {
	switch {
	case n.operator && !p.operator:
		writeError(w, http.StatusForbidden, "only an operator's token may do this", "")
		return false
	case !p.hasAny(n.role):
		// Whatever the resource: this says nothing of any project's.
		writeError(w, http.StatusForbidden, "this token's role is below "+n.role.String()+" on every project", "")
		return false
	case n.res != "" && p.projectsWith(n.role) != nil:
		// A token with the role on every project (an operator) needs no
		// lookup: the handler finds the resource or answers 404 itself,
		// and a long poll or an interactive job's page costs no extra
		// round trip.
		key := r.PathValue("id")
		if n.res == store.ResWebhookEvent && len(key) > 64 {
			return true // the handler answers that no such event exists
		}
		if n.res != store.ResWebhookEvent {
			id, ok := pathID(w, r)
			if !ok {
				return false
			}
			key = fmt.Sprint(id)
		}
		if _, ok := parseWait(w, r); !ok {
			return false
		}
		project, err := s.cfg.Store.ResourceProject(r.Context(), n.res, key)
		if err == nil {
			err = checkResource(p, project, n.role, n.res, key)
		}
		return s.scopeAnswered(w, r, err)
	case n.level:
		hash := r.PathValue("hash")
		projects := p.readable()
		if projects == nil || !hexHash.MatchString(hash) {
			return true // the handler answers
		}
		ok, err := s.cfg.Store.LevelVisible(r.Context(), hash, projects)
		if err == nil && !ok {
			err = store.NotFound("level", hash)
		}
		return s.scopeAnswered(w, r, err)
	}
	return true
}

// scopeAnswered answers err, if any, and reports whether there was none.
func (s *Server) scopeAnswered(w http.ResponseWriter, r *http.Request, err error) bool {
	var se *scopeError
	switch {
	case err == nil:
		return true
	case errors.As(err, &se):
		writeScopeError(w, se)
	default:
		s.writeStoreError(w, r, err)
	}
	return false
}
