#!/usr/bin/env bash
# Lots at scale: an account with about 1,000,000 product lots beside another
# with as many, on a fresh PostgreSQL database. Measures, one request at a
# time, GET /v1/product-lots pages through Larder against the same SQL in
# pgbench (the page and the COUNT a list answers with) and, for one product's
# page, against the hand-written keyed baseline (bench/baseline --auth
# --prepare: the key by hash, the COUNT, and the page with the borrowed fields
# joined), in ROUNDS interleaved rounds; and writes the plan of every
# documented filter and sort. See docs/performance.md, target 2b.
#
# Parameters (environment):
#   COPIES=9300   catalog copies per account; each copied product gets 4 lots (about 1,004,000 lots)
#   DURATION=10   measured seconds of each run
#   PG=postgres://postgres@127.0.0.1:5432   server; PGOPTS=sslmode=disable
#   DBNAME=larder_lots   database, dropped and created again
#   PORT=28990    Larder's port
#   RESULTS=dir   where logs, plans and results go (default: a new /tmp dir)
#   KEEP=0        1: reuse an existing, already seeded database
#   DENSE=50      products given 300 more lots each (the filtered page is full)
#   ROUNDS=3      rounds of the product page (Larder, baseline, pgbench each)
#   ALTERNATE=2000  then requests to each of Larder and the baseline, in turn (bench/alternate)
#   BASELINE_PORT=28991
set -euo pipefail

COPIES=${COPIES:-9300}
DURATION=${DURATION:-10}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
PGOPTS=${PGOPTS:-sslmode=disable}
DBNAME=${DBNAME:-larder_lots}
PORT=${PORT:-28990}
KEEP=${KEEP:-0}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-lots.XXXXXX)}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
cd "$(dirname "$0")/.."
DB="$PG/$DBNAME?$PGOPTS"
export LARDER_DATABASE_URL=$DB

go build -o "$RESULTS/larder" ./cmd/larder
go build -o "$RESULTS/load" ./bench/load
go build -o "$RESULTS/baseline" ./bench/baseline
go build -o "$RESULTS/alternate" ./bench/alternate
L=$RESULTS/larder

if [[ $KEEP != 1 ]]; then
	psql "$PG/postgres?$PGOPTS" -qc "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME"
	$L migrate --json >/dev/null
	for name in Other Measured; do
		org=$($L org create --name "$name" --json | jq -r .id)
		$L seed --org "$org" --env test --scale "$COPIES" --json >"$RESULTS/seed-$name.json" 2>/dev/null
	done
	psql "$DB" -qc "VACUUM ANALYZE"
fi
org=$(psql "$DB" -Atc "SELECT id FROM organizations WHERE name = 'Measured'")
acct=$(psql "$DB" -Atc "SELECT id FROM accounts WHERE organization_id = $org AND environment = 'test'")
echo "$(psql "$DB" -Atc "SELECT count(*) FROM product_lots WHERE account_id = $acct") lots in the measured account, $(psql "$DB" -Atc "SELECT count(*) FROM product_lots") in all" | tee "$RESULTS/summary.txt"

# Dense products: the scale seed gives each product four lots, so a page of one
# product is not a page of 200. DENSE products of the measured account get 300
# lots each more (numbered DENSE-…, spread expiry dates, each with its
# PRODUCT_FORM movement, as the API writes them), once.
DENSE=${DENSE:-50}
if [[ $(psql "$DB" -Atc "SELECT count(*) FROM product_lots WHERE account_id = $acct AND lot_number LIKE 'DENSE-%'") == 0 ]]; then
	psql "$DB" -q <<SQL
WITH p AS (SELECT id FROM products WHERE account_id = $acct AND product_code LIKE '%-S%' ORDER BY id LIMIT $DENSE),
lots AS (
	INSERT INTO product_lots (created_at, updated_at, location_key, lot_number, expiration_date, lot_origin, quantity_base, account_id, product_id)
	SELECT now(), now(), 0, 'DENSE-' || p.id || '-' || g, now() + (g * 7919 % 730) * interval '1 day', 'PRODUCT_FORM', 10 + g, $acct, p.id
	FROM p, generate_series(1, 300) g
	RETURNING id, quantity_base)
INSERT INTO stock_movements (type, quantity_base, source, created_at, lot_id, account_id)
SELECT 'PRODUCT_FORM', quantity_base, 'system', now(), id, $acct FROM lots;
VACUUM ANALYZE product_lots;
VACUUM ANALYZE stock_movements;
SQL
fi

key=$($L key create --org "$org" --env test --scopes all --json | jq -r .key)
$L serve --addr "127.0.0.1:$PORT" --rate-limit 100000000 --webhooks=false >"$RESULTS/serve.log" 2>&1 &
server=$!
BASELINE_PORT=${BASELINE_PORT:-28991}
"$RESULTS/baseline" --database "$DB" --addr "127.0.0.1:$BASELINE_PORT" --auth --prepare >"$RESULTS/baseline.log" 2>&1 &
baseline=$!
trap 'kill $server $baseline 2>/dev/null || true' EXIT
for _ in $(seq 300); do curl -fs "http://127.0.0.1:$PORT/v1/openapi.json" >/dev/null && break; sleep 0.1; done
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$BASELINE_PORT/v1/tags" && break; sleep 0.1; done
if ! kill -0 "$baseline" 2>/dev/null; then
	echo "lots.sh: the baseline did not start (is port $BASELINE_PORT taken?):" >&2
	cat "$RESULTS/baseline.log" >&2
	exit 1
