#!/usr/bin/env bash
# bench-partitions.sh measures the two ways old jobs can leave PostgreSQL
# (issue 31, docs/service.md "Not partitioned: measured"), on a stand-in of the jobs
# table in a scratch database: the same columns, and the indexes the
# collector and the hot paths use.
#
#   rows:       one table; the collector deletes a day's jobs in
#               transactions of 500, then VACUUM makes the space
#               reusable (what puzzled does);
#   partitions: jobs LIST-partitioned on kept (the jobs kept for their
#               level's result: a row moves there, keeping its id, when
#               its day is collected), the others RANGE-partitioned on id
#               (ids grow with time; a partition holds about a day), so
#               that a lookup by id is pruned to one partition of each
#               side; the collector moves a day's kept jobs out, detaches
#               the day's partition concurrently and drops it.
#
# Both receive the same days of jobs (per-day a day, a share of them kept). For
# each collected day it prints the collector's time and WAL (rows: with the
# VACUUM after it; less the WAL of the inserts beside it, at their rate
# alone), and the p50/p99 of single-row inserts (a POST's write)
# made by pgbench while the collector ran, against the same inserts with no
# collector. At the end: each layout's size, and the hot path of a worker
# (select and update of a job by id, prepared statements as pgx makes
# them) in transactions per second, the layouts alternated; partitions
# also with plan_cache_mode = force_custom_plan (planned at every call,
# pruned to the partitions the id can be in).
#
# It uses the PostgreSQL at $PGHOST (default 127.0.0.1:5432, trust auth,
# user postgres) and a scratch database it drops at the end.
#
#   scripts/bench-partitions.sh [days] [per-day] [retain] [workdir]
#                               (default 12 days of 34,000 jobs, 7 kept)
set -euo pipefail
days=${1:-12}
perday=${2:-34000}
retain=${3:-7}
work=${4:-$(mktemp -d)}
db=bench_partitions
export PGHOST=${PGHOST:-127.0.0.1} PGUSER=${PGUSER:-postgres}
psql=(psql -X -q -v ON_ERROR_STOP=1 -d "$db")
keep_pct=12 # bench-retention kept about this share of a day's jobs for their level's result

dropdb --if-exists "$db"
createdb "$db"
trap 'dropdb --if-exists "$db"' EXIT

cols="id bigint NOT NULL, batch_id bigint, seq integer, level_hash text NOT NULL, kind text NOT NULL,
	state text NOT NULL, priority text NOT NULL, labels jsonb, attempts integer NOT NULL DEFAULT 0,
	created_at timestamptz NOT NULL, finished_at timestamptz, verdict text, worker_id text,
	project_id bigint NOT NULL DEFAULT 1, kept boolean NOT NULL DEFAULT false"
"${psql[@]}" <<SQL
CREATE SEQUENCE post_ids START 100000000; -- the inserts made beside the collector
CREATE TABLE jobs_rows ($cols, PRIMARY KEY (id));
CREATE UNIQUE INDEX ON jobs_rows (batch_id, seq) WHERE batch_id IS NOT NULL;
CREATE INDEX ON jobs_rows (created_at, id);
CREATE INDEX ON jobs_rows USING hash (level_hash);
CREATE INDEX ON jobs_rows (verdict, created_at, id) WHERE verdict IS NOT NULL;

-- The partition key is part of every unique index: (batch_id, seq) can no
-- longer be enforced across partitions, and id only by its sequence.
CREATE TABLE jobs_parts ($cols, PRIMARY KEY (id, kept)) PARTITION BY LIST (kept);
CREATE TABLE jobs_parts_kept PARTITION OF jobs_parts FOR VALUES IN (true);
CREATE TABLE jobs_parts_days PARTITION OF jobs_parts FOR VALUES IN (false) PARTITION BY RANGE (id);
-- Today's partition, where the inserts made beside the collector go.
CREATE TABLE jobs_parts_today PARTITION OF jobs_parts_days FOR VALUES FROM (100000000) TO (MAXVALUE);
CREATE INDEX ON jobs_parts (batch_id, seq) WHERE batch_id IS NOT NULL;
CREATE INDEX ON jobs_parts (created_at, id);
CREATE INDEX ON jobs_parts USING hash (level_hash);
CREATE INDEX ON jobs_parts (verdict, created_at, id) WHERE verdict IS NOT NULL;
SQL

