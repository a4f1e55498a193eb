#!/usr/bin/env bash
# What each speed mechanism saves (package fastpath): one build, several
# servers on one PostgreSQL database, each with one mechanism switched off
# (--fast-path=-NAME), beside one with all of them ("all") and one with none
# ("plain"), alternated one request at a time by bench/alternate (each round
# sends the same request to every server, in an order that turns), for:
#   get    GET /v1/tags/{id} over 300 tags (a live key)
#   list   GET /v1/tags?ref_type=PRODUCT&limit=200 (a live key)
#   order  POST /v1/purchase-orders of 200 lines (a test key)
# It reports, per server, the latency percentiles, the p50 as a ratio of
# "all"'s, and the server process's CPU per request. A last server,
# "control", runs as "all" does: how far it lands from "all" is the noise
# of the run. A mechanism pays its way when switching it off costs at least
# 3% of the request's CPU, beyond that noise.
# See docs/fast-path.md. With OFF="" and LOG=1 it measures what the request
# log costs instead ("all" records, "no-request-log" does not; see
# docs/performance.md).
#
# Parameters (environment):
#   WHAT="get list order"   the scenarios
#   OFF="statement-cache compiled-reads own-cancel reserved-budget trusted-keys batched-log untraced-errors pooled-encoders"
#                           the mechanisms measured, one server each
#   LOG=0                   1: one more server, "no-request-log", with --request-log=false
#   N=2000 WARMUP=200       measured and unmeasured rounds per scenario (order: N/10)
#   PG=postgres://postgres@127.0.0.1:5432   server; PGOPTS=sslmode=disable
#   DBNAME=larder_mechanisms   database, dropped and created again
#   PORT=29100              the first server's port; the others follow
#   RESULTS=dir             where the build, logs and summaries go (default: a new /tmp dir)
set -euo pipefail

WHAT=${WHAT:-"get list order"}
OFF=${OFF-"statement-cache compiled-reads own-cancel reserved-budget trusted-keys batched-log untraced-errors pooled-encoders"}
LOG=${LOG:-0}
N=${N:-2000}
WARMUP=${WARMUP:-200}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
PGOPTS=${PGOPTS:-sslmode=disable}
DBNAME=${DBNAME:-larder_mechanisms}
PORT=${PORT:-29100}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-mechanisms.XXXXXX)}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
cd "$(dirname "$0")/.."
DB="$PG/$DBNAME?$PGOPTS"
export LARDER_DATABASE_URL=$DB

go build -o "$RESULTS/larder" ./cmd/larder
go build -o "$RESULTS/alternate" ./bench/alternate
git rev-parse --short HEAD >"$RESULTS/build.txt"

psql "$PG/postgres?$PGOPTS" -qc "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME"
"$RESULTS/larder" migrate --json >/dev/null
org=$("$RESULTS/larder" org create --name Bench --json | jq -r .id)
acct=$(psql "$DB" -Atc "SELECT id FROM accounts WHERE organization_id = $org AND environment = 'test'")
live=$("$RESULTS/larder" key create --org "$org" --env live --scopes all --json | jq -r .key)
test=$("$RESULTS/larder" key create --org "$org" --env test --scopes all --json | jq -r .key)

# The servers: name, --fast-path, --request-log.
names=(all)
values=(true)
logs=(true)
for m in $OFF; do
	names+=("no-$m")
	values+=("-$m")
	logs+=(true)
done
if [[ $LOG == 1 ]]; then
	names+=(no-request-log)
	values+=(true)
	logs+=(false)
fi
if [[ -n $OFF ]]; then
	names+=(plain)
	values+=(false)
	logs+=(true)
fi
names+=(control)
values+=(true)
logs+=(true)

pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
urls=()
cpu=()
for i in "${!names[@]}"; do
	port=$((PORT + i))
	"$RESULTS/larder" serve --addr "127.0.0.1:$port" --fast-path "${values[$i]}" --request-log="${logs[$i]}" --db-max-conns 4 \
		--rate-limit 100000000 --webhooks=false --metrics-addr off >"$RESULTS/serve-${names[$i]}.log" 2>&1 &
	pids+=($!)
	urls+=("${names[$i]}=http://127.0.0.1:$port")
	cpu+=("${names[$i]}=$!")
	for _ in $(seq 300); do curl -fs "http://127.0.0.1:$port/v1/openapi.json" >/dev/null && break; sleep 0.1; done
done
cpus=$(IFS=,; echo "${cpu[*]}")

: >"$RESULTS/get.txt"
for i in $(seq 300); do
	id=$(curl -sf -H "Authorization: Bearer $live" -H 'Content-Type: application/json' \
		-d "{\"name\":\"bench-$i\",\"ref_type\":\"PRODUCT\",\"description\":\"Benchmark tag $i.\"}" \
		"http://127.0.0.1:$PORT/v1/tags" | jq -r .data.id)
	echo "/v1/tags/$id" >>"$RESULTS/get.txt"
done
echo "/v1/tags?ref_type=PRODUCT&limit=200" >"$RESULTS/list.txt"
# The order documents.sh sends: 200 lines over the test account's first 20 materials (bench/order200.sql).
psql "$DB" -Atv acct="$acct" -f bench/order200.sql >"$RESULTS/order.json"
echo /v1/purchase-orders >"$RESULTS/order.txt"
psql -X -q "$DB" -c "ANALYZE"

for what in $WHAT; do
	args=(-key "$live" -paths-file "$RESULTS/$what.txt" -n "$N" -warmup "$WARMUP")
	if [[ $what == order ]]; then
		args=(-key "$test" -paths-file "$RESULTS/order.txt" -body "$RESULTS/order.json" -n $((N / 10)) -warmup $((WARMUP / 10)))
	fi
	echo "== $what ($(date -u +%FT%TZ))" | tee -a "$RESULTS/summary.txt"
	"$RESULTS/alternate" "${args[@]}" -cpu-pid "$cpus" "${urls[@]}" | tee -a "$RESULTS/summary.txt"
done
echo "results in $RESULTS"
