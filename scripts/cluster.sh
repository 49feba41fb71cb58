#!/usr/bin/env bash
# A local PostgreSQL cluster to try scale-out over postgres_fdw: one
# coordinator and N nodes, each with parquet_fdw installed, the coordinator
# also with postgres_fdw and one foreign server per node.
#
#   scripts/cluster.sh up N            # start; prints the lines to eval
#   scripts/cluster.sh status          # which servers run (needs PF_CLUSTER_DIR)
#   scripts/cluster.sh down            # stop all, remove the folder
#   scripts/cluster.sh run N CMD...    # up, run CMD, always down (tests, bench)
#
# Everything lives under one temporary folder ($PF_CLUSTER_DIR): the data
# folders coord/ node1/ ... nodeN/, their logs, and the Unix sockets (no TCP:
# listen_addresses ''). The servers come from $PG_CONFIG's install (like
# scripts/test.sh), so a relocated copy or a matrix chroot works the same.
#
# After `up` (or inside `run`): PF_CLUSTER_DIR, PF_CLUSTER_NODES (N),
# PGHOST (the socket folder), PGPORT (the coordinator's), PF_NODE1_PORT ...
# PF_NODEn_PORT, PGUSER=postgres, PGDATABASE=postgres. On the coordinator the
# postgres_fdw servers are named node1 ... nodeN, each with a user mapping
# for postgres. A failure while starting stops what was started.
# PF_CLUSTER_AUTO_EXPLAIN=1: the nodes log every plan they run (auto_explain,
# VERBOSE) to their node<i>.log, to see what postgres_fdw's remote queries
# become there. PF_CLUSTER_PORT: the coordinator's port (nodes follow).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"

usage() {
	sed -n '6,9p' "$0" | sed 's/^# *//' >&2
	exit 2
}

# The servers of an existing cluster folder, coordinator first.
cluster_members() {
	local d
	echo coord
	for d in "$PF_CLUSTER_DIR"/node*/; do
		[ -d "$d" ] && basename "$d"
	done | sort -V
}

cluster_stop_all() {
	local m
	[ -n "${PF_CLUSTER_DIR:-}" ] && [ -d "$PF_CLUSTER_DIR" ] || return 0
	[ -f "$PF_CLUSTER_DIR/env" ] && . "$PF_CLUSTER_DIR/env"
	for m in $(cluster_members); do
		if [ -f "$PF_CLUSTER_DIR/$m/postmaster.pid" ]; then
			pg_runas "$PGC_BINDIR/pg_ctl" -D "$PF_CLUSTER_DIR/$m" -m fast -w -t 30 stop >/dev/null 2>&1 ||
				pg_runas "$PGC_BINDIR/pg_ctl" -D "$PF_CLUSTER_DIR/$m" -m immediate -w -t 30 stop >/dev/null 2>&1
		fi
	done
	rm -rf "$PF_CLUSTER_DIR"
}

# initdb + start one server; $1 = member name, $2 = port.
member_start() {
	local m=$1 port=$2 data=$PF_CLUSTER_DIR/$1
	pg_runas "$PGC_BINDIR/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
		>"$PF_CLUSTER_DIR/$m.initdb.log" 2>&1 ||
		{ rm -rf "$data"; pg_runas "$PGC_BINDIR/initdb" -D "$data" -U postgres -A trust -E UTF8 --no-locale \
			>"$PF_CLUSTER_DIR/$m.initdb.log" 2>&1; } ||
		{ cat "$PF_CLUSTER_DIR/$m.initdb.log" >&2; return 1; }
	cat >>"$data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$PF_CLUSTER_DIR'
port = $port
fsync = off
full_page_writes = off
synchronous_commit = off
shared_buffers = 128MB
max_connections = 40
log_min_messages = warning
cluster_name = '$m'
CONF
	if [ "$m" != coord ] && [ "${PF_CLUSTER_AUTO_EXPLAIN:-0}" = 1 ]; then
		cat >>"$data/postgresql.conf" <<CONF
session_preload_libraries = 'auto_explain'
auto_explain.log_min_duration = 0
auto_explain.log_verbose = on
CONF
	fi
	pg_runas "$PGC_BINDIR/pg_ctl" -D "$data" -l "$PF_CLUSTER_DIR/$m.log" -w -t 60 start >/dev/null || {
		echo "cluster: $m did not start; log:" >&2
		cat "$PF_CLUSTER_DIR/$m.log" >&2
		return 1
	}
}

member_psql() {
	local port=$1
	shift
	psql -X -q -v ON_ERROR_STOP=1 -h "$PF_CLUSTER_DIR" -p "$port" -U postgres -d postgres "$@"
}

