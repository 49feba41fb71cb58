#!/usr/bin/env bash
# Builds and tests parquet_fdw against several PostgreSQL major versions, each
# inside its own minimal Debian root filesystem:
#
#   scripts/test-matrix.sh [--prepare] [15|17|18 ...]     (default: 15 17 18)
#
#   15 -> Debian bookworm, 17 -> trixie, 18 -> sid (PGDG-free: Debian's own
#   postgresql-N packages).  16 has no Debian release package: its guards in
#   src/fdw/pg_compat.h are compiled from its headers only, never tested here.
#
# Per version it prints the chroot's scripts/test.sh stages, then
# "stage pgN: N passed, N failed"; the last line sums them as
# "N passed, N failed" and the exit status is non-zero if anything failed.
# --prepare only builds (or checks) the cached root filesystems.
#
# How a version runs:
#   1. root filesystem: /var/cache/parquet_fdw/rootfs/<release>, made once by
#      debootstrap --variant=minbase into a temp folder renamed when complete
#      (an interrupted build never looks cached; delete the folder to rebuild).
#      Each run installs whatever package of the list below is missing
#      (no apt traffic when none is).
#   2. the clone's files (git ls-files: tracked and untracked-not-ignored, so
#      uncommitted edits are tested) are copied to /pf/src in the rootfs;
#      objects built against one version never land in the clone.  The
#      clone's ../shared (or PARQUET_TESTING_DIR's parent) is bind-mounted
#      read-only at /pf/shared, /proc and a tmpfs /dev/shm are mounted.
#   3. chroot runs scripts/test.sh with PG_CONFIG=/usr/lib/postgresql/N/bin/
#      pg_config, PF_SKIP_DEPS=1, COPT=-Werror (any compiler warning fails
#      the build stage) and PF_SKIP_STAGES="fuzz-replay generated unit-san
#      copy-interop remote remote-fdw memory" (those need clang or node; the COPY code
#      itself runs on every version in pg_regress' copy_to, src/remote does
#      not touch PostgreSQL's API, and the memory stage's gigabytes of COPY
#      measure our code, not the server's version).  The live-fuzz and load
#      stages run with shorter budgets there (30 s of mutants, 15 s of
#      pgbench, 10 s of changing files per format): they need only python3,
#      pgbench (in postgresql-N) and /proc, which every rootfs has.
#   4. on every exit path (trap): processes left inside the rootfs (a server
#      of a killed run) are killed by pid, the mounts are undone.
#
# Environment: PF_MATRIX_CACHE (default /var/cache/parquet_fdw/rootfs),
# PF_DEBIAN_MIRROR (default: the first Debian URI in /etc/apt/sources.list*),
# PARQUET_TESTING_DIR, PF_MATRIX_LOG_DIR (keep there each version's full log,
# pgN.log, and its pg_regress results/, pgN-results/: when a version prints a
# test differently, diff and copy one to expected/NAME_1.out).
# Needs root (debootstrap, mount, chroot); installs debootstrap if missing.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"

CACHE=${PF_MATRIX_CACHE:-/var/cache/parquet_fdw/rootfs}
PREPARE_ONLY=0
VERSIONS=()
for a in "$@"; do
	case $a in
	--prepare) PREPARE_ONLY=1 ;;
	15 | 16 | 17 | 18) VERSIONS+=("$a") ;;
	-h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "test-matrix: unknown argument '$a' (versions: 15 17 18)" >&2; exit 2 ;;
	esac
done
[ ${#VERSIONS[@]} -eq 0 ] && VERSIONS=(15 17 18)

release_for() {
	case $1 in
	15) echo bookworm ;;
	17) echo trixie ;;
	18) echo sid ;;
	*) return 1 ;;
	esac
}

# Packages every rootfs needs: the server and its headers, the compression
# libraries the build links (PF_BUILD_DEPS without its host PostgreSQL), and
# python3 for the conformance harness.
packages_for() {
	local p out=(postgresql-"$1" postgresql-server-dev-"$1" libicu-dev build-essential python3)
	for p in "${PF_BUILD_DEPS[@]}"; do
		case $p in postgresql-* | build-essential) ;; *) out+=("$p") ;; esac
	done
	echo "${out[@]}"
}

