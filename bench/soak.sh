#!/usr/bin/env bash
# Memory under load, and Larder's figures on either database (targets 6 and 7
# of docs/performance.md): on a fresh database, `larder serve` with 300 tags,
# then
#   1. GET /v1/tags/{id} and the 200-row GET /v1/tags, QUICK each (c=16);
#   2. a mixed load for SOAK at CONNECTIONS keep-alive connections: 8 of 10
#      requests read a tag, 1 lists 200, 1 creates a tag (POST);
# while the server's resident memory (VmRSS) is sampled every 10 s into
# $RESULTS/rss.txt. It prints RSS at minute 1 and at the end, and the peak.
#
# Parameters (environment): SQLITE=1 (SQLite file instead of PostgreSQL),
# QUICK=10s, SOAK=5m, CONNECTIONS=64, PG, DBNAME=larder_soak, RESULTS.
set -euo pipefail
QUICK=${QUICK:-10s}
SOAK=${SOAK:-5m}
CONNECTIONS=${CONNECTIONS:-64}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
DBNAME=${DBNAME:-larder_soak}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-soak.XXXXXX)}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
cd "$(dirname "$0")/.."
BIN=$RESULTS/bin
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

go build -o "$BIN/larder" ./cmd/larder
go build -o "$BIN/load" ./bench/load
if [[ ${SQLITE:-0} == 1 ]]; then
	DB="sqlite://$RESULTS/larder.db"
else
	psql -X -q "$PG/postgres?sslmode=disable" -c "DROP DATABASE IF EXISTS \"$DBNAME\" WITH (FORCE)" -c "CREATE DATABASE \"$DBNAME\""
	DB="$PG/$DBNAME?sslmode=disable"
fi
"$BIN/larder" migrate --database "$DB" >/dev/null
ORG=$("$BIN/larder" org create --name "Soak Bakery" --json --database "$DB" | jq -r .id)
KEY=$("$BIN/larder" key create --org "$ORG" --env live --scopes all --json --database "$DB" | jq -r .key)
PORT=${PORT:-28991}
URL=http://127.0.0.1:$PORT
"$BIN/larder" serve --database "$DB" --addr "127.0.0.1:$PORT" --rate-limit 100000000 >"$RESULTS/larder.log" 2>&1 &
PID=$!
PIDS+=("$PID")
for ((i = 0; i < 100; i++)); do curl -sf -o /dev/null "$URL/healthz" && break; sleep 0.2; done

: >"$RESULTS/get-paths.txt"
for ((i = 1; i <= 300; i++)); do
	id=$(curl -sf -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
		-d "{\"name\":\"soak-$i\",\"ref_type\":\"PRODUCT\",\"description\":\"Soak tag $i.\"}" "$URL/v1/tags" | jq -r .data.id)
	echo "/v1/tags/$id" >>"$RESULTS/get-paths.txt"
done
echo "/v1/tags?ref_type=PRODUCT&limit=200" >"$RESULTS/list-paths.txt"
{
	head -n 8 "$RESULTS/get-paths.txt"
	echo "/v1/tags?ref_type=PRODUCT&limit=200"
	echo 'POST /v1/tags {"name":"soak write {n}","ref_type":"PRODUCT"}'
} >"$RESULTS/mixed-paths.txt"
echo "database: $DB" | tee "$RESULTS/summary.txt"

for s in get list; do
	"$BIN/load" -url "$URL" -key "$KEY" -c 16 -d "$QUICK" -warmup 2s -paths-file "$RESULTS/$s-paths.txt" \
		-label "$s" -cpu-pid "server=$PID" | tee -a "$RESULTS/summary.txt"
done

rss() { awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$PID/status"; }
echo "before the soak: RSS $(rss) MB" | tee -a "$RESULTS/summary.txt"
: >"$RESULTS/rss.txt"
(
	t=0
	while kill -0 "$PID" 2>/dev/null; do
		echo "$t $(rss)" >>"$RESULTS/rss.txt"
		sleep 10
		t=$((t + 10))
	done
) &
PIDS+=("$!")
"$BIN/load" -url "$URL" -key "$KEY" -c "$CONNECTIONS" -d "$SOAK" -warmup 0s -paths-file "$RESULTS/mixed-paths.txt" \
	-label "mixed, $CONNECTIONS connections" -cpu-pid "server=$PID" | tee -a "$RESULTS/summary.txt"
awk '$1 == 60 {m1 = $2} {last = $2; if ($2 > peak) peak = $2}
	END {printf "RSS (MB): minute 1 %d, end %d, peak %d\n", m1, last, peak}' "$RESULTS/rss.txt" | tee -a "$RESULTS/summary.txt"
echo "results: $RESULTS"
