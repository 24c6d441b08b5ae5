// Package redisha_test holds the tests of Redis as studios run it: behind
// Sentinel, with the master killed mid-batch, and over TLS as an ACL user,
// each against a real puzzled stack (serve and workers as processes) given
// the Redis URL an operator would write (queue.RedisOpt). Debian's
// redis-server and redis-sentinel run the servers; .ci/run installs them.
package redisha_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/internal/devstack"
	"github.com/puzzled/puzzled/internal/e2etest"
	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/internal/faults/faultstest"
	"github.com/puzzled/puzzled/internal/waittest"
)

func TestMain(m *testing.M) { os.Exit(envtest.Run(m)) }

const (
	redisServer   = "/usr/bin/redis-server"
	redisSentinel = "/usr/bin/redis-sentinel"
)

// Issue 30: a studio's Redis behind Sentinel. A master, a replica and
// three Sentinels (quorum 2); serve and two workers reach them through a
// redis-sentinel:// URL. Mid-batch the master is killed with -9: the
// Sentinels promote the replica, the processes follow it, and the batch
// ends with every job done once.
func TestSentinelFailoverMidBatch(t *testing.T) {
	for _, bin := range []string{redisServer, redisSentinel} {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("this test needs %s (apt-get install -y redis-server redis-sentinel; .ci/run does it): %v", bin, err)
		}
	}
	master := startRedis(t, redisServer, "master")
	replica := startRedis(t, redisServer, "replica", "replicaof 127.0.0.1 "+master.port)
	waittest.WaitFor(t, time.Minute, "the replica to sync", func() bool {
		info, err := replica.client.Info(t.Context(), "replication").Result()
		return err == nil && strings.Contains(info, "master_link_status:up")
	})
	var sentinels []*redisProc
	var addrs []string
	for i := range 3 {
		s := startRedis(t, redisSentinel, fmt.Sprintf("sentinel-%d", i+1),
			"sentinel monitor pz 127.0.0.1 "+master.port+" 2",
			"sentinel down-after-milliseconds pz 1000",
			"sentinel failover-timeout pz 10000")
		sentinels = append(sentinels, s)
		addrs = append(addrs, "127.0.0.1:"+s.port)
	}
	// A failover needs Sentinels that know each other and the replica:
	// they learn it from the master's hello channel within seconds.
	waittest.WaitFor(t, time.Minute, "the Sentinels to know each other and the replica", func() bool {
		for _, s := range sentinels {
			others, err1 := s.client.Do(t.Context(), "SENTINEL", "SENTINELS", "pz").Slice()
			replicas, err2 := s.client.Do(t.Context(), "SENTINEL", "REPLICAS", "pz").Slice()
			if err1 != nil || err2 != nil || len(others) != 2 || len(replicas) != 1 {
				return false
			}
		}
		return true
	})

	url := "redis-sentinel://" + strings.Join(addrs, ",") + "/0?master=pz"
	s := &e2etest.Stack{DatabaseURL: envtest.PostgresURL(t), RedisAddr: url,
		ExtraEnv: []string{"PUZZLED_BULK_PRIORITY=0", "PUZZLED_CONCURRENCY=2"}}
	s.Start(t)
	s.StartWorker(t)
	c := client.New(s.URL)
	const n, size = 300, 2000
	start := time.Now()
	base := faultstest.TwoendsBatchFrom(t, c, n, size, 0)
	faultstest.WaitDone(t, c, base, 1, 2*time.Minute)
	baseline := time.Since(start)

	start = time.Now()
	id := faultstest.TwoendsBatchFrom(t, c, n, size, n)
	faultstest.WaitDone(t, c, id, 0.3, 2*time.Minute)
	master.kill()
	killed := time.Now()
	// The batch must go on while the Sentinels fail over: a stall of a
	// minute (the dispatcher's stale check) would mean work lost with the
	// master.
	b := faultstest.WaitDone(t, c, id, 1, 45*time.Second)
	took := time.Since(start)
	faultstest.CheckOneResultEach(t, s.DatabaseURL, id, n)
	// The batch can end before the Sentinels have promoted the replica
	// (the workers' tasks in hand carry many jobs each; in a CI run the
	// batch was done while the old master was still named): wait for the
	// failover, not only look.
	var addr []string
	var err error
	waittest.WaitFor(t, 30*time.Second, "the Sentinels to name the replica master", func() bool {
		addr, err = sentinels[0].client.Do(t.Context(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "pz").StringSlice()
		return err == nil && len(addr) == 2 && addr[1] == replica.port
	})
	t.Logf("batch of %d: %s (no fault: %s, ratio %.2f); the master killed %s in, the batch done %s after it (done %.2f)",
		n, took.Round(100*time.Millisecond), baseline.Round(100*time.Millisecond), took.Seconds()/baseline.Seconds(),
		killed.Sub(start).Round(100*time.Millisecond), time.Since(killed).Round(100*time.Millisecond), b.Done)

	// And the stack works on the new master alone.
	after := faultstest.TwoendsBatchFrom(t, c, 50, size, 2*n)
	faultstest.WaitDone(t, c, after, 1, time.Minute)
	faultstest.CheckOneResultEach(t, s.DatabaseURL, after, 50)
}

