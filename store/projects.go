package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Projects (migrations/00034_projects.sql). Every batch, job and
// generation belongs to one project; reads that a caller's token limits
// take the project ids it may read (a nil slice: every project).

// DefaultProject is the id of the project 'default', which holds
// everything created before projects existed and what a request names no
// project for.
const DefaultProject int64 = 1

// ErrExists is returned when a name is taken.
var ErrExists = errors.New("already exists")

// Project is a project.
type Project struct {
	ID        int64
	Name      string
	CreatedAt time.Time
	// Share is its share of the workers' bulk work (queue/admit.go).
	Share Share
	// Retention is how long it keeps final jobs (retention.go).
	Retention Retention
}

// Share is a project's share of bulk work: its weight against the other
// projects with bulk work waiting, and the most bulk tasks it may have in
// flight (0: no cap).
type Share struct {
	Weight int
	Cap    int
}

// MaxWeight is the largest weight a project may have.
const MaxWeight = 1000

// SetShare sets project id's share; ErrNotFound if there is no such project.
func (s *Store) SetShare(ctx context.Context, id int64, sh Share) error {
	tag, err := s.pool.Exec(ctx, `UPDATE projects SET bulk_weight = $2, bulk_cap = nullif($3, 0) WHERE id = $1`,
		id, sh.Weight, sh.Cap)
	if err != nil {
		return fmt.Errorf("store: set share: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return NotFound("project", fmt.Sprint(id))
	}
	return nil
}

// CreateProject stores a new project; a taken name is ErrExists.
func (s *Store) CreateProject(ctx context.Context, name string) (Project, error) {
	p := Project{Name: name}
	err := s.pool.QueryRow(ctx, `INSERT INTO projects (name) VALUES ($1)
		RETURNING id, created_at, bulk_weight, coalesce(bulk_cap, 0), coalesce(extract(epoch FROM retain)::bigint, 0), NOT keep_results`, name).
		Scan(&p.ID, &p.CreatedAt, &p.Share.Weight, &p.Share.Cap, (*seconds)(&p.Retention.Keep), &p.Retention.DropResults)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return Project{}, fmt.Errorf("project %q: %w", name, ErrExists)
	}
	if err != nil {
		return Project{}, fmt.Errorf("store: create project: %w", err)
	}
	return p, nil
}

// Projects lists the projects among ids (nil: all), by id.
func (s *Store) Projects(ctx context.Context, ids []int64) ([]Project, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, name, created_at, bulk_weight, coalesce(bulk_cap, 0), coalesce(extract(epoch FROM retain)::bigint, 0), NOT keep_results FROM projects
		WHERE $1::bigint[] IS NULL OR id = ANY ($1) ORDER BY id`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: projects: %w", err)
	}
	ps, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Project, error) {
		var p Project
		err := row.Scan(&p.ID, &p.Name, &p.CreatedAt, &p.Share.Weight, &p.Share.Cap, (*seconds)(&p.Retention.Keep), &p.Retention.DropResults)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: projects: %w", err)
	}
	return ps, nil
}

// ProjectByName returns the project of that name, or ErrNotFound.
func (s *Store) ProjectByName(ctx context.Context, name string) (Project, error) {
	var p Project
	err := s.pool.QueryRow(ctx, `SELECT id, name, created_at, bulk_weight, coalesce(bulk_cap, 0), coalesce(extract(epoch FROM retain)::bigint, 0), NOT keep_results FROM projects
		WHERE name = $1`, name).Scan(&p.ID, &p.Name, &p.CreatedAt, &p.Share.Weight, &p.Share.Cap, (*seconds)(&p.Retention.Keep), &p.Retention.DropResults)
	if errors.Is(err, pgx.ErrNoRows) {
		return Project{}, fmt.Errorf("project %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return Project{}, fmt.Errorf("store: project: %w", err)
	}
	return p, nil
}

// Resource names what a project-owned id is the id of.
type Resource string

// The resources whose project ResourceProject finds.
const (
	ResJob          Resource = "job"
	ResBatch        Resource = "batch"
	ResGeneration   Resource = "generation"
	ResWebhookEvent Resource = "webhook event"
)

// ResourceProject returns the project of a job, batch, generation or
// webhook event (key is its id), or ErrNotFound, worded as the resource's
// own lookup words it ("job 7: not found").
func (s *Store) ResourceProject(ctx context.Context, res Resource, key string) (int64, error) {
	var q string
	switch res {
	case ResJob:
		q = `SELECT project_id FROM jobs WHERE id = $1::bigint`
	case ResBatch:
		q = `SELECT project_id FROM batches WHERE id = $1::bigint`
	case ResGeneration:
		q = `SELECT project_id FROM generations WHERE id = $1::bigint`
	case ResWebhookEvent:
		q = `SELECT coalesce(b.project_id, j.project_id) FROM webhook_events e
			JOIN webhooks h ON h.id = e.webhook_id
			LEFT JOIN batches b ON b.id = h.batch_id
			LEFT JOIN jobs j ON j.id = h.job_id
			WHERE e.id = $1`
	default:
		return 0, fmt.Errorf("store: resource project: unknown resource %q", res)
	}
	var project int64
	err := s.pool.QueryRow(ctx, q, key).Scan(&project)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, NotFound(res, key)
	}
	if err != nil {
		return 0, fmt.Errorf("store: %s project: %w", res, err)
	}
	return project, nil
}

// NotFound is the error of a missing resource, the same whether it does
// not exist or the caller may not see it.
func NotFound(res Resource, key string) error {
	return fmt.Errorf("%s %s: %w", res, key, ErrNotFound)
}

// LevelVisible reports whether a job of one of the projects has the level
// (one probe of the hash index jobs_level). A nil projects sees every stored level.
func (s *Store) LevelVisible(ctx context.Context, hash string, projects []int64) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT CASE WHEN $2::bigint[] IS NULL
		THEN EXISTS (SELECT 1 FROM levels WHERE hash = $1)
		ELSE EXISTS (SELECT 1 FROM jobs WHERE level_hash = $1 AND project_id = ANY ($2)) END`, hash, projects).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("store: level visible: %w", err)
	}
	return ok, nil
}
