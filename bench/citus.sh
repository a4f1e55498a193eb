#!/usr/bin/env bash
# Larder on a Citus cluster (docs/scaling.md, "On a Citus cluster"): a
# coordinator and WORKERS workers of PostgreSQL 15 with Citus 13.2, each with
# its own data directory and loopback port, Larder's migrations applied to
# the coordinator and its tables placed as the schemas class them (`larder
# migrate distribute`: reference tables on every node, the account tables
# distributed by account_id and co-located, the rest on the coordinator);
# then `larder serve` on the coordinator, its webhook dispatcher on, and a
# round of the API's reads and writes for two organizations, whose test
# accounts each have a webhook endpoint at a receiver on loopback (bench/fleet
# -mode receive); and, with MEASURE=1, the rates below. It waits for every
# delivery of those accounts to succeed and reach the receiver, reports
# where each distributed table's shards are, and every statement of a
# distributed table that Citus ran on more than one shard
# (citus_stat_statements: no partition key), and exits 1 if an API call
# failed, a delivery did not succeed, the placing left a table out, or a
# statement of a distributed table ran on more than one shard, other than
# those that cross shards by design (CROSS below). The cluster stops when
# the script does. About 1 minute once Citus is built (2 with MEASURE=1).
#
# With FLEET=1 it then runs bench/fleet's mixed load (-mode load: reads,
# lists, purchase orders and bills with Idempotency-Keys retried until
# acknowledged, sales orders and their shipments) against Larder on the
# cluster, FLEET_CLIENTS=8 clients for FLEET_DURATION=30s, for an
# organization of its own whose endpoint is the load's receiver; it reads
# every acknowledged write back and waits for every event of the load to be
# delivered, and exits 1 unless none was lost, every answer was 2xx or 4xx,
# and every event arrived. The statement check then covers that load too.
#
# Needs PostgreSQL 15's programs and Citus 13.2 built for it; when Citus is
# missing, CITUS_SOURCE names a directory whose build.sh builds and installs
# it. Run as root (PostgreSQL runs as postgres) or as postgres.
#
# With MEASURE=1 it then measures, against Larder on the cluster, the rate of
# GET /v1/tags/{id}, of the 200-row tag list and of 200-line purchase orders
# (bench/load, CONCURRENCY=16 for DURATION=10s each, one organization's test
# account), for comparing WORKERS=1 with WORKERS=2.
#
# With MOVE=1 it then moves an account between workers under load: while
# WRITERS=4 loops create tags for the second organization's test account,
# each POST with an Idempotency-Key of its own, the account's shard group
# (every distributed table's shard holding it, co-located) moves to the
# other worker (citus_move_shard_placement, MOVE_MODE=block_writes, or
# force_logical); the writers go on for 2 s after the move. Every write
# answered 2xx must then be in the database; the script reports the writes,
# their answers, the move's time, and exits 1 if one is lost or the move
# failed.
#
# Parameters (environment): PORT=28500 (the coordinator; the workers take the
# next ports, Larder the one after them), WORKERS=2, RESULTS (directory),
# KEEP=0 (1: leave the cluster running and its data directories in place),
# MEASURE=0, DURATION=10s, CONCURRENCY=16, SUITES= (Go packages whose suites
# then run on the cluster, on PostgreSQL alone, each package in a database of
# its own made on every node and placed: dbtest's LARDER_TEST_CITUS_WORKERS;
# e.g. SUITES=./handlers; a failing suite makes the script exit 1), FLEET=0,
# FLEET_DURATION=30s, FLEET_CLIENTS=8.
set -euo pipefail
PORT=${PORT:-28500}
WORKERS=${WORKERS:-2}
KEEP=${KEEP:-0}
MEASURE=${MEASURE:-0}
MOVE=${MOVE:-0}
MOVE_MODE=${MOVE_MODE:-block_writes}
WRITERS=${WRITERS:-4}
SUITES=${SUITES:-}
DURATION=${DURATION:-10s}
CONCURRENCY=${CONCURRENCY:-16}
FLEET=${FLEET:-0}
FLEET_DURATION=${FLEET_DURATION:-30s}
FLEET_CLIENTS=${FLEET_CLIENTS:-8}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-citus.XXXXXX)}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
cd "$(dirname "$0")/.."

