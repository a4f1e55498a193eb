#!/usr/bin/env bash
# PostgreSQL's time per request, statement by statement: runs one server of a
# finished bench/run.sh under load with every statement logged, and prints, for
# each kind of statement (its phase and first words), how many ran per request
# and how long PostgreSQL took for them (its own duration: parse, bind or
# execute). See docs/performance.md.
#
# Parameters (environment):
#   RESULTS=dir        a bench/run.sh results directory (required): its
#                      bench.env, bin/ and *-paths.txt are used
#   SERVER=larder      larder or keyed
#   SCENARIO=get       get or list
#   DURATION=3s        measured time (after a 1s warm-up); c=16
#   PORT=29001         the server's port for the run
#   LOG=/var/log/postgresql/postgresql-15-main.log   the server log (stderr
#                      of PostgreSQL, readable by this user)
#
# The logging slows PostgreSQL: compare kinds and counts, not these durations
# with bench/run.sh's throughput.
set -euo pipefail

: "${RESULTS:?RESULTS must name a bench/run.sh results directory}"
SERVER=${SERVER:-larder}
SCENARIO=${SCENARIO:-get}
DURATION=${DURATION:-3s}
PORT=${PORT:-29001}
LOG=${LOG:-/var/log/postgresql/postgresql-15-main.log}

# shellcheck disable=SC1091 # written by run.sh
source "$RESULTS/bench.env"
DBNAME=$(sed -E 's#^[^/]*//[^/]*/([^?]*).*#\1#' <<<"$DB")
BIN=$RESULTS/bin

psql -X -q "$DB" -c "ALTER DATABASE $DBNAME SET log_min_duration_statement = 0"
trap 'psql -X -q "$DB" -c "ALTER DATABASE $DBNAME RESET log_min_duration_statement"; kill "$pid" 2>/dev/null || true' EXIT

case $SERVER in
larder) "$BIN/larder" serve --database "$DB" --addr "127.0.0.1:$PORT" --rate-limit 100000000 >"$RESULTS/statements-$SERVER.log" 2>&1 & ;;
keyed) "$BIN/baseline" --database "$DB" --addr "127.0.0.1:$PORT" --account "$ACCOUNT" --auth --prepare >"$RESULTS/statements-$SERVER.log" 2>&1 & ;;
*) echo "SERVER must be larder or keyed" >&2; exit 2 ;;
esac
pid=$!
for _ in $(seq 100); do
	curl -fs -o /dev/null -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT$(head -n1 "$RESULTS/$SCENARIO-paths.txt")" && break
	sleep 0.1
done

start=$(stat -c %s "$LOG")
"$BIN/load" -url "http://127.0.0.1:$PORT" -key "$KEY" -c 16 -d "$DURATION" -warmup 1s \
	-paths-file "$RESULTS/$SCENARIO-paths.txt" -label "$SERVER/$SCENARIO" -json "$RESULTS/statements-$SERVER-$SCENARIO.json" | head -n1
kill "$pid"
wait "$pid" 2>/dev/null || true
end=$(stat -c %s "$LOG")
tail -c +"$((start + 1))" "$LOG" | head -c "$((end - start))" >"$RESULTS/statements-$SERVER-$SCENARIO.txt"

# Requests are counted by the statement that reads the answer's rows, which
# every request of both scenarios runs once: the select on tags (not a count).
grep -o 'duration: [0-9.]* ms  [a-z]*[^:]*: .\{0,40\}' "$RESULTS/statements-$SERVER-$SCENARIO.txt" |
	sed -E 's/duration: ([0-9.]+) ms  ([a-z]+)[^:]*: (.*)/\1\t\2\t\3/' |
	awk -F'\t' '
	{
		split($3, w, " "); kind = $2 " " w[1] " " w[2] " " w[3]
		n[kind]++; ms[kind] += $1; total += $1
		if ($2 == "execute" && $3 ~ /^SELECT ("tags"[.]|id, description)/) requests++
	}
	END {
		if (requests == 0) { print "no request reached PostgreSQL" > "/dev/stderr"; exit 1 }
		printf "%d requests\n%10s %12s %12s  %s\n", requests, "per req", "ms per req", "ms each", "phase and first words"
		sort = "sort -k2 -rn"
		for (k in n) printf "%10.4f %12.4f %12.4f  %s\n", n[k] / requests, ms[k] / requests, ms[k] / n[k], k | sort
		close(sort)
		printf "%10s %12.4f %12s  all statements\n", "", total / requests, ""
	}'
