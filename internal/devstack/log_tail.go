package devstack

import (
	"bufio"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// logTailLines is how many of the last log lines a server keeps for errors.
const logTailLines = 40

// logTail keeps the last lines a child process wrote and forwards every line
// to a logger at debug level.
type logTail struct {
	mu    sync.Mutex
	lines []string
	done  chan struct{}
}

// newLogTail reads r line by line until EOF in a goroutine of its own.
func newLogTail(r io.ReadCloser, logger *slog.Logger, name string) *logTail {
	t := &logTail{done: make(chan struct{})}
	go func() {
		defer close(t.done)
		defer r.Close()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			line := sc.Text()
			t.add(line)
			logger.Debug(line, slog.String("server", name))
		}
	}()
	return t
}

func (t *logTail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > logTailLines {
		t.lines = t.lines[len(t.lines)-logTailLines:]
	}
}

// String returns the kept lines, one per line.
func (t *logTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// contains reports whether any kept line contains s.
func (t *logTail) contains(s string) bool {
	return strings.Contains(t.String(), s)
}

// tailOrNone is the kept log, or a note that there is none yet.
func tailOrNone(t *logTail) string {
	if s := t.String(); s != "" {
		return s
	}
	return "(no output yet)"
}