debian_mirror() {
	local u
	if [ -n "${PF_DEBIAN_MIRROR:-}" ]; then echo "$PF_DEBIAN_MIRROR"; return; fi
	# deb822 "URIs:" lines and one-line "deb URI suite" entries; not -security.
	u=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -nE 's/^URIs:[[:space:]]+([^[:space:]]+).*/\1/p; s/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/p' |
		grep -E '/debian/?$' | head -n 1)
	echo "${u:-http://deb.debian.org/debian}"
}

# Every mount point at or under $1, deepest first.
mounts_under() {
	local dir=$1
	awk -v d="$dir" '{ gsub(/\\040/, " ", $2); if ($2 == d || index($2, d "/") == 1) print $2 }' /proc/self/mounts |
		awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2-
}

unmount_under() {
	local m
	while read -r m; do
		[ -n "$m" ] || continue
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || echo "test-matrix: could not unmount $m" >&2
	done < <(mounts_under "$1")
}

# Kill, by pid, every process whose root directory is the rootfs $1 (what a
# run left behind: a PostgreSQL server when the chroot's test.sh was killed).
kill_inside() {
	local rootfs=$1 p r pids=()
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		[ "$r" = "$rootfs" ] && pids+=("${p#/proc/}")
	done
	[ ${#pids[@]} -eq 0 ] && return 0
	echo "test-matrix: stopping processes left in $rootfs: ${pids[*]}"
	kill -TERM "${pids[@]}" 2>/dev/null
	sleep 2
	kill -KILL "${pids[@]}" 2>/dev/null
	return 0
}

ACTIVE_ROOTFS=
BUILDING_TMP=
cleanup() {
	if [ -n "$ACTIVE_ROOTFS" ]; then
		kill_inside "$ACTIVE_ROOTFS"
		unmount_under "$ACTIVE_ROOTFS"
		ACTIVE_ROOTFS=
	fi
	if [ -n "$BUILDING_TMP" ] && [ -d "$BUILDING_TMP" ]; then
		kill_inside "$BUILDING_TMP"
		unmount_under "$BUILDING_TMP"
		# Only remove it once nothing is mounted below it any more.
		[ -z "$(mounts_under "$BUILDING_TMP")" ] && rm -rf "$BUILDING_TMP"
		BUILDING_TMP=
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs a command inside the rootfs with a clean environment.
in_root() {
	local rootfs=$1
	shift
	chroot "$rootfs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}

# Settings that make package installs inside a chroot safe: no service
# starts (policy-rc.d), no default cluster, sid's stale Release accepted.
configure_rootfs() {
	local rootfs=$1 release=$2
	printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
	chmod 755 "$rootfs/usr/sbin/policy-rc.d"
	mkdir -p "$rootfs/etc/postgresql-common"
	echo "create_main_cluster = false" >"$rootfs/etc/postgresql-common/createcluster.conf"
	cp -L /etc/resolv.conf "$rootfs/etc/resolv.conf" 2>/dev/null || true
	{
		echo 'APT::Install-Recommends "false";'
		echo 'APT::Install-Suggests "false";'
		# sid's snapshot Release files can be past their Valid-Until.
		[ "$release" = sid ] && echo 'Acquire::Check-Valid-Until "false";'
	} >"$rootfs/etc/apt/apt.conf.d/90parquet-fdw"
}

# Installs the packages dpkg says are missing inside the rootfs.
provision() {
	local rootfs=$1 v=$2 p st missing=()
	for p in $(packages_for "$v"); do
		st=$(in_root "$rootfs" dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$st" = installed ] || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "test-matrix: pg$v: installing ${missing[*]}"
	in_root "$rootfs" apt-get update -qq || return 1
	in_root "$rootfs" apt-get install -y -qq "${missing[@]}" >/dev/null || return 1
	in_root "$rootfs" apt-get clean
}

# Ensures $CACHE/<release> exists and is provisioned; echoes nothing.
ensure_rootfs() {
	local v=$1 release rootfs tmp mirror t0
	release=$(release_for "$v")
	rootfs=$CACHE/$release
	if [ ! -d "$rootfs" ]; then
		command -v debootstrap >/dev/null 2>&1 || pf_install_deps debootstrap || return 1
		mkdir -p "$CACHE"
		mirror=$(debian_mirror)
		tmp=$(mktemp -d "$CACHE/.$release.building.XXXXXX") || return 1
		BUILDING_TMP=$tmp
		# mktemp made it 0700: the chroot's "/" must be open to its users.
		chmod 755 "$tmp"
		t0=$(date +%s)
		echo "test-matrix: pg$v: debootstrap --variant=minbase $release from $mirror (cache miss)"
		if ! debootstrap --variant=minbase "$release" "$tmp" "$mirror" >"$tmp.log" 2>&1; then
			tail -n 20 "$tmp.log"
			echo "test-matrix: pg$v: debootstrap failed (log above)"
			return 1
		fi
		configure_rootfs "$tmp" "$release"
		mount -t proc proc "$tmp/proc" || return 1
		if ! provision "$tmp" "$v"; then
			echo "test-matrix: pg$v: package install failed"
			return 1
		fi
		unmount_under "$tmp"
		[ -z "$(mounts_under "$tmp")" ] || return 1
		mv "$tmp" "$rootfs" || return 1
		rm -f "$tmp.log"
		BUILDING_TMP=
		echo "test-matrix: pg$v: rootfs $rootfs built in $(($(date +%s) - t0))s"
	fi
	configure_rootfs "$rootfs" "$release"
	ACTIVE_ROOTFS=$rootfs
	mount -t proc proc "$rootfs/proc" || return 1
	# POSIX shared memory for the server's dynamic shared memory (parallel
	# query); a minbase rootfs has an empty /dev/shm folder at most.
	mkdir -p "$rootfs/dev/shm"
	mount -t tmpfs -o mode=1777,size=1g tmpfs "$rootfs/dev/shm" || return 1
	if ! provision "$rootfs" "$v"; then
		echo "test-matrix: pg$v: package install failed"
		return 1
	fi
	[ -x "$rootfs/usr/lib/postgresql/$v/bin/pg_config" ] || {
		echo "test-matrix: pg$v: $release has no /usr/lib/postgresql/$v after install"
		return 1
	}
	return 0
}

# Copies the clone's files (what git sees, uncommitted edits included) to
# $1/pf/src and bind-mounts the test corpus' folder at $1/pf/shared.
stage_sources() {
	local rootfs=$1 shared
	rm -rf "$rootfs/pf/src"
	mkdir -p "$rootfs/pf/src" "$rootfs/pf/shared"
	chmod 755 "$rootfs/pf" "$rootfs/pf/src"
	if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$ROOT" && git ls-files -z -c -o --exclude-standard |
			while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
			tar --null -T - -cf -) | tar -xf - -C "$rootfs/pf/src" || return 1
	else
		(cd "$ROOT" && tar --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.a' --exclude='*.bc' \
			--exclude=./build --exclude=./results --exclude='*/bin' -cf - .) |
			tar -xf - -C "$rootfs/pf/src" || return 1
	fi
	chmod -R a+rX "$rootfs/pf/src"
	if [ -n "${PARQUET_TESTING_DIR:-}" ] && [ -d "$PARQUET_TESTING_DIR" ]; then
		shared=$(cd "$PARQUET_TESTING_DIR/.." && pwd)
	else
		shared=$(cd "$ROOT/../shared" 2>/dev/null && pwd) || shared=
	fi
	if [ -n "$shared" ] && [ -d "$shared/parquet-testing" ]; then
		mount --bind "$shared" "$rootfs/pf/shared" &&
			mount -o remount,bind,ro "$rootfs/pf/shared" || return 1
	else
		echo "test-matrix: no shared/parquet-testing found (set PARQUET_TESTING_DIR); corpus stages will fail"
	fi
}

TOTAL_PASS=0
TOTAL_FAIL=0
SUMMARY=()
result() {
	local line="stage pg$1: $2 passed, $3 failed"
	echo "$line"
	SUMMARY+=("$line")
	TOTAL_PASS=$((TOTAL_PASS + $2))
	TOTAL_FAIL=$((TOTAL_FAIL + $3))
}

if [ "$(id -u)" -ne 0 ]; then
	echo "test-matrix: needs root (debootstrap, mount, chroot)"
	for v in "${VERSIONS[@]}"; do result "$v" 0 1; done
	echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
	exit 1
fi

LOGDIR=${PF_MATRIX_LOG_DIR:-}
for v in "${VERSIONS[@]}"; do
	echo
	echo "======== matrix: PostgreSQL $v ($(date -u +%H:%M:%S))"
	t0=$(date +%s)
	if [ "$v" = 16 ]; then
		echo "test-matrix: pg16: Debian ships no postgresql-16 package for any release used here; not testable"
		result 16 0 1
		continue
	fi
	if ! ensure_rootfs "$v"; then
		cleanup
		result "$v" 0 1
		continue
	fi
	rootfs=$ACTIVE_ROOTFS
	if [ $PREPARE_ONLY = 1 ]; then
		echo "test-matrix: pg$v: rootfs ready: $rootfs"
		cleanup
		continue
	fi
	if ! stage_sources "$rootfs"; then
		echo "test-matrix: pg$v: could not stage the sources"
		cleanup
		result "$v" 0 1
		continue
	fi
	log=$(mktemp "${TMPDIR:-/tmp}/pf-matrix-pg$v.XXXXXX")
	in_root "$rootfs" CI=true PF_SKIP_DEPS=1 PF_MATRIX=0 PF_PG_MAJOR="$v" COPT=-Werror \
		PF_SKIP_STAGES="fuzz-replay generated unit-san copy-interop remote remote-fdw memory" \
		LIVE_FUZZ_SECONDS=30 LOAD_SECONDS=15 LOAD_CHANGE_SECONDS=10 \
		PG_CONFIG="/usr/lib/postgresql/$v/bin/pg_config" \
		PARQUET_TESTING_DIR=/pf/shared/parquet-testing \
		bash /pf/src/scripts/test.sh >"$log" 2>&1
	rc=$?
	if [ -n "$LOGDIR" ] && mkdir -p "$LOGDIR"; then
		cp "$log" "$LOGDIR/pg$v.log"
		rm -rf "$LOGDIR/pg$v-results"
		[ -d "$rootfs/pf/src/results" ] && cp -r "$rootfs/pf/src/results" "$LOGDIR/pg$v-results"
	fi
	cleanup
	last=$(tail -n 1 "$log")
	if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		p=${BASH_REMATCH[1]}
		f=${BASH_REMATCH[2]}
		[ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
	else
		echo "test-matrix: pg$v: scripts/test.sh ended without its summary line (rc=$rc): $last"
		p=0
		f=1
	fi
	# Any compiler warning fails the version (gcc has -Werror through COPT;
	# this also catches the clang bitcode compile, which COPT misses).
	w=$(grep -c ': warning: ' "$log")
	if [ "$w" -gt 0 ]; then
		echo "test-matrix: pg$v: $w compiler warning(s)"
		f=$((f + 1))
	fi
	# The chroot's own stage lines, indented so nothing sums them twice; its
	# whole output when something failed.
	if [ "$f" -eq 0 ]; then
		sed -nE "s/^stage /  pg$v stage /p" "$log"
	else
		sed "s/^/  pg$v| /" "$log" | cut -c1-400
	fi
	rm -f "$log"
	echo "test-matrix: pg$v took $(($(date +%s) - t0))s"
	result "$v" "$p" "$f"
done

echo
for l in "${SUMMARY[@]}"; do echo "$l"; done
echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
[ "$TOTAL_FAIL" -eq 0 ]