if [[ ! -f /usr/lib/postgresql/15/lib/citus.so ]]; then
	if [[ -z ${CITUS_SOURCE:-} || ! -x $CITUS_SOURCE/build.sh ]]; then
		echo "citus: Citus is not installed for PostgreSQL 15; set CITUS_SOURCE to a directory whose build.sh builds it" >&2
		exit 2
	fi
	"$CITUS_SOURCE/build.sh"
fi

as_pg() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
mkdir -p "$RESULTS/bin"
chmod 755 "$RESULTS"
go build -o "$RESULTS/bin/larder" ./cmd/larder
go build -o "$RESULTS/bin/load" ./bench/load
go build -o "$RESULTS/bin/fleet" ./bench/fleet
L=$RESULTS/bin/larder

NODES=$((WORKERS + 1))
stop() {
	[[ -n ${SERVER:-} ]] && kill "$SERVER" 2>/dev/null || true
	[[ -n ${RECEIVER:-} ]] && kill "$RECEIVER" 2>/dev/null || true
	if [[ $KEEP != 1 ]]; then
		for ((i = 0; i < NODES; i++)); do
			as_pg "$PGBIN/pg_ctl" -D "$RESULTS/node$i" -m immediate stop >/dev/null 2>&1 || true
			cp "$RESULTS/node$i/log" "$RESULTS/node$i.log" 2>/dev/null || true
			rm -rf "$RESULTS/node$i"
		done
	fi
}
trap stop EXIT

echo "== $NODES nodes: the coordinator on $PORT, workers on $((PORT + 1))..$((PORT + WORKERS))"
for ((i = 0; i < NODES; i++)); do
	d=$RESULTS/node$i
	mkdir -p "$d"
	chown postgres "$d" 2>/dev/null || true
	as_pg "$PGBIN/initdb" -D "$d" --auth=trust -U postgres >"$RESULTS/initdb$i.log"
	cat >>"$d/postgresql.conf" <<-EOF
		port = $((PORT + i))
		listen_addresses = '127.0.0.1'
		unix_socket_directories = '$d'
		shared_preload_libraries = 'citus,pg_stat_statements'
		citus.stat_statements_track = 'all'
		max_connections = 200
		fsync = off
		wal_level = logical
	EOF
	as_pg "$PGBIN/pg_ctl" -D "$d" -l "$d/log" -w start >/dev/null
	psql -X -q -v ON_ERROR_STOP=1 "postgres://postgres@127.0.0.1:$((PORT + i))/postgres" \
		-c "CREATE DATABASE larder" >/dev/null
	psql -X -q -v ON_ERROR_STOP=1 "postgres://postgres@127.0.0.1:$((PORT + i))/larder" \
		-c "CREATE EXTENSION citus" -c "CREATE EXTENSION pg_stat_statements" >/dev/null
done
DB="postgres://postgres@127.0.0.1:$PORT/larder?sslmode=disable"
psql -X -q -v ON_ERROR_STOP=1 "$DB" -c "SELECT citus_set_coordinator_host('127.0.0.1', $PORT)" >/dev/null
for ((i = 1; i < NODES; i++)); do
	psql -X -q -v ON_ERROR_STOP=1 "$DB" -c "SELECT citus_add_node('127.0.0.1', $((PORT + i)))" >/dev/null
done
psql -X -At "$DB" -c "SELECT 'citus ' || citus_version()" | cut -d' ' -f1-3 | tee "$RESULTS/report.txt"

echo "== migrate and place the tables"
"$L" migrate --database "$DB" --json >"$RESULTS/migrate.json"
"$L" migrate distribute --database "$DB" --json | tee "$RESULTS/placed.json" |
	jq -r '"\(.reference | length) reference tables, \(.distributed | length) distributed, \(.local | length) local; \(.foreign_keys) foreign keys added again"' |
	tee -a "$RESULTS/report.txt"
