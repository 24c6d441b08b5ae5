#!/usr/bin/env bash
# api-memory.sh measures the API's peak RSS (VmHWM) while it accepts a valid
# ~500 MB batch and while it refuses four ~600 MB bodies at once (issue 13).
# It uses a scratch database (puzzled_h13api) on the PostgreSQL at
# $PGHOST (default 127.0.0.1) and Redis DB 14 at $REDIS (default
# 127.0.0.1:6379), and cleans up after itself.
#
#   scripts/api-memory.sh [workdir]     (ONLY_REFUSED=1: skip the valid batch)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
pghost=${PGHOST:-127.0.0.1}
db=puzzled_h13api
port=18089
mkdir -p "$work"
go build -o "$work/puzzled" ./cmd/puzzled

createdb -h "$pghost" -U postgres "$db"
cleanup() {
	[[ -n ${pid:-} ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	dropdb -h "$pghost" -U postgres --if-exists "$db" || true
	rm -f "$work"/*.ndjson
}
trap cleanup EXIT
trap "exit 130" INT TERM # run cleanup on a signal too

start() {
	PUZZLED_DATABASE_URL="postgres://postgres@$pghost:5432/$db?sslmode=disable" \
		PUZZLED_REDIS_ADDR=${REDIS:-127.0.0.1:6379} PUZZLED_REDIS_DB=14 PUZZLED_HTTP_ADDR=127.0.0.1:$port \
		"$work/puzzled" serve 2>"$work/serve.log" &
	pid=$!
	until curl -sf "127.0.0.1:$port/healthz" >/dev/null; do sleep 0.2; done
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
hwm() { awk '/VmHWM/ {printf "%.0f MB", $2/1024}' "/proc/$pid/status"; }

# ~5 KB twoends levels, all distinct: 100,000 of them are ~500 MB.
[[ -n ${ONLY_REFUSED:-} ]] || python3 - "$work/valid.ndjson" <<'PY'
import random, sys
r = random.Random(13)
tails = [",".join(str(r.randrange(10**6)) for _ in range(720)) for _ in range(64)]
with open(sys.argv[1], "w") as f:
    for i in range(100_000):  # the first value makes each level distinct
        f.write('{"kind":"twoends","values":[%d,%s]}\n' % (i, tails[i % 64]))
PY
# ~600 MB of ~7 KB levels: the 512 MiB body limit is hit before the
# 100,000-level cap.
python3 - "$work/big.ndjson" <<'PY'
import sys
line = '{"kind":"twoends","values":[' + ",".join(["123456"] * 1000) + "]}\n"
with open(sys.argv[1], "w") as f:
    f.write(line * (600_000_000 // len(line)))
PY

if [[ -z ${ONLY_REFUSED:-} ]]; then
start
echo "valid batch: $(stat -c %s "$work/valid.ndjson") bytes"
t0=$(date +%s.%N)
curl -s -X POST -T "$work/valid.ndjson" -H 'Content-Type: application/x-ndjson' "127.0.0.1:$port/v1/batches"
t1=$(date +%s.%N)
echo "accepted in $(echo "$t1 - $t0" | bc) s; API peak RSS $(hwm)"
stop
fi

start
echo "four 600 MB bodies at once (the issue's command: 600 MB of 3-value levels)"
for i in 1 2 3 4; do
	yes '{"kind":"twoends","values":[1,2,3]}' | head -c 600000000 |
		curl -s -o "$work/small$i.out" -w "%{http_code} " -X POST -T - -H 'Content-Type: application/x-ndjson' "127.0.0.1:$port/v1/batches" &
done
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
echo; echo "API peak RSS $(hwm)"
stop

start
echo "four 600 MB bodies of 7 KB levels at once, streamed (chunked: no Content-Length to refuse early)"
t0=$(date +%s.%N)
for i in 1 2 3 4; do
	cat "$work/big.ndjson" | curl -s -o "$work/big$i.out" -w "%{http_code} " -X POST -T - -H 'Content-Type: application/x-ndjson' "127.0.0.1:$port/v1/batches" &
done
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
t1=$(date +%s.%N)
echo; echo "refused in $(echo "$t1 - $t0" | bc) s; API peak RSS $(hwm)"
cat "$work/big1.out"
stop
