package queue

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
)

func TestRedisOptReadsEveryURLForm(t *testing.T) {
	tls12 := func(name string) *tls.Config { return &tls.Config{ServerName: name, MinVersion: tls.VersionTLS12} }
	for _, c := range []struct {
		addr string
		db   int
		want asynq.RedisConnOpt
	}{
		{"127.0.0.1:6379", 3, asynq.RedisClientOpt{Addr: "127.0.0.1:6379", DB: 3}},
		{"redis://r.example:6380", 3, asynq.RedisClientOpt{Addr: "r.example:6380"}},
		{"redis://:s3cret@r.example:6380/2", 0, asynq.RedisClientOpt{Addr: "r.example:6380", Password: "s3cret", DB: 2}},
		{"redis://puzzled:s3cret@r.example:6380/", 0, asynq.RedisClientOpt{Addr: "r.example:6380", Username: "puzzled", Password: "s3cret"}},
		{"rediss://puzzled:pw@r.example:6380/1", 0, asynq.RedisClientOpt{Addr: "r.example:6380", Username: "puzzled", Password: "pw", DB: 1,
			TLSConfig: tls12("r.example")}},
		{"rediss://10.0.0.5:6380?tls_server_name=redis.internal", 0, asynq.RedisClientOpt{Addr: "10.0.0.5:6380",
			TLSConfig: tls12("redis.internal")}},
		{"redis-sentinel://app:pw@s1:26379,s2:26379/4?master=pz&sentinel_user=sen&sentinel_password=spw", 0,
			asynq.RedisFailoverClientOpt{MasterName: "pz", SentinelAddrs: []string{"s1:26379", "s2:26379"}, SentinelUsername: "sen",
				SentinelPassword: "spw", Username: "app", Password: "pw", DB: 4}},
		{"redis-sentinel://s1:26379?master=pz&tls=true", 0, asynq.RedisFailoverClientOpt{MasterName: "pz",
			SentinelAddrs: []string{"s1:26379"}, TLSConfig: tls12("s1")}},
		{"redis-socket:///run/redis.sock?db=2", 0, asynq.RedisClientOpt{Network: "unix", Addr: "/run/redis.sock", DB: 2}},
	} {
		t.Run(c.addr, func(t *testing.T) {
			got, err := RedisOpt(c.addr, c.db)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestRedisOptReadsTheCA(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, selfSigned(t), 0o600); err != nil {
		t.Fatal(err)
	}
	opt, err := RedisOpt("rediss://r.example:6380?tls_ca="+ca, 0)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := opt.(asynq.RedisClientOpt).TLSConfig; cfg == nil || cfg.RootCAs == nil || cfg.ServerName != "r.example" {
		t.Fatalf("TLS config %+v; want the CA's pool and the host's name", cfg)
	}
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := RedisOpt("rediss://r.example:6380?tls_ca="+notPEM, 0); err == nil || !strings.Contains(err.Error(), "no PEM") {
		t.Fatalf("a CA file without a certificate: %v", err)
	}
}

// Bad URLs are refused with a reason, and never with their password.
func TestRedisOptRefusesBadURLs(t *testing.T) {
	for _, c := range []struct{ addr, why string }{
		{"http://pw:s3cret@r.example:6379", "unknown scheme"},
		{"redis://:s3cret@r.example:6379/x", "DB index"},
		{"redis://:s3cret@r.example:6379?db=2", "path"},
		{"redis://:s3cret@r.example:6379?master=pz", "redis-sentinel"},
		{"redis://:s3cret@", "no host"},
		{"redis://:s3cret@r.example:6379?tls_ca=/nonexistent.pem&tls=true", "tls_ca"},
		{"redis://:s3cret@r.example:6379?timeout=3", "unknown parameter"},
		{"redis-sentinel://:s3cret@s1:26379", "master"},
		{"redis-sentinel://:s3cret@s1,s2:26379?master=pz", "host:port"},
		{"redis-sentinel://s1:26379?master=pz&sentinel_password=s3cret&tls_ca=/nonexistent.pem&tls=true", "tls_ca"},
	} {
		_, err := RedisOpt(c.addr, 0)
		if err == nil || !strings.Contains(err.Error(), c.why) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v; want an error about %q without the password", c.addr, err, c.why)
		}
	}
}

// selfSigned is a self-signed certificate in PEM, of no use but to be read.
func selfSigned(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "puzzled test CA"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
