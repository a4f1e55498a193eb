#!/usr/bin/env bash
# Whole-server benchmark: Larder against the hand-written baseline in
# bench/baseline, on a fresh PostgreSQL database, for GET /v1/tags/{id} and the
# 200-row GET /v1/tags list. Two baselines run: "baseline" (no authentication,
# unnamed statements: the first target, Larder >= 0.5x) and "keyed" (the same
# program with --auth --prepare: the key by its hash, prepared statements:
# the target, Larder >= 1.0x). A third, "spec" (--spec --prepare), also
# does by hand the per-request work the specification asks (request id, scopes,
# plan, rate-limit headers, ETag, metrics, access log): run it with
# SERVERS="larder keyed spec". See docs/performance.md.
#
# Parameters (environment):
#   ROUNDS=3            interleaved rounds (Larder, baseline; then baseline,
#                       Larder: every second round in the reverse order)
#   MIRRORED=0          1: each round runs the servers in order and then in
#                       reverse (Larder, baseline, baseline, Larder), and its
#                       ratio is a server's two runs against the other's, so
#                       that a machine whose speed drifts steadily through
#                       the round favours neither; use half the DURATION for
#                       the same length of run
#   DURATION=10s        measured time of one run
#   WARMUP=2s           unmeasured warm-up before each run
#   CONCURRENCY=16      workers (keep-alive connections) of the load generator
#   TAGS=300            tags created through the API
#   SCENARIOS="get list"
#   SERVERS="larder baseline keyed"   servers of each round, in this order
#                       (spec: the baseline with --spec, started only when named;
#                       old: Larder built from OLD, started only when named)
#                       (pgbench: PostgreSQL's own rate for the statement Larder
#                       sends for the scenario's request, captured from the server's
#                       log as Larder sends it and run by pgbench -M prepared with
#                       CONCURRENCY clients; no CPU columns)
#   OLD=                a git revision: "old" in SERVERS runs Larder built from it
#                       beside this tree's, with the same flags, e.g.
#                       OLD=HEAD~1 SERVERS="larder old keyed": a change's effect
#                       measured in the same rounds as the keyed server
#   OLD_ARGS=           extra flags for the old server alone, after LARDER_ARGS:
#                       OLD=HEAD OLD_ARGS=--request-log=false SERVERS="larder old spec"
#                       is the request log's whole cost (server and PostgreSQL),
#                       recording on against off in the same rounds
#   PG=postgres://postgres@127.0.0.1:5432   server; PGOPTS=sslmode=disable
#   PGLOG=              the server's log file, which pgbench's capture reads
#                       (default: pg_lsclusters' for the port of PG)
#   DBNAME=larder_bench database, dropped and created again
#   LARDER_PORT, BASELINE_PORT, DEBUG_PORT (PROFILE=1)   default: the first free ports from 28931
#   RESULTS=dir         where logs and JSON results go (default: a new /tmp dir)
#   RATE_LIMIT=100000000 Larder's --rate-limit for the run
#   DSN_EXTRA=          extra options appended to both servers' database URL,
#                       e.g. "&binary_parameters=no" (both default to yes, as Larder does)
#   LARDER_BIN=         a prebuilt larder binary (default: built from this tree)
#   LARDER_ARGS=        extra flags for larder serve, e.g. "--db-statements 0"
#   BASELINE_ARGS=      extra flags for the baseline, e.g. "--prepare"
#   PROFILE=0           1: after the measured rounds, run Larder once more per
#                       scenario while its --debug-addr profiler records
#                       PROFILE_SECONDS=10 of CPU: $RESULTS/cpu-SCENARIO.pprof,
#                       and `go tool pprof -top` of it in cpu-SCENARIO.top
#   QUERYCOST=1         afterwards, time each per-request statement alone
#                       (bench/querycost) for QUERY_DURATION=5s each; 0 skips it
set -euo pipefail

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
CONCURRENCY=${CONCURRENCY:-16}
TAGS=${TAGS:-300}
SCENARIOS=${SCENARIOS:-"get list"}
SERVERS=${SERVERS:-"larder baseline keyed"}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
PGOPTS=${PGOPTS:-sslmode=disable}
DBNAME=${DBNAME:-larder_bench}
RATE_LIMIT=${RATE_LIMIT:-100000000}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-bench.XXXXXX)}
DSN_EXTRA=${DSN_EXTRA:-}
LARDER_BIN=${LARDER_BIN:-}
LARDER_ARGS=${LARDER_ARGS:-}
OLD=${OLD:-}
OLD_ARGS=${OLD_ARGS:-}
BASELINE_ARGS=${BASELINE_ARGS:-}
PROFILE=${PROFILE:-0}
PROFILE_SECONDS=${PROFILE_SECONDS:-10}
QUERYCOST=${QUERYCOST:-1}
QUERY_DURATION=${QUERY_DURATION:-5s}
MIRRORED=${MIRRORED:-0}

mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
[[ -z $LARDER_BIN ]] || LARDER_BIN=$(realpath "$LARDER_BIN")
cd "$(dirname "$0")/.."
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

# free_port prints the first port from $1 nothing listens on, skipping the
# ports given after it.
free_port() {
	local p
	for ((p = $1; p < $1 + 500; p++)); do
		[[ " ${*:2} " == *" $p "* ]] && continue
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

# What was measured, for the record: tree, tools and knobs.
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
	echo "changed outside bench/: $(git status --short 2>/dev/null | grep -v ' bench/' | tr '\n' ' ')"
	echo "go: $(go env GOVERSION), cpus: $(nproc 2>/dev/null || echo '?')"
	echo "ROUNDS=$ROUNDS DURATION=$DURATION WARMUP=$WARMUP CONCURRENCY=$CONCURRENCY TAGS=$TAGS"
	echo "LARDER_ARGS=$LARDER_ARGS BASELINE_ARGS=$BASELINE_ARGS DSN_EXTRA=$DSN_EXTRA"
} >"$RESULTS/run.txt"

echo "== build ($BIN)"
mkdir -p "$BIN"
if [[ -n $LARDER_BIN ]]; then
	cp "$LARDER_BIN" "$BIN/larder"
else
	go build -o "$BIN/larder" ./cmd/larder
fi
if [[ " $SERVERS " == *" old "* ]]; then
	[[ -n $OLD ]] || { echo "run.sh: SERVERS names old but OLD is not set" >&2; exit 1; }
	OLD_TREE=$RESULTS/tree-old
	git worktree add -q --detach "$OLD_TREE" "$OLD"
	(cd "$OLD_TREE" && go build -o "$BIN/larder-old" ./cmd/larder)
	git worktree remove --force "$OLD_TREE"
	echo "old: $(git rev-parse --short "$OLD") $OLD_ARGS" >>"$RESULTS/run.txt"
fi
go build -o "$BIN/baseline" ./bench/baseline
go build -o "$BIN/load" ./bench/load
go build -o "$BIN/querycost" ./bench/querycost

echo "== fresh database $DBNAME"
psql -X -q -v ON_ERROR_STOP=1 "$PG/postgres?$PGOPTS" \
	-c "DROP DATABASE IF EXISTS \"$DBNAME\" WITH (FORCE)" \
	-c "CREATE DATABASE \"$DBNAME\""
"$BIN/larder" migrate --database "$DB"
echo "postgres: $(psql -X -Atc 'SHOW server_version' "$DB")" >>"$RESULTS/run.txt"
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
KEYED_PORT=${KEYED_PORT:-$(free_port $((BASELINE_PORT + 1)) "$LARDER_PORT" "$BASELINE_PORT")}
KEYED=http://127.0.0.1:$KEYED_PORT
DEBUG_ARGS=()
if [[ $PROFILE == 1 ]]; then
	DEBUG_PORT=${DEBUG_PORT:-$(free_port $((LARDER_PORT + 1)) "$LARDER_PORT" "$BASELINE_PORT" "$KEYED_PORT")}
	DEBUG=http://127.0.0.1:$DEBUG_PORT
	DEBUG_ARGS=(--debug-addr "127.0.0.1:$DEBUG_PORT")
