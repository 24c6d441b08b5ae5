package e2etest

import (
	"fmt"
	"testing"
	"time"

	"github.com/puzzled/puzzled/internal/envtest"
)

// Stack is a running `puzzled serve` and `puzzled work` pair.
type Stack struct {
	URL         string // API base URL
	Serve, Work *Proc
	DatabaseURL string
	RedisAddr   string
	RedisDB     int
	ExtraEnv    []string
}

// StartStack starts serve + work on a database and Redis DB of the test's
// own on the shared test servers (see envtest).
func StartStack(t *testing.T, extraEnv ...string) *Stack {
	t.Helper()
	s := &Stack{DatabaseURL: envtest.PostgresURL(t), ExtraEnv: extraEnv}
	s.RedisAddr, s.RedisDB = envtest.RedisAddr(t)
	s.Start(t)
	return s
}

// Env is the environment the stack's processes run with.
func (s *Stack) Env() []string {
	return append([]string{
		"PUZZLED_DATABASE_URL=" + s.DatabaseURL,
		"PUZZLED_REDIS_ADDR=" + s.RedisAddr,
		fmt.Sprintf("PUZZLED_REDIS_DB=%d", s.RedisDB),
		"PUZZLED_HTTP_ADDR=127.0.0.1:0",
	}, s.ExtraEnv...)
}

// Start starts serve and one worker on the stack's servers.
func (s *Stack) Start(t *testing.T) {
	t.Helper()
	s.Serve = Start(t, s.Env(), "serve")
	s.URL = "http://" + s.Serve.WaitLog("api listening", 60*time.Second)["addr"].(string)
	s.Work = s.StartWorker(t)
}

// StartWorker starts one more `puzzled work`.
func (s *Stack) StartWorker(t *testing.T) *Proc {
	t.Helper()
	w := Start(t, s.Env(), "work")
	w.WaitLog("worker started", 60*time.Second)
	return w
}
