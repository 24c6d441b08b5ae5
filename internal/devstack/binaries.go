package devstack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// pgBinaries are the PostgreSQL server programs devstack runs.
type pgBinaries struct {
	initdb   string
	postgres string
}

// pgInstallHint tells the user how to get PostgreSQL server binaries.
const pgInstallHint = "install the PostgreSQL server (Debian/Ubuntu: `apt-get install postgresql`, " +
	"macOS: `brew install postgresql`), put its bin folder on PATH, or set PostgresConfig.BinDir; " +
	"alternatively point puzzled at an existing server (PUZZLED_TEST_DATABASE_URL for tests). " +
	"Downloading binaries (embedded-postgres style) is not supported"

// findPostgres looks for initdb and postgres in binDir when set, else on PATH,
// then in /usr/lib/postgresql/*/bin (newest version first), then in
// `pg_config --bindir`.
func findPostgres(binDir string) (pgBinaries, error) {
	sources := []func() []string{pathPostgresDirs, debianPostgresDirs, pgConfigDirs}
	if binDir != "" {
		sources = []func() []string{func() []string { return []string{binDir} }}
	}
	var tried []string
	for _, source := range sources {
		for _, dir := range source() {
			b := pgBinaries{initdb: filepath.Join(dir, "initdb"), postgres: filepath.Join(dir, "postgres")}
			if isExecutable(b.initdb) && isExecutable(b.postgres) {
				return b, nil
			}
			tried = append(tried, dir)
		}
	}
	if len(tried) == 0 {
		tried = []string{"PATH", "/usr/lib/postgresql/*/bin", "pg_config --bindir"}
	}
	return pgBinaries{}, fmt.Errorf("%w: initdb and postgres not found in %s; %s",
		ErrBinaryNotFound, strings.Join(tried, ", "), pgInstallHint)
}

// pathPostgresDirs are the folders of postgres and initdb on PATH.
func pathPostgresDirs() []string {
	var dirs []string
	for _, name := range []string{"postgres", "initdb"} {
		if p, err := exec.LookPath(name); err == nil {
			dirs = append(dirs, filepath.Dir(p))
		}
	}
	return dirs
}

// pgConfigDirs is what `pg_config --bindir` names.
func pgConfigDirs() []string {
	out, err := exec.Command("pg_config", "--bindir").Output()
	if err != nil {
		return nil
	}
	return []string{strings.TrimSpace(string(out))}
}

// debianPostgresDirs returns /usr/lib/postgresql/<version>/bin, newest first.
func debianPostgresDirs() []string {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(dir string) float64 {
		v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
		return v
	}
	sort.Slice(matches, func(i, j int) bool { return version(matches[i]) > version(matches[j]) })
	return matches
}

// isExecutable reports whether path is a regular file with an execute bit.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// findRedisServer returns path when set, else redis-server from PATH or the
// usual install folders; "" when it is not installed.
func findRedisServer(path string) string {
	if path != "" {
		return path
	}
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/bin/redis-server", "/usr/local/bin/redis-server", "/opt/homebrew/bin/redis-server"} {
		if isExecutable(p) {
			return p
		}
	}
	return ""
}
