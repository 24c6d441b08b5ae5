package devstack

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// account is the unprivileged user a server runs as when we are root.
type account struct {
	name   string
	uid    uint32
	gid    uint32
	groups []uint32
}

// resolveAccount returns nil when the current process is not root (the
// servers then run as the current user), else the first of names that exists,
// falling back to "nobody". A non-empty override is used alone.
func resolveAccount(override string, names ...string) (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if override != "" {
		names = []string{override}
	} else {
		names = append(names, "nobody")
	}
	var lastErr error
	for _, name := range names {
		a, err := lookupAccount(name)
		if err == nil {
			return a, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("devstack: running as root and no unprivileged user to run the servers as (tried %v): %w", names, lastErr)
}

func lookupAccount(name string) (*account, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("look up user %q: %w", name, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %q: uid %q: %w", name, u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %q: gid %q: %w", name, u.Gid, err)
	}
	if uid == 0 {
		return nil, fmt.Errorf("user %q is root", name)
	}
	a := &account{name: name, uid: uint32(uid), gid: uint32(gid)}
	ids, err := u.GroupIds()
	if err == nil {
		for _, id := range ids {
			if g, err := strconv.ParseUint(id, 10, 32); err == nil {
				a.groups = append(a.groups, uint32(g))
			}
		}
	}
	return a, nil
}

// credential is what SysProcAttr.Credential gets; nil for the current user.
func (a *account) credential() *syscall.Credential {
	if a == nil {
		return nil
	}
	return &syscall.Credential{Uid: a.uid, Gid: a.gid, Groups: a.groups}
}

// String names the user for messages.
func (a *account) String() string {
	if a == nil {
		return "the current user"
	}
	return fmt.Sprintf("%q (uid %d)", a.name, a.uid)
}

// prepareDir creates dir (mode 0700) when missing, hands it and everything in
// it to a, and checks that a can reach it through every parent folder.
func prepareDir(dir string, a *account) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("devstack: create data folder %s: %w", dir, err)
	}
	if a == nil {
		return nil
	}
	if err := chownTree(dir, a, false); err != nil {
		return err
	}
	return checkReachable(dir, a)
}

// chownTree hands dir and its content to a; unless all is set, only when
// dir itself does not belong to a yet. It is a no-op for the current user.
func chownTree(dir string, a *account, all bool) error {
	if a == nil {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("devstack: stat %s: %w", dir, err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == a.uid && st.Gid == a.gid && !all {
		return nil
	}
	err = filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(a.uid), int(a.gid))
	})
	if err != nil {
		return fmt.Errorf("devstack: hand data folder %s to user %s: %w", dir, a, err)
	}
	return nil
}

// checkReachable fails with ErrDirUnreachable when a lacks search permission
// on any parent of dir.
func checkReachable(dir string, a *account) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("devstack: stat %s: %w", p, err)
		}
		if !a.canSearch(fi) {
			return fmt.Errorf("%w: %s cannot be reached by user %s because %s (mode %v) does not let that user through; "+
				"run `chmod o+x %s` or choose a data folder outside it (for example under /tmp or /var/lib)",
				ErrDirUnreachable, dir, a, p, fi.Mode().Perm(), p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// canSearch reports whether a may traverse the directory described by fi.
func (a *account) canSearch(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	perm := fi.Mode().Perm()
	switch {
	case st.Uid == a.uid:
		return perm&0o100 != 0
	case st.Gid == a.gid || slices.Contains(a.groups, st.Gid):
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}