fi

echo "== start larder on $LARDER (log: $RESULTS/larder.log)"
# shellcheck disable=SC2086 # LARDER_ARGS is a list of flags
"$BIN/larder" serve --database "$DB$DSN_EXTRA" --addr "127.0.0.1:$LARDER_PORT" --rate-limit "$RATE_LIMIT" \
	"${DEBUG_ARGS[@]}" $LARDER_ARGS >"$RESULTS/larder.log" 2>&1 &
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
# shellcheck disable=SC2086 # BASELINE_ARGS is a list of flags
"$BIN/baseline" --database "$DB$DSN_EXTRA" --addr "127.0.0.1:$BASELINE_PORT" --account "$ACCOUNT" \
	$BASELINE_ARGS >"$RESULTS/baseline.log" 2>&1 &
BASELINE_PID=$!
PIDS+=("$BASELINE_PID")
wait_ok "$BASELINE$(head -n1 "$RESULTS/get-paths.txt")"

echo "== start keyed baseline on $KEYED (--auth --prepare; log: $RESULTS/keyed.log)"
"$BIN/baseline" --database "$DB$DSN_EXTRA" --addr "127.0.0.1:$KEYED_PORT" --auth --prepare \
	>"$RESULTS/keyed.log" 2>&1 &
KEYED_PID=$!
PIDS+=("$KEYED_PID")
wait_ok "$KEYED$(head -n1 "$RESULTS/get-paths.txt")"

OTHERS=("$BASELINE" "$KEYED")
OLD_URL=
if [[ " $SERVERS " == *" old "* ]]; then
	OLD_PORT=${OLD_PORT:-$(free_port $((KEYED_PORT + 1)) "$LARDER_PORT" "$BASELINE_PORT" "$KEYED_PORT" "${DEBUG_PORT:-0}")}
	OLD_URL=http://127.0.0.1:$OLD_PORT
	echo "== start larder built from $OLD on $OLD_URL ($OLD_ARGS; log: $RESULTS/old.log)"
	# shellcheck disable=SC2086 # LARDER_ARGS and OLD_ARGS are lists of flags
	"$BIN/larder-old" serve --database "$DB$DSN_EXTRA" --addr "127.0.0.1:$OLD_PORT" --rate-limit "$RATE_LIMIT" \
		$LARDER_ARGS $OLD_ARGS >"$RESULTS/old.log" 2>&1 &
	OLD_PID=$!
	PIDS+=("$OLD_PID")
	wait_ok "$OLD_URL$(head -n1 "$RESULTS/get-paths.txt")"
	OTHERS+=("$OLD_URL")
fi
SPEC=
if [[ " $SERVERS " == *" spec "* ]]; then
	SPEC_PORT=${SPEC_PORT:-$(free_port $((KEYED_PORT + 1)) "$LARDER_PORT" "$BASELINE_PORT" "$KEYED_PORT" "${DEBUG_PORT:-0}" "${OLD_PORT:-0}")}
	SPEC=http://127.0.0.1:$SPEC_PORT
	echo "== start spec baseline on $SPEC (--spec --prepare; log: $RESULTS/spec.log)"
	"$BIN/baseline" --database "$DB$DSN_EXTRA" --addr "127.0.0.1:$SPEC_PORT" --spec --prepare --rate-limit "$RATE_LIMIT" \
		>"$RESULTS/spec.log" 2>&1 &
	SPEC_PID=$!
	PIDS+=("$SPEC_PID")
	wait_ok "$SPEC$(head -n1 "$RESULTS/get-paths.txt")"
	OTHERS+=("$SPEC")
fi

echo "== check the servers answer the same bodies"
# A list's next_cursor is compared decoded, without the hash of the filters
# (the baseline renders them its own way; see its nextCursor).
SAME='if .pagination.next_cursor then .pagination.next_cursor |= (gsub("-"; "+") | gsub("_"; "/")
	| . + ("==" | .[0:((4 - (length % 4)) % 4)]) | @base64d | fromjson | del(.f)) else . end'
