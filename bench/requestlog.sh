#!/usr/bin/env bash
# Request log at scale (bench/requestlog): one live account with 10,000,000
# logged requests over 30 days beside another with 1,000,000 (and 20,000
# failed authentications), written in bulk (COPY on PostgreSQL, a transaction
# of prepared INSERTs on SQLite); then every query the console and the CLI
# run through package reqlog, each filter alone, page 100 by the cursor, a
# lookup by request id, the Requests page's counts per hour and per day,
# the failed authentications, and the pruning of one
# day, timed as the median of RUNS runs; with each query's plan (EXPLAIN
# ANALYZE on PostgreSQL, EXPLAIN QUERY PLAN on SQLite). See
# docs/performance.md, "Request log".
#
# Parameters (environment):
#   ROWS=10000000   requests of the measured account
#   OTHER=1000000   requests of the other account, interleaved in time
#   FAILED=20000    failed authentications (no account)
#   RUNS=7          timed runs of each query, after one untimed
#   PRUNE_RUNS=3    Prune runs, each deleting the oldest day left
#   SQLITE=0        1: a new SQLite file under RESULTS instead of PostgreSQL
#   PG=postgres://postgres@127.0.0.1:5432   server; PGOPTS=sslmode=disable
#   DBNAME=rl_requestlog   PostgreSQL database, dropped and created again
#   KEEP=0          1: measure the log a previous run left in RESULTS (database or file), without filling
#   DROP=1          PostgreSQL: drop the database at the end (0 keeps it for KEEP=1)
#   RESULTS=dir     where results.txt, results.json, plans.txt and fill.json go (default: a new /tmp dir)
set -euo pipefail

ROWS=${ROWS:-10000000}
OTHER=${OTHER:-1000000}
FAILED=${FAILED:-20000}
RUNS=${RUNS:-7}
PRUNE_RUNS=${PRUNE_RUNS:-3}
SQLITE=${SQLITE:-0}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
PGOPTS=${PGOPTS:-sslmode=disable}
DBNAME=${DBNAME:-rl_requestlog}
KEEP=${KEEP:-0}
DROP=${DROP:-1}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-requestlog.XXXXXX)}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
cd "$(dirname "$0")/.."

go build -o "$RESULTS/requestlog" ./bench/requestlog

fill=true
[[ $KEEP == 1 ]] && fill=false
if [[ $SQLITE == 1 ]]; then
	[[ $KEEP == 1 ]] || rm -f "$RESULTS"/larder.db*
	url="sqlite://$RESULTS/larder.db"
else
	if [[ $KEEP != 1 ]]; then
		psql "$PG/postgres?$PGOPTS" -qc "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME"
	fi
	url="$PG/$DBNAME?$PGOPTS"
	if [[ $DROP == 1 ]]; then
		trap 'psql "$PG/postgres?$PGOPTS" -qc "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)"' EXIT
	fi
fi

"$RESULTS/requestlog" -database "$url" -rows "$ROWS" -other "$OTHER" -failed "$FAILED" \
	-runs "$RUNS" -prune-runs "$PRUNE_RUNS" -fill="$fill" -out "$RESULTS"
if [[ $SQLITE == 1 ]]; then
	du -h "$RESULTS/larder.db" | tee -a "$RESULTS/results.txt"
else
	# The day partitions' sizes (a partitioned table holds no rows itself).
	psql "$url" -Atc "SELECT 'table ' || pg_size_pretty(sum(pg_table_size(c.oid))) || ', indexes ' || pg_size_pretty(sum(pg_indexes_size(c.oid)))
		|| ' in ' || count(*) || ' day partitions' FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'api_requests'::regclass" |
		tee -a "$RESULTS/results.txt"
	psql "$url" -Atc "SELECT indexrelname || ' ' || pg_size_pretty(pg_relation_size(indexrelid)) FROM pg_stat_user_indexes WHERE relname = 'api_requests' ORDER BY 1" | tee -a "$RESULTS/results.txt"
fi
echo "results in $RESULTS"