missing=$(psql -X -At "$DB" -c "SELECT count(*) FROM jsonb_array_elements_text('$(jq -c '.reference + .distributed' "$RESULTS/placed.json")'::jsonb) t(name)
	WHERE NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid::regclass::text = t.name)")
if [[ $missing != 0 ]]; then
	echo "citus: $missing tables are not placed" >&2
	exit 1
fi
psql -X -At "$DB" -c "SELECT 'shards of the distributed tables by node: ' || string_agg(nodeport || ' ' || n, ', ' ORDER BY nodeport)
	FROM (SELECT nodeport, count(*) n FROM citus_shards WHERE citus_table_type = 'distributed' GROUP BY nodeport) s" |
	tee -a "$RESULTS/report.txt"

echo "== serve on the coordinator, the webhook dispatcher on, and call the API"
LPORT=$((PORT + NODES))
RPORT=$((LPORT + 1)) # the receiver of the organizations' endpoints; FLEET=1's the next
"$RESULTS/bin/fleet" -mode receive -port "$RPORT" -received "$RESULTS/received.txt" >"$RESULTS/receiver.log" 2>&1 &
RECEIVER=$!
# The endpoints are on loopback: private addresses allowed.
LARDER_WEBHOOK_ALLOW_PRIVATE=1 "$L" serve --database "$DB" --addr "127.0.0.1:$LPORT" --rate-limit 100000000 >"$RESULTS/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$LPORT/readyz" >/dev/null && break; sleep 0.2; done
psql -X -q "$DB" -c "SELECT citus_stat_statements_reset()" -c "SELECT pg_stat_statements_reset()" >/dev/null
failed=0
call() { # method path key [body]: prints the answer, counts a failure
	local s
	s=$(curl -s -o "$RESULTS/answer.json" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $3" \
		-H 'Content-Type: application/json' ${4:+-d "$4"} "http://127.0.0.1:$LPORT$2")
	if [[ $s != 2* ]]; then
		echo "citus: $1 $2 answered $s: $(head -c 300 "$RESULTS/answer.json")" >&2
		failed=$((failed + 1))
	fi
	cat "$RESULTS/answer.json"
}
accounts=()
for name in "Boulangerie Nord" "Fromagerie Sud"; do
	"$L" org create --name "$name" --database "$DB" --json >"$RESULTS/org.json"
	org=$(jq -r .id "$RESULTS/org.json")
	accounts+=("$(jq -r .accounts.test.id "$RESULTS/org.json")")
	key=$("$L" key create --org "$org" --env test --scopes all --database "$DB" --json | jq -r .key)
	LARDER_WEBHOOK_ALLOW_PRIVATE=1 "$L" webhook create --org "$org" --env test --url "http://127.0.0.1:$RPORT/hook" \
		--database "$DB" --json >/dev/null
	tag=$(call POST /v1/tags "$key" '{"name":"citus","ref_type":"PRODUCT"}' | jq -r .data.id)
	call GET "/v1/tags/$tag" "$key" >/dev/null
	call GET "/v1/tags?ref_type=PRODUCT&limit=200" "$key" >/dev/null
	call PATCH "/v1/tags/$tag" "$key" '{"description":"placed by account"}' >/dev/null
	call GET "/v1/units-of-measure?limit=20" "$key" >/dev/null
	product=$(call GET "/v1/products?limit=50" "$key" | jq -r '.data[0].id')
	call GET "/v1/products/$product" "$key" >/dev/null
	supplier=$(call GET "/v1/suppliers?limit=1" "$key" | jq -r '.data[0].id')
	call POST /v1/purchase-orders "$key" "{\"supplier_id\":$supplier,\"lines\":[{\"product_id\":$product,\"quantity\":5,\"cost\":2.5}]}" >/dev/null
	call GET "/v1/purchase-orders?limit=20" "$key" >/dev/null
	call GET "/v1/product-lots?limit=20" "$key" >/dev/null
	call DELETE "/v1/tags/$tag" "$key" >/dev/null
done
echo "API calls that failed: $failed" | tee -a "$RESULTS/report.txt"
# Every event of the two test accounts is fanned out, every delivery
# succeeds (read by account: one shard each), and its event reaches the
# receiver.
deliveries() { # the accounts' events not fanned out, deliveries succeeded, all deliveries
	local a w=0 s=0 n=0 row
	for a in "${accounts[@]}"; do
		row=$(psql -X -At -F ' ' "$DB" -c "SELECT count(*) FROM events WHERE account_id = $a AND dispatched_at IS NULL" \
			-c "SELECT count(*) FILTER (WHERE status = 'succeeded'), count(*) FROM webhook_deliveries WHERE account_id = $a" | tr '\n' ' ')
		read -r x y z <<<"$row"
		w=$((w + x)) s=$((s + y)) n=$((n + z))
	done
	echo "$w $s $n"
}
for _ in $(seq 150); do
	read -r waiting succeeded total < <(deliveries)
	[[ $waiting == 0 && $total -gt 0 && $succeeded == "$total" ]] && break
	sleep 0.2
done
received=$(sort -u "$RESULTS/received.txt" 2>/dev/null | wc -l)
echo "webhook deliveries of the two accounts: $total, succeeded $succeeded; events received: $received distinct" | tee -a "$RESULTS/report.txt"
if [[ $waiting != 0 || $total == 0 || $succeeded != "$total" || $received -lt $total ]]; then
	echo "citus: not every webhook delivery succeeded and arrived" >&2
	failed=$((failed + 1))
fi
if [[ $FLEET == 1 ]]; then
	echo "== the fleet's mixed load on the cluster ($FLEET_CLIENTS clients, $FLEET_DURATION)"
	if ! "$RESULTS/bin/fleet" -mode load -url "http://127.0.0.1:$LPORT" -database "$DB" -larder "$L" -dir "$RESULTS/fleet" \
		-port $((RPORT + 1)) -c "$FLEET_CLIENTS" -steady "$FLEET_DURATION" -json "$RESULTS/fleet.json" >"$RESULTS/fleet.txt" 2>&1; then
		failed=$((failed + 1))
	fi
	sed 's/^/fleet: /' "$RESULTS/fleet.txt" | tee -a "$RESULTS/report.txt"
fi

if [[ $MOVE == 1 ]]; then
	echo "== move the second organization's test account between workers under load ($WRITERS writers, $MOVE_MODE)"
	account=$(psql -X -At "$DB" -c "SELECT id FROM accounts WHERE organization_id = $org AND environment = 'test'")
	shard=$(psql -X -At "$DB" -c "SELECT get_shard_id_for_distribution_column('products', $account)")
	from=$(psql -X -At "$DB" -c "SELECT nodeport FROM citus_shards WHERE shardid = $shard")
	to=$(psql -X -At "$DB" -c "SELECT nodeport FROM pg_dist_node WHERE noderole = 'primary' AND groupid > 0 AND nodeport <> $from ORDER BY nodeport LIMIT 1")
	rm -f "$RESULTS"/move-writes-*.txt "$RESULTS/move.stop"
	writer() { # i: creates tags until move.stop exists, one line per answer: status name sent answered
		local i=$1 n=0 name s t
		while [[ ! -e $RESULTS/move.stop ]]; do
			n=$((n + 1))
			name=move-$i-$n
			t=$(date +%s.%N)
			s=$(curl -s -o /dev/null -w '%{http_code}' -m 60 -X POST -H "Authorization: Bearer $key" -H "Idempotency-Key: $name" \
				-H 'Content-Type: application/json' -d "{\"name\":\"$name\",\"ref_type\":\"PRODUCT\"}" "http://127.0.0.1:$LPORT/v1/tags")
			echo "$s $name $t $(date +%s.%N)" >>"$RESULTS/move-writes-$i.txt"
		done
	}
	pids=()
	for ((i = 1; i <= WRITERS; i++)); do
		writer "$i" &
		pids+=($!)
	done
	sleep 2
	started=$(date +%s.%N)
	moved=1
	if ! psql -X -q -v ON_ERROR_STOP=1 "$DB" -c "SELECT citus_move_shard_placement($shard, '127.0.0.1', $from, '127.0.0.1', $to, shard_transfer_mode => '$MOVE_MODE')" \
		>"$RESULTS/move.log" 2>&1; then
		moved=0
		echo "citus: the move failed: $(head -c 300 "$RESULTS/move.log")" >&2
		failed=$((failed + 1))
	fi
	ended=$(date +%s.%N)
	took=$(printf '%.1f' "$(echo "$ended - $started" | bc)")
	sleep 2
	touch "$RESULTS/move.stop"
	wait "${pids[@]}"
	cat "$RESULTS"/move-writes-*.txt >"$RESULTS/move-writes.txt"
	awk '$1 ~ /^2/ {print $2}' "$RESULTS/move-writes.txt" | sort >"$RESULTS/move-acknowledged.txt"
	psql -X -At "$DB" -c "SELECT name FROM tags WHERE account_id = $account AND name LIKE 'move-%'" | sort >"$RESULTS/move-stored.txt"
	comm -23 "$RESULTS/move-acknowledged.txt" "$RESULTS/move-stored.txt" >"$RESULTS/move-lost.txt"
	now=$(psql -X -At "$DB" -c "SELECT nodeport FROM citus_shards WHERE shardid = $shard")
	echo "move ($MOVE_MODE) of account $account's shard group from $from to $to: $([[ $moved == 1 ]] && echo "done in $took s, now on $now" || echo failed);" \
		"writes: $(wc -l <"$RESULTS/move-writes.txt") ($(awk -v a="$started" -v b="$ended" '$4 >= a && $3 <= b' "$RESULTS/move-writes.txt" | wc -l) while the move ran), answered 2xx $(wc -l <"$RESULTS/move-acknowledged.txt")," \
		"otherwise $(awk '$1 !~ /^2/' "$RESULTS/move-writes.txt" | wc -l)$(awk '$1 !~ /^2/ {print $1}' "$RESULTS/move-writes.txt" | sort | uniq -c |
			awk '{printf "%s%s x%s", (NR == 1 ? " (" : ", "), $2, $1} END {if (NR) printf ")"}');" \
		"2xx writes not in the database: $(wc -l <"$RESULTS/move-lost.txt")" | tee -a "$RESULTS/report.txt"
	if [[ -s $RESULTS/move-lost.txt || $now != "$to" ]]; then
		failed=$((failed + 1))
	fi
