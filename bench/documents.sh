#!/usr/bin/env bash
# Purchasing documents: a 200-line purchase order and a 1000-line bill created
# over Larder's HTTP API, one at a time, against a hand-written baseline that
# inserts the same rows in one transaction with multi-row INSERTs. See
# docs/performance.md, target 3.
#
# Parameters (environment):
#   N=30          measured creates of each kind and side (after WARMUP=3)
#   PG=postgres://postgres@127.0.0.1:5432   server; PGOPTS=sslmode=disable
#   DBNAME=larder_docs   database, dropped and created again
#   PORT=28995    Larder's port
#   RESULTS=dir   where logs and results go (default: a new /tmp dir)
#   ONLY=         run only the scenarios whose name starts with this, e.g.
#                 ONLY=purchase (the sales order and the shipments go together)
#   SERVE_ARGS=   extra flags for larder serve, e.g. "--debug-addr 127.0.0.1:28996"
#                 to profile the server while the creates run
set -euo pipefail

N=${N:-30}
WARMUP=${WARMUP:-3}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
PGOPTS=${PGOPTS:-sslmode=disable}
DBNAME=${DBNAME:-larder_docs}
PORT=${PORT:-28995}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-docs.XXXXXX)}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
cd "$(dirname "$0")/.."
DB="$PG/$DBNAME?$PGOPTS"
export LARDER_DATABASE_URL=$DB

go build -o "$RESULTS/larder" ./cmd/larder
go build -o "$RESULTS/documents" ./bench/documents
L=$RESULTS/larder
git rev-parse --short HEAD >"$RESULTS/commit.txt"

psql "$PG/postgres?$PGOPTS" -qc "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME"
$L migrate --json >/dev/null
org=$($L org create --name Buyer --json | jq -r .id)
acct=$(psql "$DB" -Atc "SELECT id FROM accounts WHERE organization_id = $org AND environment = 'test'")
key=$($L key create --org "$org" --env test --scopes all --json | jq -r .key)

# shellcheck disable=SC2086 # SERVE_ARGS is a list of flags
$L serve --addr "127.0.0.1:$PORT" --rate-limit 100000000 --webhooks=false ${SERVE_ARGS:-} >"$RESULTS/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 300); do curl -fs "http://127.0.0.1:$PORT/v1/openapi.json" >/dev/null && break; sleep 0.1; done

"$RESULTS/documents" -url "http://127.0.0.1:$PORT" -key "$key" -database "$DB&binary_parameters=yes" -account "$acct" \
	-n "$N" -warmup "$WARMUP" -only "${ONLY:-}" -json "$RESULTS/documents.json" | tee "$RESULTS/summary.txt"
echo "results in $RESULTS"
