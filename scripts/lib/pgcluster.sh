# shellcheck shell=bash
# Shared helpers for scripts/quickstart.sh and scripts/test.sh:
#   pf_sudo CMD...          run CMD as root (directly when root, else via sudo)
#   pf_install_deps PKG...  apt-get install the Debian packages not yet installed
#   pg_cluster_start        initdb + start a throwaway PostgreSQL 15 on a Unix socket
#   pg_cluster_stop         stop it and remove its folder (idempotent; call from a trap)
#   pg_psql ARGS...         psql against the throwaway cluster
# After pg_cluster_start: PGC_DIR (temp dir, also the socket dir), PGHOST, PGPORT,
# PGUSER, PGDATABASE are exported; PGC_RUNAS is the OS user running the server.

PF_PG_MAJOR=${PF_PG_MAJOR:-15}

pf_sudo() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "pf_sudo: not root and no sudo; trying without: $*" >&2
		"$@"
	fi
}

# Install only what dpkg-query says is missing; no apt at all when nothing is.
pf_install_deps() {
	local missing=() p st
	for p in "$@"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$st" = "installed" ] || missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		echo "deps: all ${#} packages already installed"
		return 0
	fi
	echo "deps: installing ${missing[*]}"
	pf_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
	pf_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" || return 1
}

PF_BUILD_DEPS=(build-essential postgresql-15 postgresql-server-dev-15
	libzstd-dev liblz4-dev libsnappy-dev zlib1g-dev libbrotli-dev libxxhash-dev libssl-dev libcurl4-openssl-dev)

pf_pg_bindir() {
	local d
	# PG_CONFIG first: a relocated copy of the server (one per work tree)
	# keeps parallel builds from installing over each other.
	for d in ${PG_CONFIG:+"$("$PG_CONFIG" --bindir 2>/dev/null)"} \
		"/usr/lib/postgresql/${PF_PG_MAJOR}/bin" "$(pg_config --bindir 2>/dev/null)"; do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
	done
	return 1
}

# Run a command as the server's OS user.
pg_runas() {
	if [ "${PGC_RUNAS:-}" != "" ] && [ "$PGC_RUNAS" != "$(id -un)" ]; then
		runuser -u "$PGC_RUNAS" -- "$@"
	else
		"$@"
	fi
}

pg_cluster_start() {
	local bindir
	bindir=$(pf_pg_bindir) || { echo "pgcluster: PostgreSQL ${PF_PG_MAJOR} binaries not found" >&2; return 1; }
	PGC_BINDIR=$bindir
	PGC_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pgfdw.XXXXXX") || return 1
	chmod 755 "$PGC_DIR"
	if [ "$(id -u)" -eq 0 ]; then
		PGC_RUNAS=postgres
		id postgres >/dev/null 2>&1 || { echo "pgcluster: running as root but no 'postgres' OS user" >&2; return 1; }
		chown postgres: "$PGC_DIR"
	else
		PGC_RUNAS=$(id -un)
	fi
	# A port nobody uses on this socket dir (the dir is private anyway).
	PGPORT=${PGC_PORT:-$((20000 + RANDOM % 20000))}
	pg_runas "$bindir/initdb" -D "$PGC_DIR/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
		>"$PGC_DIR/initdb.log" 2>&1 || {
		pg_runas "$bindir/initdb" -D "$PGC_DIR/data" -U postgres -A trust -E UTF8 --no-locale \
			>"$PGC_DIR/initdb.log" 2>&1 || { cat "$PGC_DIR/initdb.log" >&2; return 1; }
	}
	cat >>"$PGC_DIR/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$PGC_DIR'
port = $PGPORT
fsync = off
full_page_writes = off
synchronous_commit = off
shared_buffers = 64MB
max_connections = 20
log_min_messages = warning
CONF
	pg_runas "$bindir/pg_ctl" -D "$PGC_DIR/data" -l "$PGC_DIR/server.log" -w -t 60 start >/dev/null || {
		echo "pgcluster: server did not start; log:" >&2
		cat "$PGC_DIR/server.log" >&2
		return 1
	}
	export PGHOST=$PGC_DIR PGPORT PGUSER=postgres PGDATABASE=postgres
	export PGC_DIR PGC_RUNAS PGC_BINDIR
	echo "pgcluster: PostgreSQL running on socket $PGC_DIR port $PGPORT (server user $PGC_RUNAS)"
}

pg_cluster_stop() {
	[ -n "${PGC_DIR:-}" ] && [ -d "$PGC_DIR" ] || return 0
	if [ -f "$PGC_DIR/data/postmaster.pid" ]; then
		pg_runas "$PGC_BINDIR/pg_ctl" -D "$PGC_DIR/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
	fi
	rm -rf "$PGC_DIR"
	PGC_DIR=
}

# Is the server still up (after a possible backend crash it restarts itself).
pg_alive() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		psql -X -qAt -c 'SELECT 1' >/dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}

pg_psql() {
	psql -X -v ON_ERROR_STOP=1 "$@"
}

# Can OS user $1 read path $2 (and traverse its parents)?
pf_readable_by() {
	local user=$1 path=$2
	if [ "$user" = "$(id -un)" ]; then
		[ -r "$path" ]
	else
		runuser -u "$user" -- test -r "$path" 2>/dev/null
	fi
}
