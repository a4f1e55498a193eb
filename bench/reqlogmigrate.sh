#!/usr/bin/env bash
# How long the request log's conversion to day partitions takes
# (migrate/migrations/postgres/20261205193000_request_log_partitions.sql):
# a scratch database gets every PostgreSQL migration before it (with psql),
# ROWS requests over DAYS days (a tenth with bodies, as the log's writes
# and errors keep them), then the conversion alone, timed. See
# docs/operators.md, "Request log".
#
# Parameters (environment):
#   ROWS=1000000   requests in the log before the conversion
#   DAYS=30        days they span, ending now
#   PG=postgres://postgres@127.0.0.1:5432   server; PGOPTS=sslmode=disable
#   DBNAME=rl_reqlogmigrate   database, dropped and created again, dropped at the end
set -euo pipefail

ROWS=${ROWS:-1000000}
DAYS=${DAYS:-30}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
PGOPTS=${PGOPTS:-sslmode=disable}
DBNAME=${DBNAME:-rl_reqlogmigrate}
cd "$(dirname "$0")/.."
CONVERSION=migrate/migrations/postgres/20261205193000_request_log_partitions.sql
DB="$PG/$DBNAME?$PGOPTS"

psql "$PG/postgres?$PGOPTS" -qc "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME"
trap 'psql "$PG/postgres?$PGOPTS" -qc "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)"' EXIT
for f in migrate/migrations/postgres/*.sql; do
	[[ $f < $CONVERSION ]] || continue
	psql -X -q -v ON_ERROR_STOP=1 "$DB" -f "$f" >/dev/null
done
psql -X -q -v ON_ERROR_STOP=1 "$DB" <<SQL
INSERT INTO api_requests (created_at, account_id, api_key_id, method, operation, path, status, status_class, error_code,
	request_id, client_request_id, duration_us, client_addr, user_agent, request_body, response_body, truncated, deprecated)
SELECT now() - make_interval(secs => ($DAYS * 86400.0) * i / $ROWS), 1 + i % 2, 1 + i % 5,
	CASE WHEN i % 10 = 0 THEN 'POST' ELSE 'GET' END, 'getTag', '/v1/tags/' || i,
	CASE WHEN i % 20 = 0 THEN 422 ELSE 200 END, CASE WHEN i % 20 = 0 THEN 4 ELSE 2 END,
	CASE WHEN i % 20 = 0 THEN 'VALIDATION_ERROR' ELSE '' END, 'req_' || md5(i::text), '', 900 + i % 500,
	'192.0.2.' || i % 250, 'larder-bench/1.0',
	CASE WHEN i % 10 = 0 THEN convert_to(repeat('{"name":"tag ' || i || '"}', 8), 'UTF8') END,
	CASE WHEN i % 10 = 0 THEN convert_to(repeat('{"id":' || i || ',"name":"tag"}', 8), 'UTF8') END, false, ''
FROM generate_series(1, $ROWS) AS i;
SQL
psql -X -q "$DB" -Atc "SELECT 'before: ' || count(*) || ' rows, table ' || pg_size_pretty(pg_table_size('api_requests')) || ', indexes ' || pg_size_pretty(pg_indexes_size('api_requests')) FROM api_requests"
start=$(date +%s.%N)
psql -X -q -v ON_ERROR_STOP=1 "$DB" -f "$CONVERSION"
end=$(date +%s.%N)
psql -X -q "$DB" -Atc "SELECT 'after: ' || count(*) || ' rows in ' || (SELECT count(*) FROM pg_inherits WHERE inhparent = 'api_requests'::regclass) || ' days' FROM api_requests"
echo "conversion of $ROWS rows: $(echo "$end - $start" | bc) s (load: $(uptime | sed 's/.*load average: //'))"
