#!/usr/bin/env bash
# bench-pgbouncer.sh measures puzzled through PgBouncer in transaction mode
# against PostgreSQL directly, alternated in one run (issue 30): `puzzled
# bench` (throughput of a batch, its PostgreSQL CPU and WAL per job) and the
# latency phase of `puzzled bench-query` (submit-to-done of interactive jobs;
# its "finished→answered" part is the long-poll's wake-up, which through the
# pooler rests on the LISTEN of --direct-database-url).
#
# It uses the PostgreSQL at $PGHOST (default 127.0.0.1:5432, trust auth, user
# postgres), Redis DB 13 at $REDIS (default 127.0.0.1:6379), a fresh scratch
# database for every run (dropped at the end), and a PgBouncer of its own on
# port 16432 with 20 server connections (Debian's pgbouncer package).
#
#   scripts/bench-pgbouncer.sh [rounds] [workdir]     (default 2 rounds)
#   ONLY=bench scripts/bench-pgbouncer.sh 4             (or ONLY=bench-query)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
work=${2:-$(mktemp -d)}
pghost=${PGHOST:-127.0.0.1}
redis=${REDIS:-127.0.0.1:6379}
port=16432
mkdir -p "$work"
chmod 755 "$work" # pgbouncer runs as postgres and reads its files here
go build -o "$work/puzzled" ./cmd/puzzled

cat >"$work/pgbouncer.ini" <<EOF
[databases]
* = host=$pghost port=5432 user=postgres
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $work/users.txt
pool_mode = transaction
default_pool_size = 20
max_client_conn = 1000
EOF
echo '"postgres" ""' >"$work/users.txt"
chmod 644 "$work/pgbouncer.ini" "$work/users.txt"
# pgbouncer refuses to run as root.
setpriv --reuid=postgres --regid=postgres --clear-groups /usr/sbin/pgbouncer "$work/pgbouncer.ini" 2>"$work/pgbouncer.log" &
bouncer=$!
dbs=()
cleanup() {
	kill -INT "$bouncer" 2>/dev/null && wait "$bouncer" 2>/dev/null || true
	for db in "${dbs[@]}"; do dropdb -h "$pghost" -U postgres --force --if-exists "$db" 2>/dev/null || true; done
}
trap cleanup EXIT
trap "exit 130" INT TERM
for i in $(seq 150); do # up to 30 s for pgbouncer to answer
	psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -Atc 'select 1' >/dev/null 2>&1 && break
	kill -0 "$bouncer" 2>/dev/null || { cat "$work/pgbouncer.log"; exit 1; }
	sleep 0.2
done

# server_cpu prints the CPU ticks (user+system, with ended children: a
# postmaster's backends) of every postgres and pgbouncer process.
server_cpu() {
	{ cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk '{
		match($0, /\(.*\)/); comm = substr($0, RSTART + 1, RLENGTH - 2)
		split(substr($0, RSTART + RLENGTH + 1), f, " ")
		if (comm == "postgres" || comm == "pgbouncer") t[comm] += f[12] + f[13] + f[14] + f[15]
	} END { print t["postgres"] + 0, t["pgbouncer"] + 0 }'
}

# cpu_since <server_cpu output>: the seconds each server used since.
cpu_since() {
	local hz
	hz=$(getconf CLK_TCK)
	read -r pg0 pgb0 <<<"$1"
	read -r pg1 pgb1 < <(server_cpu)
	awk -v a=$((pg1 - pg0)) -v b=$((pgb1 - pgb0)) -v hz="$hz" 'BEGIN { printf "PostgreSQL %.1f s, PgBouncer %.1f s\n", a / hz, b / hz }'
}

# run <direct|pooled> <n> <command> <args...>: on a fresh database.
run() {
	local mode=$1 n=$2 cmd=$3
	shift 3
	local db=puzzled_pgb_${cmd//-/_}_${mode}_$n
	dbs+=("$db")
	createdb -h "$pghost" -U postgres "$db"
	# Workers commit asynchronously (docs/service.md, "PostgreSQL is the
	# truth"): directly by a startup parameter, behind the pooler by their
	# role's setting, as docs/service.md tells operators. The bench runs
	# serve and work in one process on one URL, so the database's setting
	# stands for the role's, in both modes alike: only the pooler differs.
	psql -h "$pghost" -U postgres -d postgres -qc "ALTER DATABASE $db SET synchronous_commit = off"
	local direct="postgres://postgres@$pghost:5432/$db?sslmode=disable"
	local urls=(--database-url "$direct")
	if [[ $mode == pooled ]]; then
		urls=(--database-url "postgres://postgres@127.0.0.1:$port/$db?sslmode=disable"
			--database-pooler transaction --direct-database-url "$direct")
	fi
	echo "== $cmd $mode $n"
	local before
	before=$(server_cpu)
	"$work/puzzled" "$cmd" "${urls[@]}" --redis-addr "$redis" --redis-db 13 "$@" 2>&1 | tee "$work/$cmd-$mode-$n.txt"
	# puzzled prints its own CPU; the servers' is read here (whole run).
	echo "server CPU, whole run: $(cpu_since "$before")" | tee -a "$work/$cmd-$mode-$n.txt"
	dropdb -h "$pghost" -U postgres --force "$db"
}

[[ ${ONLY:-bench} != bench ]] || for n in $(seq "$rounds"); do
	for mode in direct pooled; do
		run "$mode" "$n" bench --jobs 20000 --batch 20000 --backlog 0
	done
done
[[ ${ONLY:-bench-query} != bench-query ]] || for n in $(seq "$rounds"); do
	for mode in direct pooled; do
		run "$mode" "$n" bench-query --jobs 10000 --queries 10 --reports 2 --report-batch 0 --latency 100 --bulk 0
	done
done
echo "outputs in $work"
