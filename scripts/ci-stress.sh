#!/usr/bin/env bash
# Shakes the test suite as a busy CI machine would: every package twice
# (-count=2), two packages at once (-p 2), and CPU-bound processes beside
# it the whole time (HOGS, default 2: one per core of our CI machines).
# A test that depends on how busy the machine is fails here first.
#
#   scripts/ci-stress.sh                  # the whole suite
#   scripts/ci-stress.sh ./worker/...     # some packages
#   HOGS=4 COUNT=3 scripts/ci-stress.sh   # harder
#
# It uses the machine's PostgreSQL and Redis as .ci/run does (start them
# first, e.g. by running .ci/run once); set EMBEDDED=1 to let the tests
# start their own servers instead.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

hogs=${HOGS:-2}
count=${COUNT:-2}
# -count runs each package's tests that many times in one binary, and go
# test's timeout (10m by default) is for the whole binary: raise it with
# the count, so that a slow package fails by its tests, not by the clock.
timeout=${TIMEOUT:-$((count * 15))m}
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)

if [ "${EMBEDDED:-0}" != 1 ]; then
  export PUZZLED_TEST_DATABASE_URL="${PUZZLED_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}"
  export PUZZLED_TEST_REDIS_ADDR="${PUZZLED_TEST_REDIS_ADDR:-127.0.0.1:6379}"
else
  unset PUZZLED_TEST_DATABASE_URL PUZZLED_TEST_REDIS_ADDR
fi

pids=()
stop_hogs() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap stop_hogs EXIT
for _ in $(seq "$hogs"); do
  # A pure CPU loop at normal priority, as another job on the machine.
  bash -c 'while :; do :; done' &
  pids+=($!)
done

echo "ci-stress: $hogs CPU hogs, go test -count=$count -p 2 -timeout $timeout ${pkgs[*]}"
start=$(date +%s)
status=0
go test -count="$count" -p 2 -timeout "$timeout" "${pkgs[@]}" || status=$?
echo "ci-stress: exit $status after $(( $(date +%s) - start )) s"
exit "$status"
