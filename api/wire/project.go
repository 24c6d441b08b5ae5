package wire

import (
	"encoding/json"
	"time"
)

// Project is a project (GET /v1/projects, POST /v1/projects, PATCH
// /v1/projects/{project}).
type Project struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	// BulkWeight sets its share of the workers' bulk work against the
	// other projects with bulk work waiting (1 to 1000); BulkCap is the
	// most bulk tasks it may have in flight (0: no cap).
	BulkWeight int `json:"bulk_weight"`
	BulkCap    int `json:"bulk_cap,omitempty"`
	// RetentionHours is how long its final jobs are kept after they end
	// (0: forever); KeepResults keeps, past it, the job holding each
	// level's newest definitive result.
	RetentionHours int  `json:"retention_hours"`
	KeepResults    bool `json:"keep_results"`
}

// ProjectRequest is the body of POST /v1/projects; a share field left out
// is the default (weight 1, no cap).
type ProjectRequest struct {
	Name string `json:"name"`
	ProjectShare
}

// ProjectShare is the body of PATCH /v1/projects/{project}: a field left
// out keeps its value.
type ProjectShare struct {
	BulkWeight     *int  `json:"bulk_weight,omitempty"`
	BulkCap        *int  `json:"bulk_cap,omitempty"`
	RetentionHours *int  `json:"retention_hours,omitempty"`
	KeepResults    *bool `json:"keep_results,omitempty"`
}

// ProjectList is GET /v1/projects: the projects the token reads.
type ProjectList struct {
	Items []Project `json:"items"`
}

// TokenRole is a token's role on one project.
type TokenRole struct {
	Project string `json:"project"`
	Role    string `json:"role"` // read, submit or admin
}

// TokenRequest is the body of POST /v1/tokens. Without projects (an
// operator only) the token is an operator's; ReadOnly then makes it read
// every project.
type TokenRequest struct {
	Name     string      `json:"name"`
	Projects []TokenRole `json:"projects,omitempty"`
	ReadOnly bool        `json:"read_only,omitempty"`
}

// Token is a stored token; Token (the secret) only in the answer to its
// creation.
type Token struct {
	ID       int64       `json:"id"`
	Name     string      `json:"name"`
	Operator bool        `json:"operator"`
	ReadOnly bool        `json:"read_only,omitempty"`
	Projects []TokenRole `json:"projects"`
	// CreatedBy is who created it through the API ("token:<id>",
	// "static:<name>"); empty for `puzzled token create`.
	CreatedBy string     `json:"created_by,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	Token     string     `json:"token,omitempty"`
}

// TokenList is GET /v1/tokens.
type TokenList struct {
	Items []Token `json:"items"`
}

// AuditEntry is one row of GET /v1/audit.
type AuditEntry struct {
	ID      int64           `json:"id"`
	At      time.Time       `json:"at"`
	Actor   string          `json:"actor"`
	Project string          `json:"project,omitempty"`
	Action  string          `json:"action"`
	Target  string          `json:"target,omitempty"`
	Detail  json.RawMessage `json:"detail,omitempty"`
}