for path in "$(head -n1 "$RESULTS/get-paths.txt")" "$(head -n1 "$RESULTS/list-paths.txt")"; do
	for other in "${OTHERS[@]}"; do
		if ! diff <(curl -sf -H "Authorization: Bearer $KEY" "$LARDER$path" | jq -S "$SAME") \
			<(curl -sf -H "Authorization: Bearer $KEY" "$other$path" | jq -S "$SAME") >/dev/null; then
			echo "run.sh: larder and $other answer $path differently" >&2
			exit 1
		fi
	done
done
if [[ $(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer ${KEY}x" "$KEYED$(head -n1 "$RESULTS/get-paths.txt")") != 401 ]]; then
	echo "run.sh: the keyed baseline accepts a wrong key" >&2
	exit 1
fi

if [[ " $SERVERS " == *" pgbench "* ]]; then
	command -v pgbench >/dev/null || { echo "run.sh: SERVERS names pgbench, which is not installed" >&2; exit 1; }
	PG_PORT=$(sed -E 's|.*:([0-9]+)/?$|\1|' <<<"$PG")
	PGLOG=${PGLOG:-$(pg_lsclusters -h 2>/dev/null | awk -v port="$PG_PORT" '$3 == port {print $7; exit}')}
	[[ -r $PGLOG ]] || { echo "run.sh: cannot read PostgreSQL's log ($PGLOG); set PGLOG" >&2; exit 1; }
	CAPTURE_PORT=$(free_port $((LARDER_PORT + 20)))
	echo "== capture the statement of each scenario's request from $PGLOG (a larder on :$CAPTURE_PORT whose connections log them)"
	psql -X -q "$DB" -c "ALTER DATABASE \"$DBNAME\" SET log_statement = 'all'"
	"$BIN/larder" serve --database "$DB$DSN_EXTRA" --addr "127.0.0.1:$CAPTURE_PORT" --rate-limit "$RATE_LIMIT" \
		--request-log=false $LARDER_ARGS >"$RESULTS/capture.log" 2>&1 &
	CAPTURE_PID=$!
	PIDS+=("$CAPTURE_PID")
	wait_ok "http://127.0.0.1:$CAPTURE_PORT/v1/openapi.json"
	for s in $SCENARIOS; do
		path=$(head -n1 "$RESULTS/$s-paths.txt")
		# The key is trusted after its first requests; the last one sends what
		# every request after it does.
		for _ in 1 2 3; do curl -sf -o /dev/null -H "Authorization: Bearer $KEY" "http://127.0.0.1:$CAPTURE_PORT$path"; done
		sleep 0.5
		# The last execution of a statement reading tags on this database, and its parameters.
		grep -a "@$DBNAME " "$PGLOG" | grep -a -A1 'LOG:  execute [^:]*: SELECT .*FROM "tags"' | tail -n 2 >"$RESULTS/capture-$s.txt"
		sql=$(sed -n 's/.*LOG:  execute [^:]*: //p' "$RESULTS/capture-$s.txt")
		[[ -n $sql ]] || { echo "run.sh: no statement of $path in $PGLOG" >&2; exit 1; }
		params=$(sed -n 's/.*DETAIL:  parameters: //p' "$RESULTS/capture-$s.txt")
		id=${path##*/}
		{
			[[ $s == get ]] && echo "\\set id random($(sed 's|.*/||' "$RESULTS/get-paths.txt" | sort -n | head -n1), $(sed 's|.*/||' "$RESULTS/get-paths.txt" | sort -n | tail -n1))"
			# Each $n becomes its logged value; a GET's tag id becomes :id, one of the tags.
			perl -e '
				my ($sql, $params, $id, $get) = @ARGV;
				my %v;
				while ($params =~ /\$(\d+) = (NULL|\x27(?:[^\x27]|\x27\x27)*\x27)/g) { $v{$1} = $2 }
				$sql =~ s/\$(\d+)/exists $v{$1} ? (($get && $v{$1} eq "\x27$id\x27") ? ":id" : $v{$1}) : die "no value of \$$1\n"/ge;
				print "$sql;\n";' "$sql" "$params" "$id" "$([[ $s == get ]] && echo 1)"
		} >"$RESULTS/pgbench-$s.sql"
		echo "$s: $(tail -n1 "$RESULTS/pgbench-$s.sql" | cut -c1-160)…"
	done
	kill "$CAPTURE_PID"
	psql -X -q "$DB" -c "ALTER DATABASE \"$DBNAME\" RESET log_statement"
fi

# pgbench_run SCENARIO LABEL JSON: pgbench over the captured statement, its
# rate and latency percentiles written as the load generator writes its own.
pgbench_run() {
	local dir
	dir=$(mktemp -d "$RESULTS/pgbench.XXXXXX")
	pgbench -n -M prepared -c "$CONCURRENCY" -j 2 -T "${WARMUP%s}" -f "$RESULTS/pgbench-$1.sql" "$DB" >/dev/null 2>&1
	pgbench -n -M prepared -c "$CONCURRENCY" -j 2 -T "${DURATION%s}" -f "$RESULTS/pgbench-$1.sql" \
		-l --log-prefix "$dir/tx" "$DB" >"$dir/out.txt" 2>&1
	local tps
	tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$dir/out.txt" | tail -n1)
	cat "$dir"/tx.* | awk '{print $3}' | sort -n | awk -v label="$2" -v tps="$tps" '
		{ l[NR] = $1 }
		END {
			printf "{\"label\": \"%s\", \"rps\": %s, \"p50_ms\": %.3f, \"p99_ms\": %.3f, \"p999_ms\": %.3f, \"errors\": 0}\n",
				label, tps, l[int(NR * 0.50) + 1] / 1000, l[int(NR * 0.99) + 1] / 1000, l[int(NR * 0.999) + 1] / 1000
		}' >"$3"
	printf '%-24s c=%d  %.1f tx/s  p50 %.2f ms  p99 %.2f ms (pgbench -M prepared)\n' "$2" "$CONCURRENCY" \
		"$(jq .rps "$3")" "$(jq .p50_ms "$3")" "$(jq .p99_ms "$3")"
	rm -rf "$dir"
}

# writer_backend prints the PID of the PostgreSQL backend that serves the
# request log's writer of the server process $1 (its connection of its own,
# "larder request log" in pg_stat_activity, whose client port that process
# holds), or nothing.
writer_backend() {
	local bpid port
	while read -r bpid port; do
		[[ -n $port ]] || continue
		if ss -tnpH state established "( sport = :$port )" 2>/dev/null | grep -q "pid=$1,"; then
			echo "$bpid"
			return
		fi
	done < <(psql -X -At -F ' ' "$DB" -c "SELECT pid, client_port FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'larder request log'" 2>/dev/null)
}

echo "== load: $ROUNDS rounds × {$SCENARIOS} × {$SERVERS}$([[ $MIRRORED == 1 ]] && echo ' and back'), c=$CONCURRENCY, $WARMUP warm-up + $DURATION each"
# Every second round runs the servers in the reverse order (A B, B A, A B,
# …), so that a machine whose speed drifts over the run favours none: run
# last in one round, a server runs first in the next.
REVERSED=$(echo "$SERVERS" | tr ' ' '\n' | grep -v '^$' | tac | tr '\n' ' ')
for ((r = 1; r <= ROUNDS; r++)); do
	order=$SERVERS
	((r % 2 == 0)) && order=$REVERSED
	# A mirrored round goes there and back: a run's file is numbered by its
	# pass (1 there, 2 back).
	passes=$order
	[[ $MIRRORED == 1 ]] && passes="$order $(echo "$order" | tr ' ' '\n' | grep -v '^$' | tac | tr '\n' ' ')"
	for s in $SCENARIOS; do
		declare -A pass=()
		for srv in $passes; do
			pass[$srv]=$((${pass[$srv]:-0} + 1))
			json="$RESULTS/$srv-$s-r$r.json"
			[[ ${pass[$srv]} == 2 ]] && json="$RESULTS/$srv-$s-r$r-2.json"
			case $srv in
			larder) url=$LARDER pid=$LARDER_PID ;;
			baseline) url=$BASELINE pid=$BASELINE_PID ;;
			keyed) url=$KEYED pid=$KEYED_PID ;;
			spec) url=$SPEC pid=$SPEC_PID ;;
			old) url=$OLD_URL pid=$OLD_PID ;;
			pgbench)
				pgbench_run "$s" "$srv/$s/r$r" "$json"
				continue
				;;
			*) echo "run.sh: unknown server $srv" >&2; exit 1 ;;
			esac
			# All get the Authorization header, so the requests are the same size;
			# the plain baseline ignores it. CPU time is watched for the server, all
			# PostgreSQL processes, the backend of the server's request log writer
			# (when it records) and the load generator itself.
			pids="server=$pid"
			wpid=$(writer_backend "$pid")
			[[ -n $wpid ]] && pids="$pids,postgres/request-log-writer=$wpid"
			"$BIN/load" -url "$url" -key "$KEY" -c "$CONCURRENCY" -d "$DURATION" -warmup "$WARMUP" \
				-paths-file "$RESULTS/$s-paths.txt" -label "$srv/$s/r$r" -json "$json" \
				-cpu-pid "$pids" -cpu-comm postgres
		done
	done