fi
if [[ $MEASURE == 1 ]]; then
	echo "== rates on $WORKERS workers (bench/load, c=$CONCURRENCY, $DURATION each)"
	: >"$RESULTS/get-paths.txt"
	for i in $(seq 200); do
		call POST /v1/tags "$key" "{\"name\":\"load-$i\",\"ref_type\":\"PRODUCT\"}" | jq -r '"/v1/tags/\(.data.id)"' >>"$RESULTS/get-paths.txt"
	done
	echo "/v1/tags?ref_type=PRODUCT&limit=200" >"$RESULTS/list-paths.txt"
	# 200 lines over the account's products, one order a request.
	call GET "/v1/products?limit=200" "$key" | jq -c --argjson s "$supplier" \
		'[.data[].id] as $p | {supplier_id: $s, lines: [range(200) | {product_id: $p[. % ($p | length)], quantity: 5, cost: 2.5}]}' |
		sed 's#^#POST /v1/purchase-orders #' >"$RESULTS/order-paths.txt"
	for what in get list order; do
		"$RESULTS/bin/load" -url "http://127.0.0.1:$LPORT" -key "$key" -paths-file "$RESULTS/$what-paths.txt" \
			-c "$CONCURRENCY" -d "$DURATION" -warmup 2s -json "$RESULTS/rate-$what.json" >/dev/null
		jq -r --arg w "$what" --arg n "$WORKERS" '"\($w) on \($n) workers: \(.rps | floor) req/s, p50 \(.p50_ms) ms, p99 \(.p99_ms) ms, \(.errors) errors"' \
			"$RESULTS/rate-$what.json" | tee -a "$RESULTS/report.txt"
		failed=$((failed + $(jq .errors "$RESULTS/rate-$what.json")))
	done
