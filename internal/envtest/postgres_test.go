package envtest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func TestPostgresURLParallelTestsGetDistinctEmptyDatabases(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]string{}
	for i := range 6 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			conn := connect(t, PostgresURL(t))
			ctx := context.Background()
			var name string
			var tables int
			err := conn.QueryRow(ctx, `SELECT current_database(),
				(SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public')`).Scan(&name, &tables)
			if err != nil {
				t.Fatal(err)
			}
			if tables != 0 {
				t.Errorf("database %s has %d tables, want an empty one", name, tables)
			}
			// Same table name in every test: no clash when databases differ.
			if _, err := conn.Exec(ctx, "CREATE TABLE jobs (id int PRIMARY KEY)"); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if other, dup := seen[name]; dup {
				t.Errorf("database %s given to both %s and %s", name, other, t.Name())
			}
			seen[name] = t.Name()
		})
	}
}

func TestPostgresURLDroppedAtCleanupEvenWithOpenConnections(t *testing.T) {
	t.Parallel()
	var name string
	t.Run("holder", func(t *testing.T) {
		conn, err := pgx.Connect(context.Background(), PostgresURL(t))
		if err != nil {
			t.Fatal(err)
		}
		// Deliberately left open: DROP ... WITH (FORCE) must end it.
		if err := conn.QueryRow(context.Background(), "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
	})
	admin, err := adminURL()
	if err != nil {
		t.Fatal(err)
	}
	var exists bool
	err = connect(t, admin).QueryRow(context.Background(),
		"SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Errorf("database %s still exists after its test ended", name)
	}
}

func TestDatabaseName(t *testing.T) {
	t.Parallel()
	a := databaseName("TestX/sub test#1 with a very long name that goes on and on and on")
	b := databaseName("TestX/sub test#1 with a very long name that goes on and on and on")
	if a == b {
		t.Errorf("names not unique: %s", a)
	}
	if len(a) > 63 || strings.Trim(a, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		t.Errorf("bad name %q", a)
	}
}

func TestWithDatabase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ admin, want string }{
		{"postgres://u:p@h:5/postgres?sslmode=disable", "postgres://u:p@h:5/db1?sslmode=disable"},
		{"postgresql://h", "postgresql://h/db1"},
		{"host=h port=5 dbname=postgres", "host=h port=5 dbname=postgres dbname=db1"},
	} {
		got, err := withDatabase(tc.admin, "db1")
		if err != nil || got != tc.want {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", tc.admin, got, err, tc.want)
		}
		if _, err := pgx.ParseConfig(got); err != nil {
			t.Errorf("pgx cannot parse %q: %v", got, err)
		}
	}
}