done

echo
echo "== summary (median of $ROUNDS rounds' runs; req/s range in brackets; other cores: CPU other programs took)"
# One TSV line per scenario and server ("row"), then one per scenario and
# baseline with the ratio of the median req/s and the median and range of the
# per-round ratios ("ratio"), each round's Larder runs set against the
# baseline's runs of the same round (their sums, when the round is mirrored).
jq -rs '
	def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	map(. + {server: (.label | split("/")[0]), scenario: (.label | split("/")[1]), round: (.label | split("/")[2])})
	| (group_by([.scenario, .server])[]
	   | ["row", .[0].scenario, .[0].server, (map(.rps) | median), (map(.rps) | min), (map(.rps) | max),
	      (map(.p50_ms) | median), (map(.p99_ms) | median), (map(.p999_ms // 0) | median), (map(.errors) | add),
	      (map(.cpu_ms_per_req.server // 0) | median), (map(.cpu_ms_per_req.postgres // 0) | median),
	      (map(.cpu_ms_per_req.load // 0) | median), (map(.cpu_cores.other // 0) | median)]),
	  (group_by(.scenario)[] | . as $runs
	   | (map(select(.server == "larder").rps) | median) as $l
	   | (map(select(.server != "larder").server) | unique)[] as $other
	   | ($runs | map(select(.server == $other).rps) | median) as $b
	   | [$runs | group_by(.round)[] | (map(select(.server == "larder").rps) | add) / (map(select(.server == $other).rps) | add)] as $r
	   | ((map(select(.server == "larder").p99_ms) | median) / ($runs | map(select(.server == $other).p99_ms) | median)) as $p99
	   | ["ratio", $runs[0].scenario, $other, $l / $b, ($r | median), ($r | min), ($r | max), $p99])
	| @tsv' "$RESULTS"/*-r*.json |
	awk -F'\t' '
	BEGIN {
		name["get"] = "GET /v1/tags/{id}"; name["list"] = "GET /v1/tags (200 rows)"
		printf "%-24s %-9s %22s %8s %8s %8s %6s | %-26s |\n", "", "", "", "", "", "", "", "CPU ms per request"
		printf "%-24s %-9s %22s %8s %8s %8s %6s | %8s %8s %8s | %s\n", "scenario", "server", "req/s [min-max]", "p50 ms", "p99 ms", "p99.9 ms", "errors", "server", "postgres", "load", "other cores"
	}
	$1 == "row" {
		printf "%-24s %-9s %8.0f [%5.0f-%5.0f] %8.2f %8.2f %8.2f %6d | %8.3f %8.3f %8.3f | %5.2f\n", (($2 in name) ? name[$2] : $2), $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14
	}
	$1 == "ratio" {
		line = sprintf("ratio larder/%-8s req/s, %-24s %4.2f (per round: median %4.2f, %4.2f-%4.2f); p99 %4.2fx",
			$3, ($2 in name) ? name[$2] : $2, $4, $5, $6, $7, $8)
		if ($3 == "spec") {
			ratios = ratios line "  (no target: what the specification asks, by hand)\n"
		} else if ($3 == "old") {
			ratios = ratios line "  (no target: this tree against the build of OLD)\n"
		} else if ($3 == "pgbench") {
			ratios = ratios line "  (no target: the fraction of PostgreSQL'"'"'s own rate for the statement Larder sends)\n"
		} else {
			target = ($3 == "keyed") ? 1.0 : 0.5
			ratios = ratios line sprintf("  target >= %4.2f: %s\n", target, ($4 >= target) ? "met" : "NOT met")
		}
	}
	END { printf "%s", ratios }' | tee "$RESULTS/summary.txt"

echo
echo "== PostgreSQL's CPU per request by its processes (ms, median of $ROUNDS rounds): backend is the connections' own, the writer's of the request log among them; request-log-writer is that writer's alone" |
	tee -a "$RESULTS/summary.txt"
jq -rs '
	def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	map(select(.cpu_ms_per_req) | . + {server: (.label | split("/")[0]), scenario: (.label | split("/")[1])})
	| ([.[].cpu_ms_per_req | keys[] | select(startswith("postgres/"))] | unique) as $kinds
	| (["scenario", "server"] + ($kinds | map(ltrimstr("postgres/")))),
	  (group_by([.scenario, .server])[]
	   | [.[0].scenario, .[0].server] + [$kinds[] as $k | (map(.cpu_ms_per_req[$k] // 0) | median | . * 1000 | round / 1000)])
	| @tsv' "$RESULTS"/*-r*.json | column -t | tee -a "$RESULTS/summary.txt"

if [[ $PROFILE == 1 ]]; then
	echo
	echo "== CPU profile of Larder: one more run per scenario, ${PROFILE_SECONDS}s recorded by $DEBUG/debug/pprof/profile (not in the summary)"
	for s in $SCENARIOS; do
		"$BIN/load" -url "$LARDER" -key "$KEY" -c "$CONCURRENCY" -d "$((PROFILE_SECONDS + 1))s" -warmup 1s \
			-paths-file "$RESULTS/$s-paths.txt" -label "larder/$s/profiled" \
			-cpu-pid "server=$LARDER_PID" -cpu-comm postgres >"$RESULTS/profile-$s.txt" &
		load_pid=$!
		PIDS+=("$load_pid")
		sleep 1
		curl -sf -o "$RESULTS/cpu-$s.pprof" "$DEBUG/debug/pprof/profile?seconds=$PROFILE_SECONDS"
		wait "$load_pid"
		cat "$RESULTS/profile-$s.txt"
		go tool pprof -top "$RESULTS/cpu-$s.pprof" >"$RESULTS/cpu-$s.top" 2>/dev/null ||
			echo "run.sh: go tool pprof could not read $RESULTS/cpu-$s.pprof" >&2
		echo "profile: $RESULTS/cpu-$s.pprof (top: cpu-$s.top; go tool pprof -top -cum $RESULTS/cpu-$s.pprof)"
	done
fi

if [[ $QUERYCOST == 1 ]]; then
	echo
	echo "== each per-request statement alone: c=$CONCURRENCY, $QUERY_DURATION each, pool of 20 (servers idle)"
	"$BIN/querycost" --database "$DB$DSN_EXTRA" --key "$KEY" --account "$ACCOUNT" -c "$CONCURRENCY" -d "$QUERY_DURATION" |
		tee "$RESULTS/querycost.txt"
fi
echo
echo "results: $RESULTS"
