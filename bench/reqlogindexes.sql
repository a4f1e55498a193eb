-- What each of the request log's indexes costs PostgreSQL per row: the
-- backend's CPU time for inserting the same 200,000 logged requests into
-- copies of api_requests (unpartitioned) with one index set each, read from
-- /proc (psql and PostgreSQL on one host). Run it on a database a
-- bench/requestlog.sh run kept (DROP=0; ROWS=200000 is enough):
--
--   psql -X -q -f bench/reqlogindexes.sql 'postgres://postgres@127.0.0.1:5432/rl_requestlog?sslmode=disable'
--
-- Each line prints a set's name and the backend's CPU ticks (1/100 s) for
-- the rows; the copies are dropped at the end, nothing else changes.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE TEMP TABLE reqlogindexes_rows AS
  SELECT * FROM api_requests WHERE account_id IS NOT NULL ORDER BY created_at, id LIMIT 200000;
SELECT count(*) AS rows FROM reqlogindexes_rows \gset
\echo :rows rows; CPU ticks of 10 ms per index set:
SELECT pg_backend_pid() AS pid \gset
\setenv PID :pid
CREATE FUNCTION pg_temp.copy_with(name text, idx text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE i text; n int := 0;
BEGIN
  EXECUTE format('DROP TABLE IF EXISTS %I', name);
  EXECUTE format('CREATE TABLE %I (LIKE api_requests INCLUDING DEFAULTS)', name);
  FOREACH i IN ARRAY idx LOOP
    n := n + 1;
    EXECUTE format('CREATE INDEX %I ON %I %s', name || '_' || n, name, i);
  END LOOP;
END $$;
-- The sets: none; the log's indexes before 2026-12-05, on 2026-12-05 and
-- since 2026-12-06 (no request id index); each alone.
\o /dev/null
SELECT pg_temp.copy_with('reqlogix_none', ARRAY[]::text[]);
SELECT pg_temp.copy_with('reqlogix_before', ARRAY['(id, created_at)', '(account_id, created_at, id)',
  '(account_id, api_key_id, created_at, id)', '(account_id, operation, created_at, id)',
  '(account_id, status_class, created_at, id) WHERE status >= 300', '(account_id, error_code, created_at, id) WHERE status >= 400',
  '(account_id, method, created_at, id) WHERE request_body IS NOT NULL', '(account_id, api_key_id, deprecated) WHERE deprecated <> ''''',
  '(request_id)', 'USING brin (created_at)']);
SELECT pg_temp.copy_with('reqlogix_dec05', ARRAY['(id, created_at)', '(account_id, created_at, id, api_key_id, operation)',
  '(account_id, status_class, created_at, id) WHERE status >= 300', '(account_id, error_code, created_at, id) WHERE status >= 400',
  '(account_id, method, created_at, id, operation) WHERE request_body IS NOT NULL', '(account_id, api_key_id, deprecated) WHERE deprecated <> ''''',
  '(request_id)', 'USING brin (created_at)']);
SELECT pg_temp.copy_with('reqlogix_now', ARRAY['(id, created_at)', '(account_id, created_at, id, api_key_id, operation)',
  '(account_id, status_class, created_at, id) WHERE status >= 300', '(account_id, error_code, created_at, id) WHERE status >= 400',
  '(account_id, method, created_at, id, operation) WHERE request_body IS NOT NULL', '(account_id, api_key_id, deprecated) WHERE deprecated <> ''''',
  'USING brin (created_at)']);
SELECT pg_temp.copy_with('reqlogix_pkey', ARRAY['(id, created_at)']);
SELECT pg_temp.copy_with('reqlogix_account_time', ARRAY['(account_id, created_at, id)']);
SELECT pg_temp.copy_with('reqlogix_account_time_key_op', ARRAY['(account_id, created_at, id, api_key_id, operation)']);
SELECT pg_temp.copy_with('reqlogix_key', ARRAY['(account_id, api_key_id, created_at, id)']);
SELECT pg_temp.copy_with('reqlogix_operation', ARRAY['(account_id, operation, created_at, id)']);
SELECT pg_temp.copy_with('reqlogix_partials', ARRAY['(account_id, status_class, created_at, id) WHERE status >= 300',
  '(account_id, error_code, created_at, id) WHERE status >= 400', '(account_id, method, created_at, id) WHERE request_body IS NOT NULL',
  '(account_id, api_key_id, deprecated) WHERE deprecated <> ''''']);
SELECT pg_temp.copy_with('reqlogix_request_id', ARRAY['(request_id)']);
SELECT pg_temp.copy_with('reqlogix_brin', ARRAY['USING brin (created_at)']);
\o
SELECT string_agg(format($f$\setenv SET %1$s
\! awk '{print $14 + $15}' /proc/$PID/stat > /tmp/reqlogix.before
INSERT INTO %1$I SELECT * FROM reqlogindexes_rows;
\! echo "$SET $(( $(awk '{print $14 + $15}' /proc/$PID/stat) - $(cat /tmp/reqlogix.before) ))"
DROP TABLE %1$I;$f$, relname), E'\n' ORDER BY relname) AS steps
  FROM pg_class WHERE relname LIKE 'reqlogix\_%' AND relkind = 'r' \gset
\o /tmp/reqlogix.steps.sql
\qecho :steps
\o
\i /tmp/reqlogix.steps.sql