fi

# The dense products, on both sides: every page holds 200 lots.
psql "$DB" -Atc "SELECT DISTINCT product_id FROM product_lots WHERE account_id = $acct AND lot_number LIKE 'DENSE-%' ORDER BY product_id" >"$RESULTS/products.txt"
n=$(wc -l <"$RESULTS/products.txt")
psql "$DB" -qc "DROP TABLE IF EXISTS bench_products" -c "CREATE TABLE bench_products (n int PRIMARY KEY, id bigint)"
awk '{print NR "," $1}' "$RESULTS/products.txt" | psql "$DB" -qc "\\copy bench_products FROM STDIN WITH (FORMAT csv)"

run() { # name, API paths file, pgbench script[, baseline port]
	"$RESULTS/load" -url "http://127.0.0.1:$PORT" -key "$key" -c 1 -d "${DURATION}s" -label "larder $1" \
		-paths-file "$2" -json "$RESULTS/larder-$1.json" | tee -a "$RESULTS/results.txt"
	if [[ -n ${4:-} ]]; then
		"$RESULTS/load" -url "http://127.0.0.1:$4" -key "$key" -c 1 -d "${DURATION}s" -label "keyed $1" \
			-paths-file "$2" -json "$RESULTS/keyed-$1.json" | tee -a "$RESULTS/results.txt"
	fi
	pgbench -n -c 1 -T "$DURATION" -f "$3" "$DB" >"$RESULTS/raw-$1.txt"
	echo "raw $1: $(grep 'latency average' "$RESULTS/raw-$1.txt")" | tee -a "$RESULTS/results.txt"
}

# 1. Filtered by product, sorted by expiration date, a full page of 200.
sed "s|^|/v1/product-lots?limit=200\&sort=expiration_date\&product_id=|" "$RESULTS/products.txt" >"$RESULTS/paths-product.txt"
cat >"$RESULTS/raw-product.sql" <<SQL
\\set i random(1, $n)
SELECT count(*) FROM product_lots WHERE account_id = $acct AND product_id = (SELECT id FROM bench_products WHERE n = :i);
SELECT * FROM product_lots WHERE account_id = $acct AND product_id = (SELECT id FROM bench_products WHERE n = :i)
ORDER BY expiration_date ASC NULLS LAST, id ASC LIMIT 200;
SQL
# The baseline must answer what Larder answers (keys in any order), a full page.
first=$(head -1 "$RESULTS/paths-product.txt")
curl -fsS -H "Authorization: Bearer $key" "http://127.0.0.1:$PORT$first" >"$RESULTS/check-larder.json"
curl -fsS -H "Authorization: Bearer $key" "http://127.0.0.1:$BASELINE_PORT$first" >"$RESULTS/check-keyed.json"
jq -e '.data | length == 200' "$RESULTS/check-larder.json" >/dev/null
if ! cmp -s <(jq -S . "$RESULTS/check-larder.json") <(jq -S . "$RESULTS/check-keyed.json"); then
	echo "lots.sh: the baseline's page of $first differs from Larder's" >&2
	exit 1
fi
for round in $(seq "${ROUNDS:-3}"); do
	echo "== round $round" | tee -a "$RESULTS/results.txt"
	run product "$RESULTS/paths-product.txt" "$RESULTS/raw-product.sql" "$BASELINE_PORT"
done
# The two servers again, one request at a time each in turn, with their CPU.
echo "== alternating" | tee -a "$RESULTS/results.txt"
"$RESULTS/alternate" -key "$key" -paths-file "$RESULTS/paths-product.txt" -n "${ALTERNATE:-2000}" \
	-cpu-pid "larder=$server,keyed=$baseline" larder="http://127.0.0.1:$PORT" keyed="http://127.0.0.1:$BASELINE_PORT" |
	tee -a "$RESULTS/results.txt"

# 2. The whole account sorted by expiration date, first page of 200 (the COUNT covers a million rows).
echo "/v1/product-lots?limit=200&sort=expiration_date" >"$RESULTS/paths-all.txt"
cat >"$RESULTS/raw-all.sql" <<SQL
SELECT count(*) FROM product_lots WHERE account_id = $acct;
SELECT * FROM product_lots WHERE account_id = $acct ORDER BY expiration_date ASC NULLS LAST, id ASC LIMIT 200;
SQL
run all "$RESULTS/paths-all.txt" "$RESULTS/raw-all.sql"

# The plan of every documented filter and sort.
pid=$(head -1 "$RESULTS/products.txt")
wh=$(psql "$DB" -Atc "SELECT id FROM locations WHERE account_id = $acct AND parent_id IS NULL LIMIT 1")
{
	for where in "product_id = $pid" "lot_number ILIKE '%l2-%'" "location_id = $wh" \
		"(warehouse_id = $wh OR warehouse_id IS NULL)" "archived = true" "updated_at > now() - interval '1 minute'"; do
		echo "== filter $where"
		psql "$DB" -Atc "EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM product_lots WHERE account_id = $acct AND $where ORDER BY id LIMIT 200"
	done
	for sort in created_at expiration_date lot_number product_name quantity_base updated_at; do
		echo "== sort $sort"
		psql "$DB" -Atc "EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM product_lots WHERE account_id = $acct ORDER BY $sort ASC NULLS LAST, id ASC LIMIT 200"
	done
} >"$RESULTS/plans.txt"
echo "results in $RESULTS"
