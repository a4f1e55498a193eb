#!/usr/bin/env bash
# Two builds' 200-line purchase orders, alternated one create at a time on one
# database (bench/alternate -body): each round posts the same order to both
# servers, the first going first in even rounds. On these shared cores this
# tells two builds apart where documents.sh runs one after the other cannot.
# Reports each build's latency percentiles, the p50 ratio (new/old) and each
# process's CPU per order. See docs/performance.md, "Method".
# WHAT=get or WHAT=list alternates run.sh's reads instead: GET /v1/tags/{id}
# over 300 tags, or their 200-row list.
#
# Parameters (environment):
#   WHAT=order    order, get or list
#   OLD=HEAD      the revision to compare against (built in a git worktree)
#   NEW=          a revision, or empty for the working tree
#   N=300         measured requests per build (after WARMUP=20)
#   PG=postgres://postgres@127.0.0.1:5432   server; PGOPTS=sslmode=disable
#   DBNAME=larder_docab   database, dropped and created again
#   OLD_PORT=28998 NEW_PORT=28999
#   RESULTS=dir   where builds and logs go (default: a new /tmp dir)
set -euo pipefail

WHAT=${WHAT:-order}
OLD=${OLD:-HEAD}
NEW=${NEW:-}
N=${N:-300}
WARMUP=${WARMUP:-20}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
PGOPTS=${PGOPTS:-sslmode=disable}
DBNAME=${DBNAME:-larder_docab}
OLD_PORT=${OLD_PORT:-28998}
NEW_PORT=${NEW_PORT:-28999}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-docab.XXXXXX)}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
cd "$(dirname "$0")/.."
ROOT=$(pwd)
DB="$PG/$DBNAME?$PGOPTS"
export LARDER_DATABASE_URL=$DB

# build REV OUT: the larder binary of a revision (empty: the working tree).
build() {
	if [[ -z $1 ]]; then
		go build -o "$2" ./cmd/larder
		return
	fi
	local tree=$RESULTS/tree-$(basename "$2")
	git worktree add -q --detach "$tree" "$1"
	(cd "$tree" && go build -o "$2" ./cmd/larder)
	git worktree remove --force "$tree"
}
build "$OLD" "$RESULTS/old"
build "$NEW" "$RESULTS/new"
go build -o "$RESULTS/alternate" ./bench/alternate
{ echo "old $(git rev-parse --short "$OLD")"; echo "new ${NEW:-working tree of $(git rev-parse --short HEAD)}"; } >"$RESULTS/builds.txt"

psql "$PG/postgres?$PGOPTS" -qc "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" -c "CREATE DATABASE $DBNAME"
"$RESULTS/new" migrate --json >/dev/null
org=$("$RESULTS/new" org create --name Buyer --json | jq -r .id)
acct=$(psql "$DB" -Atc "SELECT id FROM accounts WHERE organization_id = $org AND environment = 'test'")
key=$("$RESULTS/new" key create --org "$org" --env test --scopes all --json | jq -r .key)

# The order documents.sh sends: 200 lines over the account's first 20 materials (bench/order200.sql).
psql "$DB" -Atv acct="$acct" -f bench/order200.sql >"$RESULTS/order.json"
echo /v1/purchase-orders >"$RESULTS/paths.txt"
body=(-body "$RESULTS/order.json")

pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
for side in old new; do
	port=$OLD_PORT
	[[ $side == new ]] && port=$NEW_PORT
	"$RESULTS/$side" serve --addr "127.0.0.1:$port" --rate-limit 100000000 --webhooks=false >"$RESULTS/serve-$side.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 300); do curl -fs "http://127.0.0.1:$port/v1/openapi.json" >/dev/null && break; sleep 0.1; done
done

if [[ $WHAT != order ]]; then
	body=()
	: >"$RESULTS/paths.txt"
	for i in $(seq 300); do
		id=$(curl -sf -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
			-d "{\"name\":\"bench-$i\",\"ref_type\":\"PRODUCT\",\"description\":\"Benchmark tag $i.\"}" \
			"http://127.0.0.1:$NEW_PORT/v1/tags" | jq -r .data.id)
		if [[ $WHAT == get ]]; then echo "/v1/tags/$id" >>"$RESULTS/paths.txt"; fi
	done
	if [[ $WHAT == list ]]; then echo "/v1/tags?ref_type=PRODUCT&limit=200" >"$RESULTS/paths.txt"; fi
	psql -X -q "$DB" -c "ANALYZE"
fi

"$RESULTS/alternate" -key "$key" -paths-file "$RESULTS/paths.txt" "${body[@]}" -n "$N" -warmup "$WARMUP" \
	-cpu-pid "old=${pids[0]},new=${pids[1]}" old="http://127.0.0.1:$OLD_PORT" new="http://127.0.0.1:$NEW_PORT" | tee "$RESULTS/summary.txt"
echo "results in $RESULTS"
