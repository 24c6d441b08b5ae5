package envtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// adminTimeout bounds each CREATE / DROP DATABASE.
const adminTimeout = 60 * time.Second

// PostgresURL returns the URL of a new, empty database of this test alone. It
// is dropped WITH (FORCE) at cleanup, so open connections do not block that.
// The server is PUZZLED_TEST_DATABASE_URL's, else the embedded one.
func PostgresURL(t testing.TB) string {
	t.Helper()
	admin, err := adminURL()
	if err != nil {
		t.Fatalf("envtest: PostgreSQL: %v", err)
	}
	name := databaseName(t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
	defer cancel()
	if err := createDatabase(ctx, admin, name); err != nil {
		t.Fatalf("envtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
		defer cancel()
		if err := dropDatabase(ctx, admin, name); err != nil {
			// Not the test's failure: PostgreSQL 15 makes every DROP
			// DATABASE wait for a checkpoint, which on a loaded machine
			// took over a minute. Run tries again when the tests are done.
			t.Logf("envtest: %v; left for the end of the test binary", err)
			shared.leaveDatabase(admin, name)
		}
	})
	u, err := withDatabase(admin, name)
	if err != nil {
		t.Fatalf("envtest: %v", err)
	}
	return u
}

// externalCheck verifies PUZZLED_TEST_DATABASE_URL once per test binary.
var externalCheck struct {
	once sync.Once
	err  error
}

// adminURL is the URL the databases are created through.
func adminURL() (string, error) {
	if u := os.Getenv(EnvDatabaseURL); u != "" {
		externalCheck.once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := ping(ctx, u); err != nil {
				externalCheck.err = fmt.Errorf("%s is set but its server cannot be used: %w", EnvDatabaseURL, err)
			}
		})
		return u, externalCheck.err
	}
	pg, err := shared.postgres()
	if err != nil {
		return "", err
	}
	return pg.URLFor("postgres"), nil
}

func ping(ctx context.Context, u string) error {
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

// databaseName is a unique, valid database name that shows the test's name.
func databaseName(testName string) string {
	var b strings.Builder
	b.WriteString("test_")
	for _, r := range strings.ToLower(testName) {
		if b.Len() >= 40 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	var suffix [5]byte
	_, _ = rand.Read(suffix[:])
	b.WriteByte('_')
	b.WriteString(hex.EncodeToString(suffix[:]))
	return b.String()
}

// createDatabase creates name, retrying while the template database is busy.
func createDatabase(ctx context.Context, admin, name string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect to the admin database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for {
		_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "55006" { // object_in_use: template1 busy
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("create database %s: %w", name, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// dropDatabase drops name, ending the sessions still connected to it.
func dropDatabase(ctx context.Context, admin, name string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect to the admin database to drop %s: %w", name, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// withDatabase returns admin pointed at database name; admin is a URL
// (postgres://...) or a keyword/value connection string.
func withDatabase(admin, name string) (string, error) {
	if !strings.Contains(admin, "://") {
		return admin + " dbname=" + name, nil
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", EnvDatabaseURL, err)
	}
	u.Path, u.RawPath = "/"+name, ""
	return u.String(), nil
}