cluster_up() {
	local n=$1 i port base
	case $n in '' | *[!0-9]* | 0) usage ;; esac
	PGC_BINDIR=$(pf_pg_bindir) || { echo "cluster: PostgreSQL binaries not found (PG_CONFIG?)" >&2; return 1; }
	PF_CLUSTER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pfcluster.XXXXXX") || return 1
	chmod 755 "$PF_CLUSTER_DIR"
	if [ "$(id -u)" -eq 0 ]; then
		PGC_RUNAS=postgres
		id postgres >/dev/null 2>&1 || { echo "cluster: running as root but no 'postgres' OS user" >&2; return 1; }
		chown postgres: "$PF_CLUSTER_DIR"
	else
		PGC_RUNAS=$(id -un)
	fi
	# Consecutive ports from a random base; the socket folder is private,
	# so they only have to differ from each other.
	base=${PF_CLUSTER_PORT:-$((20000 + RANDOM % 20000))}
	{
		echo "PF_CLUSTER_DIR=$PF_CLUSTER_DIR"
		echo "PF_CLUSTER_NODES=$n"
		echo "PGC_BINDIR=$PGC_BINDIR"
		echo "PGC_RUNAS=$PGC_RUNAS"
		echo "PGHOST=$PF_CLUSTER_DIR"
		echo "PGPORT=$base"
		echo "PGUSER=postgres"
		echo "PGDATABASE=postgres"
		for i in $(seq 1 "$n"); do echo "PF_NODE${i}_PORT=$((base + i))"; done
	} >"$PF_CLUSTER_DIR/env"
	member_start coord "$base" || return 1
	for i in $(seq 1 "$n"); do
		member_start "node$i" "$((base + i))" || return 1
		member_psql "$((base + i))" -c "CREATE EXTENSION parquet_fdw" || return 1
	done
	member_psql "$base" -c "CREATE EXTENSION parquet_fdw" -c "CREATE EXTENSION postgres_fdw" || return 1
	for i in $(seq 1 "$n"); do
		port=$((base + i))
		member_psql "$base" \
			-c "CREATE SERVER node$i FOREIGN DATA WRAPPER postgres_fdw
			      OPTIONS (host '$PF_CLUSTER_DIR', port '$port', dbname 'postgres')" \
			-c "CREATE USER MAPPING FOR postgres SERVER node$i OPTIONS (user 'postgres')" || return 1
	done
}

cluster_print_env() {
	sed 's/^/export /' "$PF_CLUSTER_DIR/env"
}

cluster_status() {
	local m port rc=0
	[ -n "${PF_CLUSTER_DIR:-}" ] && [ -f "$PF_CLUSTER_DIR/env" ] ||
		{ echo "cluster: PF_CLUSTER_DIR does not name a running cluster" >&2; return 1; }
	. "$PF_CLUSTER_DIR/env"
	for m in $(cluster_members); do
		port=$(sed -nE 's/^port = ([0-9]+)$/\1/p' "$PF_CLUSTER_DIR/$m/postgresql.conf" | tail -n 1)
		if pg_runas "$PGC_BINDIR/pg_ctl" -D "$PF_CLUSTER_DIR/$m" status >/dev/null 2>&1; then
			echo "$m: running, port $port, socket folder $PF_CLUSTER_DIR"
		else
			echo "$m: stopped (port $port)"
			rc=1
		fi
	done
	return $rc
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
up)
	[ $# -eq 1 ] || usage
	trap 'echo "cluster: interrupted; stopping what was started" >&2; cluster_stop_all; exit 130' INT TERM
	if ! cluster_up "$1"; then
		echo "cluster: start failed; stopping what was started" >&2
		cluster_stop_all
		exit 1
	fi
	trap - INT TERM
	echo "# cluster of 1 coordinator + $1 nodes in $PF_CLUSTER_DIR; to use it:" >&2
	echo "#   eval \"\$(scripts/cluster.sh env $PF_CLUSTER_DIR)\"; psql   # the coordinator" >&2
	echo "#   PF_CLUSTER_DIR=$PF_CLUSTER_DIR scripts/cluster.sh down" >&2
	cluster_print_env
	;;
env)
	PF_CLUSTER_DIR=${1:-${PF_CLUSTER_DIR:-}}
	[ -n "$PF_CLUSTER_DIR" ] && [ -f "$PF_CLUSTER_DIR/env" ] || { echo "cluster: no cluster at '$PF_CLUSTER_DIR'" >&2; exit 1; }
	cluster_print_env
	;;
status)
	PF_CLUSTER_DIR=${1:-${PF_CLUSTER_DIR:-}}
	cluster_status
	;;
down)
	PF_CLUSTER_DIR=${1:-${PF_CLUSTER_DIR:-}}
	[ -n "$PF_CLUSTER_DIR" ] || { echo "cluster: set PF_CLUSTER_DIR (printed by up)" >&2; exit 1; }
	case $(basename "$PF_CLUSTER_DIR") in
	pfcluster.*) ;;
	*) echo "cluster: $PF_CLUSTER_DIR is not a folder made by 'up'" >&2; exit 1 ;;
	esac
	cluster_stop_all
	;;
run)
	[ $# -ge 2 ] || usage
	n=$1
	shift
	trap cluster_stop_all EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	cluster_up "$n" || { echo "cluster: start failed" >&2; exit 1; }
	set -a
	. "$PF_CLUSTER_DIR/env"
	set +a
	"$@"
	exit $?
	;;
*) usage ;;
esac