# load_day D: day D's jobs into both layouts (partitions: a new one for
# its ids), batches of 1,000 with the day's timestamps.
load_day() {
	local d=$1 first=$(( $1 * perday + 1 )) last=$(( ($1 + 1) * perday ))
	"${psql[@]}" <<SQL
CREATE TABLE jobs_parts_day$d PARTITION OF jobs_parts_days FOR VALUES FROM ($first) TO ($(( last + 1 )));
INSERT INTO jobs_rows (id, batch_id, seq, level_hash, kind, state, priority, labels, attempts, created_at, finished_at, verdict, worker_id)
SELECT i, i / 1000, i % 1000, md5(i::text) || md5((i * 7)::text), 'sheep', 'done', 'bulk',
	jsonb_build_object('designer', 'd' || i % 17, 'pack', 'p' || i % 5), 1,
	timestamptz '2026-01-01' + ($d || ' days')::interval + (i - $first) * interval '86400 seconds' / $perday,
	timestamptz '2026-01-01' + ($d || ' days')::interval + (i - $first) * interval '86400 seconds' / $perday + interval '3 seconds',
	(ARRAY['solved', 'solved', 'solved', 'unsolvable', 'unknown'])[1 + i % 5], 'w' || i % 4
FROM generate_series($first, $last) i;
INSERT INTO jobs_parts SELECT * FROM jobs_rows WHERE id BETWEEN $first AND $last;
SQL
}

wal() { "${psql[@]}" -At -c "SELECT pg_current_wal_lsn()"; }
walsince() { "${psql[@]}" -At -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$1')"; }

# The inserts a POST makes, one row a transaction, while something else
# runs: pgbench logs every transaction's latency.
cat >"$work/insert.sql" <<'SQL'
\set n random(1, 1000000000)
INSERT INTO jobs_rows (id, level_hash, kind, state, priority, created_at, kept) VALUES (nextval('post_ids'), md5(:n::text), 'sheep', 'queued', 'interactive', now(), false);
SQL
sed 's/jobs_rows/jobs_parts/' "$work/insert.sql" >"$work/insert_parts.sql"

# percentiles LOGPREFIX: p50 and p99 of the logged latencies, ms.
percentiles() {
	cat "$1".* | awk '{print $3/1000}' | sort -n | awk '{a[NR]=$1} END {if (NR) printf "%.2f / %.2f ms (%d)", a[int(NR*0.5)+1], a[int(NR*0.99)+1], NR; else printf "none"}'
	rm -f "$1".*
}

# during SCRIPT CMD...: runs CMD while pgbench inserts (2 clients, runs
# of a second one after another until CMD ends), then the same inserts for
# as many seconds with nothing beside them. It sets secs (CMD's time) and
# wal (CMD's WAL: all of it, less the inserts' at their rate alone).
during() {
	local script=$1; shift
	local t0 w0 w1 n
	w0=$(wal)
	t0=$(date +%s.%N)
	"$@" >/dev/null &
	local pid=$!
	while kill -0 $pid 2>/dev/null; do
		pgbench -n -c 2 -T 1 -f "$script" --log --log-prefix="$work/with" "$db" >/dev/null 2>&1
	done
	wait $pid
	secs=$(echo "$(date +%s.%N) - $t0" | bc)
	w1=$(wal)
	pgbench -n -c 2 -T "$(printf '%.0f' "$(echo "$secs + 0.5" | bc)")" -f "$script" --log --log-prefix="$work/without" "$db" >/dev/null 2>&1
	local per_insert=$(( $(walsince "$w1") / $(cat "$work"/without.* | wc -l) ))
	n=$(cat "$work"/with.* 2>/dev/null | wc -l)
	wal=$(( $("${psql[@]}" -At -c "SELECT pg_wal_lsn_diff('$w1', '$w0')") - n * per_insert ))
}

gc_rows() {
	local cutoff=$1 n
	while :; do
		n=$("${psql[@]}" -At -c "WITH d AS (DELETE FROM jobs_rows WHERE id IN (
			SELECT id FROM jobs_rows WHERE created_at < '$cutoff' AND NOT kept AND id < 100000000 ORDER BY created_at, id LIMIT 500) RETURNING 1)
			SELECT count(*) FROM d")
		[ "$n" -lt 500 ] && break
	done
	"${psql[@]}" -c "VACUUM jobs_rows"
}

