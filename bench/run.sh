#!/usr/bin/env bash
# Whole-server benchmark: Larder against the hand-written baseline in
# bench/baseline, on a fresh PostgreSQL database, for GET /v1/tags/{id} and the
# 200-row GET /v1/tags list. See bench/README.md.
#
# Parameters (environment):
#   ROUNDS=3            interleaved rounds (Larder, baseline, Larder, baseline, …)
#   DURATION=10s        measured time of one run
#   WARMUP=2s           unmeasured warm-up before each run
#   CONCURRENCY=16      workers (keep-alive connections) of the load generator
#   TAGS=300            tags created through the API
#   SCENARIOS="get list"
#   PG=postgres://postgres@127.0.0.1:5432   server; PGOPTS=sslmode=disable
#   DBNAME=larder_bench database, dropped and created again
#   LARDER_PORT, BASELINE_PORT   default: the first free ports from 28931
#   RESULTS=dir         where logs and JSON results go (default: a new /tmp dir)
#   RATE_LIMIT=100000000 Larder's --rate-limit for the run
#   DSN_EXTRA=          extra options appended to both servers' database URL,
#                       e.g. "&binary_parameters=yes"
#   LARDER_BIN=         a prebuilt larder binary (default: built from this tree)
#   QUERYCOST=1         afterwards, time each per-request query alone
#                       (bench/querycost) for QUERY_DURATION=5s each; 0 skips it
set -euo pipefail

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
CONCURRENCY=${CONCURRENCY:-16}
TAGS=${TAGS:-300}
SCENARIOS=${SCENARIOS:-"get list"}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
PGOPTS=${PGOPTS:-sslmode=disable}
DBNAME=${DBNAME:-larder_bench}
RATE_LIMIT=${RATE_LIMIT:-100000000}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-bench.XXXXXX)}
DSN_EXTRA=${DSN_EXTRA:-}
LARDER_BIN=${LARDER_BIN:-}
QUERYCOST=${QUERYCOST:-1}
QUERY_DURATION=${QUERY_DURATION:-5s}