// Issue 30: Redis over TLS with an ACL user, the default user off. serve
// and a worker reach it by a rediss:// URL naming the user, its password
// and the CA; a batch is done, and no process logs the password.
func TestRedisOverTLSAsAnACLUser(t *testing.T) {
	if _, err := os.Stat(redisServer); err != nil {
		t.Fatalf("this test needs %s (apt-get install -y redis-server; .ci/run does it): %v", redisServer, err)
	}
	dir := t.TempDir()
	ca, cert, key := tlsFiles(t, dir)
	const password = "s3cret-of-the-test"
	r := startRedis(t, redisServer, "tls",
		"tls-cert-file "+cert, "tls-key-file "+key, "tls-ca-cert-file "+ca, "tls-auth-clients no",
		"user default off", "user puzzled on >"+password+" ~* &* +@all")
	url := fmt.Sprintf("rediss://puzzled:%s@127.0.0.1:%s/0?tls_ca=%s", password, r.port, ca)
	s := &e2etest.Stack{DatabaseURL: envtest.PostgresURL(t), RedisAddr: url, ExtraEnv: []string{"PUZZLED_BULK_PRIORITY=0"}}
	s.Start(t)
	c := client.New(s.URL)
	id := faultstest.TwoendsBatch(t, c, 100, 500)
	faultstest.WaitDone(t, c, id, 1, time.Minute)
	faultstest.CheckOneResultEach(t, s.DatabaseURL, id, 100)
	for name, p := range map[string]*e2etest.Proc{"serve": s.Serve, "work": s.Work} {
		if strings.Contains(p.Output(), password) {
			t.Errorf("%s logged the Redis password", name)
		}
	}
	// Without the user's password the server refuses the client.
	plain := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + r.port, TLSConfig: r.tls})
	defer plain.Close()
	if err := plain.Ping(t.Context()).Err(); err == nil {
		t.Error("the default user reached Redis: the server does not require the ACL user (the test proves nothing)")
	}
}

// redisProc is a redis-server or redis-sentinel of the test's own on a
// free loopback port, killed at the end of the test.
type redisProc struct {
	port   string
	cmd    *exec.Cmd
	client *redis.Client // to the test: as the default user, or TLS as the ACL user
	tls    *tls.Config
	exited <-chan struct{} // closed when the server has exited
}

// startRedis runs bin with a configuration file of conf's lines, on a free
// port: a TLS port when conf names a certificate (the plain port off).
// Another process may take the port between its pick and the server's
// bind; the server then exits saying so, and another port is tried
// (devstack.OnFreePort).
func startRedis(t *testing.T, bin, name string, conf ...string) *redisProc {
	t.Helper()
	var r *redisProc
	err := devstack.OnFreePort(func(port int) error {
		var taken bool
		r, taken = tryStartRedis(t, bin, name, strconv.Itoa(port), conf...)
		if taken {
			return fmt.Errorf("%w: %s on port %d", devstack.ErrPortInUse, name, port)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// tryStartRedis is startRedis on port; taken when the server exited
// because the port was taken.
func tryStartRedis(t *testing.T, bin, name, port string, conf ...string) (r *redisProc, taken bool) {
	t.Helper()
	dir := t.TempDir()
	r = &redisProc{port: port}
	lines := []string{"bind 127.0.0.1", "dir " + dir, `save ""`, "appendonly no", "logfile " + filepath.Join(dir, "log")}
	opts := &redis.Options{Addr: "127.0.0.1:" + port, DisableIdentity: true}
	tlsOn := false
	for _, l := range conf {
		if strings.HasPrefix(l, "tls-ca-cert-file ") {
			tlsOn = true
			pool := x509.NewCertPool()
			pem, err := os.ReadFile(strings.TrimPrefix(l, "tls-ca-cert-file "))
			if err != nil || !pool.AppendCertsFromPEM(pem) {
				t.Fatalf("CA: %v", err)
			}
			r.tls = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
		}
		if strings.HasPrefix(l, "user puzzled on >") {
			opts.Username, opts.Password = "puzzled", strings.Fields(strings.TrimPrefix(l, "user puzzled on >"))[0]
		}
	}
	if tlsOn {
		lines = append(lines, "port 0", "tls-port "+port)
		opts.TLSConfig = r.tls
	} else {
		lines = append(lines, "port "+port)
	}
	lines = append(lines, conf...)
	file := filepath.Join(dir, name+".conf")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(bin, file)
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() { _ = r.cmd.Wait(); close(exited) }()
	r.exited = exited
	readLog := func() string {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		return string(log)
	}
	r.client = redis.NewClient(opts)
	t.Cleanup(func() {
		r.client.Close()
		r.kill()
		if t.Failed() {
			t.Logf("%s's log:\n%s", name, readLog())
		}
	})
	// An answer on the port counts only while our server still runs:
	// another one may hold the port it could not bind.
	waittest.WaitFor(t, 30*time.Second, name+" to answer", func() bool {
		err := r.client.Ping(t.Context()).Err()
		select {
		case <-exited:
			if taken = strings.Contains(readLog(), "Address already in use"); !taken {
				t.Fatalf("%s exited at start", name)
			}
			return true
		default:
		}
		return err == nil
	})
	return r, taken
}

// kill ends the server with SIGKILL, as a machine that dies would.
func (r *redisProc) kill() {
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	<-r.exited
}

// tlsFiles writes a CA and a server certificate for 127.0.0.1 signed by
// it, and returns their paths (CA, certificate, key).
func tlsFiles(t *testing.T, dir string) (ca, cert, key string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "puzzled test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caTmpl, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	return write("ca.pem", "CERTIFICATE", caDER), write("redis.pem", "CERTIFICATE", srvDER), write("redis.key", "EC PRIVATE KEY", keyDER)
}