fi
echo "== statements of distributed tables, and those that ran on more than one shard"
# citus_stat_statements has a partition key for a statement Citus routed to
# one shard; a statement of a distributed table without one ran on several.
distributed=$(jq -r '.distributed | join("|")' "$RESULTS/placed.json")
psql -X -At "$DB" -F $'\t' -c "SELECT calls, coalesce(partition_key, '-'), executor, regexp_replace(query, '\s+', ' ', 'g')
	FROM citus_stat_statements WHERE executor <> 'local' ORDER BY calls DESC" >"$RESULTS/statements.tsv"
grep -wE "$distributed" "$RESULTS/statements.tsv" >"$RESULTS/statements-distributed.tsv" || true
# The statements that cross shards by design (docs/scaling.md, "Queries
# that would cross shards"), one extended regular expression a line, are
# reported apart and do not fail the check: the dispatcher's look for the
# accounts with events to fan out and with due deliveries (no lock; each
# account's are then locked, read and written by account), the hourly
# pruning by age, and the CLI's read of an endpoint by its id and
# organization.
cat >"$RESULTS/cross.txt" <<-'CROSS'
	^SELECT "events"\."account_id" FROM "events" WHERE "events"\."dispatched_at" IS NULL GROUP BY "events"\."account_id"$
	^SELECT "webhook_deliveries"\."id", "webhook_deliveries"\."account_id" FROM "webhook_deliveries" WHERE \(+"webhook_deliveries"\."status" = \$1 AND "webhook_deliveries"\."next_attempt_at" <= \$2\)
	^DELETE FROM "(events|webhook_deliveries|webhook_attempts)" WHERE "[a-z_]+"\."(dispatched_at|status|attempted_at)" (<|=) \$1
	^DELETE FROM "idempotency_keys" WHERE "idempotency_keys"\."created_at" < \$1$
	^SELECT .* FROM "webhook_endpoints" WHERE "webhook_endpoints"\."id" = \$1 AND EXISTS \(SELECT "accounts"\."id" FROM "accounts" WHERE "webhook_endpoints"\."account_id" = "accounts"\."id" AND "accounts"\."organization_id" = \$2\) LIMIT \$3$
