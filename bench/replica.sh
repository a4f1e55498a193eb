#!/usr/bin/env bash
# List throughput with streaming replicas: a PostgreSQL primary of its own
# (initdb in a temp dir) and two replicas made from it with pg_basebackup,
# all on this machine; `larder serve` over the primary alone, with one
# replica (--replica-database) and with two (the flag repeated), each under
# the same closed-loop GET load on a product list (bench/load), interleaved
# round by round. Prints requests per second and latency of each. Where
# each read goes is proved by the tests (go test ./handlers -run
# TestReplicaReads), not here. Run as root (the servers run as postgres) or
# as the postgres user.
#
# Parameters (environment):
#   PORT0=28500   the primary's port; the replicas' PORT0+1 and PORT0+2, Larder's PORT0+10
#   COPIES=200    catalog copies seeded into the measured account
#   DURATION=10   measured seconds of each run; CONC=16 workers; ROUNDS=2 rounds
#   RESULTS=dir   where the clusters, logs and results go (default: a new /tmp dir)
set -euo pipefail

PORT0=${PORT0:-28500}
COPIES=${COPIES:-200}
DURATION=${DURATION:-10}
CONC=${CONC:-16}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-replica.XXXXXX)}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
cd "$(dirname "$0")/.."
BIN=$(dirname "$(command -v pg_ctl)")
as_pg() { if [[ $(id -un) == postgres ]]; then bash -c "$1"; else su postgres -c "$1"; fi; }
chown postgres "$RESULTS" 2>/dev/null || true

go build -o "$RESULTS/larder" ./cmd/larder
go build -o "$RESULTS/load" ./bench/load
L=$RESULTS/larder
P=$PORT0 R=$((PORT0 + 1)) R2=$((PORT0 + 2)) A=$((PORT0 + 10))
PRIMARY="postgres://postgres@127.0.0.1:$P/postgres?sslmode=disable"
REPLICA="postgres://postgres@127.0.0.1:$R/postgres?sslmode=disable"
REPLICA2="postgres://postgres@127.0.0.1:$R2/postgres?sslmode=disable"

as_pg "$BIN/initdb -D $RESULTS/primary -A trust -U postgres >/dev/null"
as_pg "echo 'host replication all 127.0.0.1/32 trust' >> $RESULTS/primary/pg_hba.conf"
as_pg "$BIN/pg_ctl -D $RESULTS/primary -o '-p $P -k $RESULTS' -l $RESULTS/primary.log -w start >/dev/null"
trap 'for d in replica replica2 primary; do as_pg "$BIN/pg_ctl -D $RESULTS/$d -m fast stop" >/dev/null 2>&1 || true; done' EXIT
as_pg "pg_basebackup -h 127.0.0.1 -p $P -U postgres -D $RESULTS/replica -R -X stream"
as_pg "$BIN/pg_ctl -D $RESULTS/replica -o '-p $R -k $RESULTS' -l $RESULTS/replica.log -w start >/dev/null"
as_pg "pg_basebackup -h 127.0.0.1 -p $P -U postgres -D $RESULTS/replica2 -R -X stream"
as_pg "$BIN/pg_ctl -D $RESULTS/replica2 -o '-p $R2 -k $RESULTS' -l $RESULTS/replica2.log -w start >/dev/null"

export LARDER_DATABASE_URL=$PRIMARY
$L migrate --json >/dev/null
org=$($L org create --name Measured --json | jq -r .id)
$L seed --org "$org" --env test --scale "$COPIES" --json >"$RESULTS/seed.json" 2>/dev/null
key=$($L key create --org "$org" --env test --scopes all --json | jq -r .key)
psql "$PRIMARY" -qc "VACUUM ANALYZE"
sleep 2 # the replicas replay the seed

run() { # label, serve flags...
	local label=$1
	shift
	$L serve --addr "127.0.0.1:$A" --metrics-addr off --webhooks=false --request-log=false --rate-limit 1000000000 --log-format json "$@" >"$RESULTS/serve-$label.log" 2>&1 &
	local pid=$!
	for _ in $(seq 50); do curl -sf "127.0.0.1:$A/readyz" >/dev/null && break; sleep 0.2; done
	sleep 2 # the replicas' first measures
	"$RESULTS/load" -url "http://127.0.0.1:$A" -key "$key" -c "$CONC" -d "${DURATION}s" -label "$label" \
		-paths "/v1/products?limit=50,/v1/products?limit=50&offset=100,/v1/product-lots?limit=50" -json "$RESULTS/$label.json" >"$RESULTS/$label.txt"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	echo "$label: $(jq -r '"\(.rps|floor) req/s, p50 \(.p50_ms) ms, p99 \(.p99_ms) ms, errors \(.errors)"' "$RESULTS/$label.json")" | tee -a "$RESULTS/summary.txt"
}
# Interleaved rounds: the machine's other work weighs on all alike.
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$RESULTS/summary.txt"
for round in $(seq "${ROUNDS:-2}"); do
	run "primary-$round"
	run "replica-$round" --replica-database "$REPLICA"
	run "replicas2-$round" --replica-database "$REPLICA" --replica-database "$REPLICA2"
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$RESULTS/summary.txt"
done
echo "results in $RESULTS"
