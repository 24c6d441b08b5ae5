package main

import (
	"github.com/puzzled/puzzled/solver/twoends"

	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// devBanner is what `puzzled dev` prints once it is up: how to call the API
// (with the Authorization header when tokens are on) and how to reach the
// embedded servers with the password kept in dir.
type devBanner struct {
	apiURL        string
	dir           string
	tokensOn      bool
	postgresPort  int
	redisPort     int
	redisInMemory bool
}

func (b devBanner) print(w io.Writer) {
	auth := ""
	if b.tokensOn {
		auth = `-H "Authorization: Bearer $TOKEN" `
	}
	fmt.Fprintf(w, "puzzled dev is running: API at %s (data in %s)\n", b.apiURL, b.dir)
	if b.tokensOn {
		fmt.Fprintln(w, `API tokens are required: set TOKEN to one of PUZZLED_API_TOKENS or one made with "puzzled token create" (below).`)
	}
	fmt.Fprintf(w, "Open %s/ in a browser for the workbench, or try:\n", b.apiURL)
	fmt.Fprintf(w, "  curl -s %s-H 'Content-Type: application/json' -X POST %s/v1/jobs -d '{\"kind\":%q,\"values\":[3,1,2]}'\n", auth, b.apiURL, twoends.Name)
	fmt.Fprintf(w, "  curl -s %s%s/v1/jobs/1/solution\n", auth, b.apiURL)

	pwFile := shellQuote(filepath.Join(b.dir, passwordFile))
	pw := `"$(cat ` + pwFile + `)"`
	fmt.Fprintf(w, "Embedded servers (127.0.0.1 only; password in %s, mode 0600):\n", pwFile)
	fmt.Fprintf(w, "  psql:        PGPASSWORD=%s psql -h 127.0.0.1 -p %d -U postgres puzzled\n", pw, b.postgresPort)
	if b.redisInMemory {
		fmt.Fprintf(w, "  redis-cli:   REDISCLI_AUTH=%s redis-cli -p %d   (in-process Redis: redis-server is not installed)\n", pw, b.redisPort)
	} else {
		fmt.Fprintf(w, "  redis-cli:   REDISCLI_AUTH=%s redis-cli -p %d\n", pw, b.redisPort)
	}
	fmt.Fprintf(w, "  API token:   PUZZLED_DATABASE_URL=\"postgres://postgres:$(cat %s)@127.0.0.1:%d/puzzled?sslmode=disable\" puzzled token create --name NAME\n",
		pwFile, b.postgresPort)
	fmt.Fprintln(w, "Press Ctrl-C to stop.")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
