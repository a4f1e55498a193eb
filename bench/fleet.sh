#!/usr/bin/env bash
# Larder as a fleet, broken under load (docs/performance.md, "A fleet under
# faults"): a PostgreSQL cluster of its own, the deployment kit's PgBouncer
# (transaction pooling, --db-statements 0) and HAProxy (/readyz checks) in
# front of three `larder serve`, a separate `larder webhook worker` and a
# local receiver, all on loopback. It checks the shared rate budget, then
# runs a mixed load while it SIGKILLs a server, stops the worker for 30 s,
# restarts PgBouncer and stops PostgreSQL for 10 s, and exits 1 unless no
# acknowledged write was lost, every answer was 2xx, 4xx or 503, and every
# event reached the receiver. About 3 minutes.
#
# Needs Debian's haproxy and pgbouncer (apt-get install -y haproxy pgbouncer;
# their services may stay stopped) and PostgreSQL 15's programs; run as root
# (the cluster and PgBouncer run as postgres) or as postgres.
#
# Parameters (environment): PORT=27400 (the first of seven loopback ports),
# STEADY=10s (load between faults), WORKERS=8, RESULTS (directory).
set -euo pipefail
PORT=${PORT:-27400}
STEADY=${STEADY:-10s}
WORKERS=${WORKERS:-8}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-fleet.XXXXXX)}
cd "$(dirname "$0")/.."
for p in haproxy pgbouncer; do
	command -v "$p" >/dev/null || { echo "fleet: $p is not installed (apt-get install -y haproxy pgbouncer)" >&2; exit 2; }
done
mkdir -p "$RESULTS/bin"
# PostgreSQL and PgBouncer, run as postgres, reach their files under it.
chmod 755 "$RESULTS"
go build -o "$RESULTS/bin/larder" ./cmd/larder
go build -o "$RESULTS/bin/fleet" ./bench/fleet
"$RESULTS/bin/fleet" -dir "$RESULTS/run" -larder "$RESULTS/bin/larder" -kit deploy \
	-port "$PORT" -steady "$STEADY" -c "$WORKERS" -json "$RESULTS/report.json" | tee "$RESULTS/report.txt"
