package queue

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/hibiken/asynq"
)

// RedisOpt turns --redis-addr and --redis-db into asynq's connection
// options. The address is "host:port" (with db as the DB index) or a URL
// (docs/service.md, "Redis URLs"):
//
//	redis://[user[:password]@]host:port[/db]
//	rediss://[user[:password]@]host:port[/db][?tls_ca=ca.pem&tls_server_name=name]
//	redis-sentinel://[user[:password]@]host:port[,host:port…][/db]?master=name
//		[&sentinel_user=u&sentinel_password=p][&tls=true&tls_ca=…&tls_server_name=…]
//	redis-socket://[:password@]/path/to/redis.sock[?db=n]
//
// A URL names its own DB (0 when it names none); db is then ignored. The
// user and password of a URL are the data server's (an ACL user, or the
// password of requirepass); a Sentinel's own credentials, when it asks
// for any, are the query's sentinel_user and sentinel_password. asynq's
// own ParseRedisURI reads no ACL user, no CA and, for Sentinel, no DB.
func RedisOpt(addr string, db int) (asynq.RedisConnOpt, error) {
	if !strings.Contains(addr, "://") {
		return asynq.RedisClientOpt{Addr: addr, DB: db}, nil
	}
	opt, err := parseRedisURL(addr)
	if err != nil {
		return nil, fmt.Errorf("queue: redis address %s: %w", redactURL(addr), err)
	}
	return opt, nil
}

func parseRedisURL(raw string) (asynq.RedisConnOpt, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("not a URL") // url's error repeats the password
	}
	q := u.Query()
	for k := range q {
		switch k {
		case "master", "sentinel_user", "sentinel_password", "tls", "tls_ca", "tls_server_name", "db":
		default:
			return nil, fmt.Errorf("unknown parameter %q", k)
		}
	}
	if q.Has("db") && u.Scheme != "redis-socket" {
		return nil, errors.New("the DB index is the URL's path (/1), not ?db=")
	}
	user := u.User.Username()
	password, _ := u.User.Password()
	switch u.Scheme {
	case "redis", "rediss":
		if q.Has("master") || q.Has("sentinel_user") || q.Has("sentinel_password") {
			return nil, errors.New("master and sentinel_* belong to redis-sentinel:// URLs")
		}
		db, err := pathDB(u.Path)
		if err != nil {
			return nil, err
		}
		if u.Host == "" {
			return nil, errors.New("no host:port")
		}
		opt := asynq.RedisClientOpt{Addr: u.Host, Username: user, Password: password, DB: db}
		if u.Scheme == "rediss" || q.Get("tls") == "true" {
			if opt.TLSConfig, err = tlsConfig(q, u.Host); err != nil {
				return nil, err
			}
		}
		return opt, nil
	case "redis-sentinel":
		master := q.Get("master")
		if master == "" {
			return nil, errors.New("redis-sentinel:// needs ?master=<name>, the name the Sentinels monitor")
		}
		db, err := pathDB(u.Path)
		if err != nil {
			return nil, err
		}
		var addrs []string
		for _, a := range strings.Split(u.Host, ",") {
			if _, _, err := net.SplitHostPort(a); err != nil {
				return nil, fmt.Errorf("sentinel address %q: want host:port", a)
			}
			addrs = append(addrs, a)
		}
		opt := asynq.RedisFailoverClientOpt{MasterName: master, SentinelAddrs: addrs,
			SentinelUsername: q.Get("sentinel_user"), SentinelPassword: q.Get("sentinel_password"),
			Username: user, Password: password, DB: db}
		if q.Get("tls") == "true" {
			if opt.TLSConfig, err = tlsConfig(q, addrs[0]); err != nil {
				return nil, err
			}
		}
		return opt, nil
	case "redis-socket":
		return asynq.ParseRedisURI(raw)
	}
	return nil, fmt.Errorf("unknown scheme %q (want redis, rediss, redis-sentinel or redis-socket)", u.Scheme)
}

// pathDB is the DB index a URL's path names ("" or "/": 0).
func pathDB(path string) (int, error) {
	p := strings.Trim(path, "/")
	if p == "" {
		return 0, nil
	}
	db, err := strconv.Atoi(p)
	if err != nil || db < 0 {
		return 0, fmt.Errorf("path %q: want the DB index, /0 to /15", path)
	}
	return db, nil
}

// tlsConfig is the TLS of a URL's query: the system's roots, or the PEM
// file tls_ca; the server's name is tls_server_name, or host's.
func tlsConfig(q url.Values, host string) (*tls.Config, error) {
	name := q.Get("tls_server_name")
	if name == "" {
		name, _, _ = net.SplitHostPort(host)
	}
	cfg := &tls.Config{ServerName: name, MinVersion: tls.VersionTLS12}
	if path := q.Get("tls_ca"); path != "" {
		pem, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("tls_ca: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls_ca %s: no PEM certificate in it", path)
		}
	}
	return cfg, nil
}

// redactURL is raw with its passwords hidden, for errors and logs.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	q := u.Query()
	if q.Has("sentinel_password") {
		q.Set("sentinel_password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