cd "$(dirname "$0")/.."
mkdir -p "$RESULTS"
rm -f "$RESULTS"/*-r*.json
BIN=$RESULTS/bin
DB="$PG/$DBNAME?$PGOPTS"

for tool in go psql curl jq; do
	command -v "$tool" >/dev/null || { echo "run.sh: $tool is required" >&2; exit 1; }
done

# Background processes this script started; stopped on exit.
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# free_port prints the first port from $1 nothing listens on, skipping $2.
free_port() {
	local p
	for ((p = $1; p < $1 + 500; p++)); do
		[[ $p == "${2:-}" ]] && continue
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	echo "run.sh: no free port from $1" >&2
	return 1
}

# wait_ok waits until GET $1 (with the key) answers 2xx, for at most 10 s.
wait_ok() {
	local i
	for ((i = 0; i < 100; i++)); do
		curl -sf -o /dev/null -H "Authorization: Bearer ${KEY:-}" "$1" && return
		sleep 0.1
	done
	echo "run.sh: $1 did not come up; see $RESULTS/*.log" >&2
	return 1
}

echo "== build ($BIN)"
mkdir -p "$BIN"
if [[ -n $LARDER_BIN ]]; then
	cp "$LARDER_BIN" "$BIN/larder"
else
	go build -o "$BIN/larder" ./cmd/larder
fi
go build -o "$BIN/baseline" ./bench/baseline
go build -o "$BIN/load" ./bench/load
go build -o "$BIN/querycost" ./bench/querycost

echo "== fresh database $DBNAME"
psql -X -q -v ON_ERROR_STOP=1 "$PG/postgres?$PGOPTS" \
	-c "DROP DATABASE IF EXISTS \"$DBNAME\" WITH (FORCE)" \
	-c "CREATE DATABASE \"$DBNAME\""
"$BIN/larder" migrate --database "$DB"
ORG_JSON=$("$BIN/larder" org create --name "Bench Bakery" --json --database "$DB")
ORG=$(jq -r .id <<<"$ORG_JSON")
ACCOUNT=$(jq -r .accounts.live.id <<<"$ORG_JSON")
KEY=$("$BIN/larder" key create --org "$ORG" --env live --scopes all --json --database "$DB" | jq -r .key)
echo "organization $ORG, live account $ACCOUNT, key ${KEY:0:12}…"
# For re-running a tool by hand against the same database afterwards.
printf 'DB=%q\nKEY=%q\nACCOUNT=%q\n' "$DB" "$KEY" "$ACCOUNT" >"$RESULTS/bench.env"

LARDER_PORT=${LARDER_PORT:-$(free_port 28931)}
BASELINE_PORT=${BASELINE_PORT:-$(free_port $((LARDER_PORT + 1)) "$LARDER_PORT")}
LARDER=http://127.0.0.1:$LARDER_PORT
BASELINE=http://127.0.0.1:$BASELINE_PORT

echo "== start larder on $LARDER (log: $RESULTS/larder.log)"
"$BIN/larder" serve --database "$DB$DSN_EXTRA" --addr "127.0.0.1:$LARDER_PORT" --rate-limit "$RATE_LIMIT" \
	>"$RESULTS/larder.log" 2>&1 &
LARDER_PID=$!
PIDS+=("$LARDER_PID")
wait_ok "$LARDER/v1/openapi.json"

echo "== create $TAGS tags through the API"
: >"$RESULTS/get-paths.txt"
for ((i = 1; i <= TAGS; i++)); do
	id=$(curl -sf -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
		-d "{\"name\":\"bench-$i\",\"ref_type\":\"PRODUCT\",\"description\":\"Benchmark tag $i.\"}" \
		"$LARDER/v1/tags" | jq -r .data.id)
	echo "/v1/tags/$id" >>"$RESULTS/get-paths.txt"
done
echo "/v1/tags?ref_type=PRODUCT&limit=200" >"$RESULTS/list-paths.txt"
psql -X -q "$DB" -c "ANALYZE"

echo "== start baseline on $BASELINE (log: $RESULTS/baseline.log)"
"$BIN/baseline" --database "$DB$DSN_EXTRA" --addr "127.0.0.1:$BASELINE_PORT" --account "$ACCOUNT" \
	>"$RESULTS/baseline.log" 2>&1 &
BASELINE_PID=$!
PIDS+=("$BASELINE_PID")
wait_ok "$BASELINE$(head -n1 "$RESULTS/get-paths.txt")"

echo "== check both servers answer the same bodies"
for path in "$(head -n1 "$RESULTS/get-paths.txt")" "$(head -n1 "$RESULTS/list-paths.txt")"; do
	if ! diff <(curl -sf -H "Authorization: Bearer $KEY" "$LARDER$path" | jq -S .) \
		<(curl -sf "$BASELINE$path" | jq -S .) >/dev/null; then
		echo "run.sh: larder and baseline answer $path differently" >&2
		exit 1
	fi
done

echo "== load: $ROUNDS rounds × {$SCENARIOS} × {larder, baseline}, c=$CONCURRENCY, $WARMUP warm-up + $DURATION each"
for ((r = 1; r <= ROUNDS; r++)); do
	for s in $SCENARIOS; do
		for srv in larder baseline; do
			url=$LARDER pid=$LARDER_PID
			[[ $srv == baseline ]] && url=$BASELINE pid=$BASELINE_PID
			# Both get the Authorization header, so the requests are the same size;
			# the baseline ignores it. CPU time is watched for the server, all
			# PostgreSQL processes and the load generator itself.
			"$BIN/load" -url "$url" -key "$KEY" -c "$CONCURRENCY" -d "$DURATION" -warmup "$WARMUP" \
				-paths-file "$RESULTS/$s-paths.txt" -label "$srv/$s/r$r" -json "$RESULTS/$srv-$s-r$r.json" \
				-cpu-pid "server=$pid" -cpu-comm postgres
		done
	done
done

echo
echo "== summary (median of $ROUNDS rounds; req/s range in brackets)"
jq -rs '
	def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	map(. + {server: (.label | split("/")[0]), scenario: (.label | split("/")[1])})
	| group_by([.scenario, .server != "larder"])[]
	| [.[0].scenario, .[0].server, (map(.rps) | median), (map(.rps) | min), (map(.rps) | max),
	   (map(.p50_ms) | median), (map(.p99_ms) | median), (map(.errors) | add),
	   (map(.cpu_ms_per_req.server // 0) | median), (map(.cpu_ms_per_req.postgres // 0) | median),
	   (map(.cpu_ms_per_req.load // 0) | median)]
	| @tsv' "$RESULTS"/*-r*.json |
	awk -F'\t' '
	BEGIN {
		name["get"] = "GET /v1/tags/{id}"; name["list"] = "GET /v1/tags (200 rows)"
		printf "%-24s %-9s %22s %8s %8s %6s | %27s\n", "", "", "", "", "", "", "CPU ms per request"
		printf "%-24s %-9s %22s %8s %8s %6s | %8s %8s %8s\n", "scenario", "server", "req/s [min-max]", "p50 ms", "p99 ms", "errors", "server", "postgres", "load"
	}
	{
		printf "%-24s %-9s %8.0f [%5.0f-%5.0f] %8.2f %8.2f %6d | %8.3f %8.3f %8.3f\n", (($1 in name) ? name[$1] : $1), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11
		rps[$1, $2] = $3
		if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
	}
	END {
		for (i = 1; i <= n; i++) {
			s = order[i]
			if (rps[s, "baseline"] == 0) continue
			ratio = rps[s, "larder"] / rps[s, "baseline"]
			printf "ratio larder/baseline, %-24s %5.2f  (target >= 0.50: %s)\n", (s in name) ? name[s] : s, ratio, (ratio >= 0.5) ? "met" : "NOT met"
		}
	}' | tee "$RESULTS/summary.txt"

if [[ $QUERYCOST == 1 ]]; then
	echo
	echo "== each per-request query alone: c=$CONCURRENCY, $QUERY_DURATION each, pool of 20 (servers idle)"
	"$BIN/querycost" --database "$DB$DSN_EXTRA" --key "$KEY" --account "$ACCOUNT" -c "$CONCURRENCY" -d "$QUERY_DURATION" |
		tee "$RESULTS/querycost.txt"
fi
echo
echo "results: $RESULTS"
