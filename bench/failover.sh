#!/usr/bin/env bash
# Larder on a Patroni cluster, its database machine failing under load
# (docs/operators.md, "On a Patroni cluster"): the deployment kit's etcd
# (three members), three PostgreSQL 15 nodes each under its Patroni
# (synchronous_mode, strict), HAProxy's leader frontend on Patroni's checks,
# PgBouncer in front of it, two `larder serve` behind the kit's HAProxy, a
# `larder webhook worker` and a local receiver, all on loopback. Under the
# fleet's mixed load it SIGKILLs the leader's PostgreSQL, SIGKILLs the
# leader's Patroni, cuts the leader off for 30 s (SIGSTOP of its Patroni,
# PostgreSQL and etcd member), switches over with patronictl, SIGKILLs the
# synchronous standby and stops two etcd members for 20 s. It reports the
# time from each fault to the first acknowledged write after it and exits 1
# unless no acknowledged write was lost or made twice, every answer was
# 2xx, 4xx or 503 with Retry-After, and every event reached the receiver.
# About 7 minutes.
#
# Needs Debian's patroni, etcd, haproxy and pgbouncer (apt-get install -y
# patroni etcd-server etcd-client haproxy pgbouncer; their services may stay
# stopped) and PostgreSQL 15's programs; run as root (PostgreSQL, Patroni
# and PgBouncer run as postgres) or as postgres.
#
# Parameters (environment): PORT=28400 (the first of 22 loopback ports),
# STEADY=10s (load between faults), WORKERS=8, RESULTS (directory).
set -euo pipefail
PORT=${PORT:-28400}
STEADY=${STEADY:-10s}
WORKERS=${WORKERS:-8}
RESULTS=${RESULTS:-$(mktemp -d /tmp/larder-failover.XXXXXX)}
cd "$(dirname "$0")/.."
for p in patroni patronictl etcd haproxy pgbouncer; do
	command -v "$p" >/dev/null || { echo "failover: $p is not installed (apt-get install -y patroni etcd-server etcd-client haproxy pgbouncer)" >&2; exit 2; }
done
mkdir -p "$RESULTS/bin"
chmod 755 "$RESULTS"
go build -o "$RESULTS/bin/larder" ./cmd/larder
go build -o "$RESULTS/bin/fleet" ./bench/fleet
"$RESULTS/bin/fleet" -mode failover -dir "$RESULTS/run" -larder "$RESULTS/bin/larder" -kit deploy \
	-port "$PORT" -steady "$STEADY" -c "$WORKERS" -json "$RESULTS/report.json" | tee "$RESULTS/report.txt"
