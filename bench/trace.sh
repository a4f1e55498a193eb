#!/usr/bin/env bash
# Lot trace at scale (bench/trace): one account of a new organization filled
# with a plant of about 1,000,000 lots and 10,000,000 stock movements (raw lots
# received on bills, ten generations of production runs, finished goods
# shipped on sales orders), written in bulk SQL; then a lot whose trace at
# depth 10 reaches about 500 nodes is traced, alternated one run at a
# time: the trace's recursive statement alone (inventory.TraceReachSQL),
# inventory.TraceLotOf in the process, and GET
# /v1/product-lots/{lot_id}/trace against a larder serve on the same
# database; with the plan of every statement the trace sends. See
# docs/performance.md, "Lot trace at scale".
#
# Parameters (environment):
#   LOTS=1000000    lots of the plant (movements about ten times as many)
#   GENERATIONS=10  generations of production runs from the raw lots to the finished goods
#   DEPTH=10        the trace's depth
#   TARGET=500      nodes the traced lot's trace should reach (of 200 lots traced, the deepest within 10%)
#   RUNS=30         timed runs of each way, after WARM=10 untimed
#   REUSE=0         1: measure the plant a previous run left in DBNAME, without filling
#   PG=postgres://postgres@127.0.0.1:5432   server; PGOPTS=sslmode=disable
#   DBNAME=trace_bench   PostgreSQL database, dropped and created again unless REUSE=1, kept at the end
#   PORT=28995      the server's port (loopback)
#   RESULTS=dir     where results.txt, results.json, plans.txt and the logs go (default: a new /tmp dir)
set -euo pipefail

LOTS=${LOTS:-1000000}
GENERATIONS=${GENERATIONS:-10}
DEPTH=${DEPTH:-10}
TARGET=${TARGET:-500}
RUNS=${RUNS:-30}
WARM=${WARM:-10}
REUSE=${REUSE:-0}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
PGOPTS=${PGOPTS:-sslmode=disable}
DBNAME=${DBNAME:-trace_bench}
PORT=${PORT:-28995}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-trace.XXXXXX)}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
cd "$(dirname "$0")/.."

go build -o "$RESULTS/larder" ./cmd/larder
go build -o "$RESULTS/trace" ./bench/trace
DB="$PG/$DBNAME?$PGOPTS"

if [[ $REUSE != 1 ]]; then
	psql "$PG/postgres?$PGOPTS" -qc "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME"
	timeout 3600 "$RESULTS/trace" -database "$DB" -lots "$LOTS" -generations "$GENERATIONS" -depth "$DEPTH" -target "$TARGET" -fill-only -out "$RESULTS" 2>&1 | tee "$RESULTS/fill.log"
fi

LARDER_DATABASE_URL=$DB timeout 3600 "$RESULTS/larder" serve --addr "127.0.0.1:$PORT" --rate-limit 100000000 --webhooks=false >"$RESULTS/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 300); do curl -fs "http://127.0.0.1:$PORT/v1/openapi.json" >/dev/null && break; sleep 0.1; done

timeout 1800 "$RESULTS/trace" -database "$DB" -fill=false -depth "$DEPTH" -runs "$RUNS" -warm "$WARM" \
	-url "http://127.0.0.1:$PORT" -out "$RESULTS"
psql "$DB" -Atc "SELECT 'stock_movements: table ' || pg_size_pretty(pg_table_size('stock_movements')) || ', indexes ' || pg_size_pretty(pg_indexes_size('stock_movements')) || '; product_lots: table ' || pg_size_pretty(pg_table_size('product_lots')) || ', indexes ' || pg_size_pretty(pg_indexes_size('product_lots'))" | tee -a "$RESULTS/results.txt"
echo "results in $RESULTS (database $DBNAME kept: REUSE=1 measures it again)"
