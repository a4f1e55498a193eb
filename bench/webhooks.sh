#!/usr/bin/env bash
# Webhook dispatcher benchmark (bench/webhooks): latency from commit to
# delivery, throughput of one process, and latency beside a slow endpoint, on
# a fresh PostgreSQL database (DBNAME, default larder_webhooks, dropped and
# created again) or, with SQLITE=1, a new SQLite file. Extra arguments go to
# the tool (-changes, -gap, -backlog, -slow-backlog, -concurrency,
# -per-endpoint, -cpuprofile). See docs/performance.md, target 4.
set -euo pipefail
cd "$(dirname "$0")/.."
PG=${PG:-postgres://postgres@127.0.0.1:5432}
DBNAME=${DBNAME:-larder_webhooks}
if [[ ${SQLITE:-0} == 1 ]]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	url="sqlite://$dir/larder.db"
else
	psql "$PG/postgres?sslmode=disable" -qc "DROP DATABASE IF EXISTS $DBNAME" -c "CREATE DATABASE $DBNAME" 2>/dev/null
	url="$PG/$DBNAME?sslmode=disable"
fi
go run ./bench/webhooks -database "$url" "$@"
