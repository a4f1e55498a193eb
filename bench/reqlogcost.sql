-- What the request log's rows cost PostgreSQL: the backend's CPU time for
-- inserting 20,000 of them into a copy of api_requests with its indexes,
-- and into a copy without, read from /proc (psql and PostgreSQL on one
-- host). Run it on the database of a finished bench/run.sh, whose GETs
-- filled api_requests (see docs/performance.md, "Where each target stands"):
--
--   psql -X -f bench/reqlogcost.sql 'postgres://postgres@127.0.0.1:5432/larder_bench?sslmode=disable'
--
-- It prints the backend's CPU ticks (1/100 s) before and after each
-- insert; it creates and drops tables of its own and changes nothing else.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
DROP TABLE IF EXISTS reqlogcost_indexed, reqlogcost_bare;
CREATE TABLE reqlogcost_indexed (LIKE api_requests INCLUDING ALL);
CREATE TABLE reqlogcost_bare (LIKE api_requests INCLUDING DEFAULTS);
CREATE TEMP TABLE reqlogcost_rows AS SELECT * FROM api_requests ORDER BY id LIMIT 20000;
SELECT count(*) AS rows FROM reqlogcost_rows;
SELECT pg_backend_pid() AS pid \gset
\setenv PID :pid
\echo with the indexes of api_requests:
\! awk '{print "  ticks before", $14 + $15}' /proc/$PID/stat
INSERT INTO reqlogcost_indexed SELECT * FROM reqlogcost_rows;
\! awk '{print "  ticks after ", $14 + $15}' /proc/$PID/stat
\echo without indexes:
\! awk '{print "  ticks before", $14 + $15}' /proc/$PID/stat
INSERT INTO reqlogcost_bare SELECT * FROM reqlogcost_rows;
\! awk '{print "  ticks after ", $14 + $15}' /proc/$PID/stat
DROP TABLE reqlogcost_indexed, reqlogcost_bare;