CROSS
: >"$RESULTS/bydesign.tsv"
: >"$RESULTS/multishard.tsv"
awk -F'\t' '$2 == "-"' "$RESULTS/statements-distributed.tsv" | while IFS= read -r line; do
	if grep -qEf "$RESULTS/cross.txt" <<<"$(cut -f4 <<<"$line")"; then
		echo "$line" >>"$RESULTS/bydesign.tsv"
	else
		echo "$line" >>"$RESULTS/multishard.tsv"
	fi
done
echo "statements of distributed tables: $(wc -l <"$RESULTS/statements-distributed.tsv") distinct," \
	"$(awk -F'\t' '{n += $1} END {print n + 0}' "$RESULTS/statements-distributed.tsv") calls;" \
	"on more than one shard by design: $(wc -l <"$RESULTS/bydesign.tsv") ($(awk -F'\t' '{n += $1} END {print n + 0}' "$RESULTS/bydesign.tsv") calls);" \
	"otherwise: $(wc -l <"$RESULTS/multishard.tsv")" | tee -a "$RESULTS/report.txt"
cut -c1-300 "$RESULTS/multishard.tsv" | head -20
if [[ -n $SUITES ]]; then
	echo "== the suites of $SUITES on the cluster"
	workers=$(for ((i = 1; i < NODES; i++)); do printf '127.0.0.1:%d,' $((PORT + i)); done)
	# shellcheck disable=SC2086 # SUITES is a list of packages
	if ! LARDER_TEST_BACKENDS=postgres LARDER_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable" \
		LARDER_TEST_CITUS_WORKERS=${workers%,} go test -count 1 $SUITES >"$RESULTS/suites.log" 2>&1; then
		failed=$((failed + 1))
	fi
	echo "suites: $(grep -c '^--- FAIL' "$RESULTS/suites.log") tests failed: $(grep '^--- FAIL' "$RESULTS/suites.log" | cut -d' ' -f3 | tr '\n' ' ')" |
		tee -a "$RESULTS/report.txt"
fi
echo "results in $RESULTS"
[[ $failed == 0 && ! -s $RESULTS/multishard.tsv ]]
