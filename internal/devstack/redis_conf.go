package devstack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// redisConfFile is the configuration file, in the server's folder, that
// carries what must not appear on the command line (the password).
const redisConfFile = "puzzled-redis.conf"

// writeConf writes the configuration file with the password, mode 0600 and
// owned by the server user, and returns its path; "" when no password is set.
func (r *Redis) writeConf() (string, error) {
	if r.cfg.Password == "" {
		return "", nil
	}
	if strings.ContainsAny(r.cfg.Password, "\"\\\r\n") {
		return "", fmt.Errorf("devstack: redis password must not contain quotes, backslashes or line breaks")
	}
	path := filepath.Join(r.cfg.Dir, redisConfFile)
	content := "# Written by puzzled at every start; do not edit.\nrequirepass \"" + r.cfg.Password + "\"\n"
	if err := writePrivateFile(path, []byte(content), r.runAs); err != nil {
		return "", fmt.Errorf("devstack: redis configuration: %w", err)
	}
	return path, nil
}

// writePrivateFile replaces path with data, mode 0600, owned by a (the
// current user when nil).
func writePrivateFile(path string, data []byte, a *account) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o600); err != nil { // an earlier tmp may have had another mode
		return err
	}
	if a != nil {
		if err := os.Chown(tmp, int(a.uid), int(a.gid)); err != nil {
			return err
		}
	}
	return os.Rename(tmp, path)
}

// redisVersionRE finds the major version in `redis-server --version`
// ("Redis server v=7.0.15 sha=…").
var redisVersionRE = regexp.MustCompile(`v=(\d+)\.`)

// redisMajorVersion is the major version of binary, 0 when unknown.
func redisMajorVersion(binary string) int {
	out, err := exec.Command(binary, "--version").Output()
	if err != nil {
		return 0
	}
	m := redisVersionRE.FindSubmatch(out)
	if m == nil {
		return 0
	}
	v, _ := strconv.Atoi(string(m[1]))
	return v
}