gc_parts() {
	local d=$1
	"${psql[@]}" -c "UPDATE jobs_parts SET kept = true WHERE id BETWEEN $(( d * perday + 1 )) AND $(( (d + 1) * perday )) AND NOT kept AND id % 100 < $keep_pct"
	# DETACH … CONCURRENTLY takes no lock that stops the other sessions
	# (a plain DROP of a partition locks its parent's whole tree).
	"${psql[@]}" -c "ALTER TABLE jobs_parts_days DETACH PARTITION jobs_parts_day$d CONCURRENTLY"
	"${psql[@]}" -c "DROP TABLE jobs_parts_day$d"
}

echo "bench-partitions: $days days of $perday jobs, retention $retain days, $keep_pct % of a day kept for its result"
printf '| day collected | layout | collector s | collector WAL MB | inserts beside it p50 / p99 (n) | inserts alone p50 / p99 (n) |\n|---|---|---|---|---|---|\n'
for d in $(seq 0 $(( days - 1 ))); do
	load_day "$d"
	gone=$(( d - retain ))
	[ "$gone" -lt 0 ] && continue
	# the rows layout marks the same kept jobs (the real collector finds
	# them by a query both layouts would need)
	"${psql[@]}" -c "UPDATE jobs_rows SET kept = true WHERE id BETWEEN $(( gone * perday + 1 )) AND $(( (gone + 1) * perday )) AND id % 100 < $keep_pct"
	"${psql[@]}" -c "CHECKPOINT"
	cutoff=$(date -u -d "2026-01-01 + $(( gone + 1 )) days" +%F)
	during "$work/insert.sql" gc_rows "$cutoff"
	printf '| %d | rows | %.2f | %.1f | %s | %s |\n' "$gone" "$secs" "$(echo "$wal / 1048576" | bc -l)" "$(percentiles "$work/with")" "$(percentiles "$work/without")"
	"${psql[@]}" -c "CHECKPOINT"
	during "$work/insert_parts.sql" gc_parts "$gone"
	printf '| %d | partitions | %.2f | %.1f | %s | %s |\n' "$gone" "$secs" "$(echo "$wal / 1048576" | bc -l)" "$(percentiles "$work/with")" "$(percentiles "$work/without")"
done

# What the inserts beside the collector left is not part of either layout's
# days (and the two got different numbers of them).
"${psql[@]}" -c "DELETE FROM jobs_rows WHERE id >= 100000000" -c "DELETE FROM jobs_parts WHERE id >= 100000000"
"${psql[@]}" -c "VACUUM ANALYZE"
echo
echo "size: rows $("${psql[@]}" -At -c "SELECT pg_size_pretty(pg_total_relation_size('jobs_rows'))"), partitions $("${psql[@]}" -At -c "SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM pg_partition_tree('jobs_parts') p JOIN pg_class c ON c.oid = p.relid WHERE p.isleaf")"
echo "rows: $("${psql[@]}" -At -c "SELECT count(*) || ' (' || count(*) FILTER (WHERE kept) || ' kept)' FROM jobs_rows"), partitions: $("${psql[@]}" -At -c "SELECT count(*) || ' (' || count(*) FILTER (WHERE kept) || ' kept)' FROM jobs_parts"), $("${psql[@]}" -At -c "SELECT count(*) FROM pg_partition_tree('jobs_parts') WHERE isleaf") leaf partitions"

# The worker's hot path on a job: read it by id, update it by id.
lo=$(( (days - retain) * perday + 1 )) # the days still held whole
hi=$(( days * perday ))
for layout in rows parts; do
	cat >"$work/hot_$layout.sql" <<SQL
\\set id random($lo, $hi)
SELECT state, verdict, labels FROM jobs_$layout WHERE id = :id;
UPDATE jobs_$layout SET attempts = attempts + 1 WHERE id = :id;
SQL
done
echo
echo "hot path (select and update by id, -M prepared, 2 clients, 15 s each, alternated;"
echo "partitions with PostgreSQL's choice of plan, and with a custom plan every time):"
for round in 1 2 3; do
	for layout in rows parts parts-custom; do
		script=$work/hot_${layout%-custom}.sql opts=
		[ "$layout" = parts-custom ] && opts='-c plan_cache_mode=force_custom_plan'
		tps=$(PGOPTIONS=$opts pgbench -n -M prepared -c 2 -T 15 -f "$script" "$db" 2>/dev/null | sed -n 's/^tps = \([0-9]*\).*/\1/p')
		echo "  round $round $layout: $tps tps"
	done
done
