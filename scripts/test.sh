#!/usr/bin/env bash
# Runs every test of the project, self-contained (installs what it needs):
#
#   scripts/test.sh
#
# Stages: deps, build+install, unit tests, the unit tests again under
# ASan+UBSan, fuzz-corpus replay (ASan+UBSan), pg_regress against a
# throwaway PostgreSQL 15, the converter test module (test/fdw_convert), the
# aggregate pushdown fuzzer (test/aggregate, fixed seed), memory bounds
# and files changing under a scan (test/memory), the corpus
# conformance harness (test/conformance), the corpus round trip through COPY
# TO parquet (test/copy_roundtrip), the generated-file conformance
# run (test/generated/generate.sh, when it exists), COPY TO interop
# (test/copy_interop: files written by COPY read by DuckDB, hyparquet and
# arrow-rs), and scale-out over postgres_fdw nodes (test/cluster/run.sh).
# Each stage prints
# "stage <name>: N passed, N failed"; a stage that cannot run at all counts
# as one failure; stages with no tests yet count zero.  The last line is
# "N passed, N failed" and the exit status is non-zero if anything failed.
#
# Environment: PARQUET_TESTING_DIR (default <repo>/../shared/parquet-testing),
# PG_CONFIG, CI (=true allows chmod o+rx on the clone's parent folders when
# the server's OS user cannot read them), PF_SKIP_DEPS=1 (skip apt step),
# AGG_FUZZ_SEED / AGG_FUZZ_COUNT (agg-fuzz stage; default 1 / 1000),
# PF_SKIP_STAGES="fuzz-replay generated" (stages not to run at all),
# PF_MATRIX=0 (skip the PostgreSQL version matrix, scripts/test-matrix.sh,
# that runs last and prints "stage pgN: ..." for 15, 17 and 18),
# PF_MATRIX_VERSIONS (default "15 17 18"),
# QUAL_FUZZ_SEED / QUAL_FUZZ_COUNT (qual-fuzz stage; default 1 / 2000),
# PF_LIVE_FUZZ=0, LIVE_FUZZ_SEED / LIVE_FUZZ_SECONDS / LIVE_FUZZ_RSS_MB /
# LIVE_FUZZ_KEEP (live-fuzz stage; default 1 / 180 / 256 / none),
# PF_LOAD=0, LOAD_SECONDS / LOAD_CLIENTS / LOAD_CHANGE_SECONDS / LOAD_STRICT
# (load stage; default 60 / 8 / 20 / 0).
set -uo pipefail
export PYTHONDONTWRITEBYTECODE=1

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
# shellcheck source=lib/pgcluster.sh
. "$ROOT/scripts/lib/pgcluster.sh"

START_TS=$(date +%s)
TOTAL_PASS=0
TOTAL_FAIL=0
SUMMARY=()
LOGDIR=$(mktemp -d "${TMPDIR:-/tmp}/pfdw-test.XXXXXX")
chmod 755 "$LOGDIR"

MATRIX_PREP_PID=
cleanup() {
	# The background matrix preparation is its own process group (setsid):
	# end it with its debootstrap/apt children, by that group's id.
	if [ -n "$MATRIX_PREP_PID" ]; then
		kill -TERM -- "-$MATRIX_PREP_PID" 2>/dev/null || kill -TERM "$MATRIX_PREP_PID" 2>/dev/null
		wait "$MATRIX_PREP_PID" 2>/dev/null
	fi
	pg_cluster_stop
	rm -rf "$LOGDIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# stage_result NAME PASS FAIL
stage_result() {
	local line="stage $1: $2 passed, $3 failed"
	echo "$line"
	SUMMARY+=("$line")
	TOTAL_PASS=$((TOTAL_PASS + $2))
	TOTAL_FAIL=$((TOTAL_FAIL + $3))
}

# counts_from FILE PREFIX-REGEX -> "P F" from the last "...N passed, N failed" line
counts_from() {
	local line
	line=$(grep -E "${2}[^0-9]*[0-9]+ passed, [0-9]+ failed" "$1" | tail -n 1)
	if [ -z "$line" ]; then echo ""; return; fi
	echo "$line" | sed -E 's/.*[^0-9]([0-9]+) passed, ([0-9]+) failed.*/\1 \2/; s/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/'
}

banner() { echo; echo "======== $* ($(date -u +%H:%M:%S))"; }

# Is stage $1 listed in PF_SKIP_STAGES (the version matrix runs this script
# in chroots without clang and node)?
skipped() { case " ${PF_SKIP_STAGES:-} " in *" $1 "*) echo "$1: skipped (PF_SKIP_STAGES)"; return 0 ;; esac; return 1; }

# ---------------------------------------------------------------- deps
banner "deps"
# nginx-light and openssl: HTTPS with a private CA (test/remote/https.sh)
DEPS=("${PF_BUILD_DEPS[@]}" clang python3 nginx-light openssl)
command -v node >/dev/null 2>&1 || DEPS+=(nodejs)
command -v npm >/dev/null 2>&1 || DEPS+=(npm)
if [ "${PF_SKIP_DEPS:-0}" = 1 ]; then
	echo "deps: skipped (PF_SKIP_DEPS=1)"
elif ! pf_install_deps "${DEPS[@]}"; then
	echo "deps: installation failed (continuing; later stages may fail)"
	stage_result deps 0 1
fi

# The version matrix's root filesystems (a cold cache is mostly downloads)
# are made in the background while the host stages run; the matrix waits.
if [ "${PF_MATRIX:-1}" != 0 ] && [ -x scripts/test-matrix.sh ] && [ "$(id -u)" -eq 0 ]; then
	# shellcheck disable=SC2086
	setsid scripts/test-matrix.sh --prepare ${PF_MATRIX_VERSIONS:-15 17 18} >"$LOGDIR/matrix-prepare.log" 2>&1 &
	MATRIX_PREP_PID=$!
fi

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
[ -x "$PG_CONFIG" ] || PG_CONFIG=pg_config
export PG_CONFIG
JOBS=$(nproc 2>/dev/null || echo 2)

# ---------------------------------------------------------------- build
banner "build + install"
BUILD_OK=0
if make -j"$JOBS" PG_CONFIG="$PG_CONFIG" >"$LOGDIR/build.log" 2>&1 &&
	pf_sudo make install PG_CONFIG="$PG_CONFIG" >>"$LOGDIR/build.log" 2>&1; then
	BUILD_OK=1
	grep -E 'warning:' "$LOGDIR/build.log" | head -n 20
	stage_result build 1 0
else
	tail -n 60 "$LOGDIR/build.log"
	stage_result build 0 1
fi

# ---------------------------------------------------------------- warnings
# The pure-C layers build with -Werror (top Makefile); src/fdw's warnings,
# which PostgreSQL's headers could make compiler-dependent, fail here: those
# of the build above, and those of a syntax-only pass over src/fdw (an
# up-to-date build compiles nothing; -fsyntax-only writes no object).
banner "compiler warnings (extension build)"
if [ $BUILD_OK = 1 ]; then
	compiled=$(grep -cE ' -c -o [^ ]+\.o ' "$LOGDIR/build.log")
	fdw_objs=$(sed -nE 's/^FDW_OBJS[[:space:]]*\+=[[:space:]]*//p' src/fdw/objs.mk)
	# shellcheck disable=SC2086
	make -B -j"$JOBS" PG_CONFIG="$PG_CONFIG" COPT=-fsyntax-only $fdw_objs >"$LOGDIR/warnings.log" 2>&1
	rc=$?
	nwarn=$(cat "$LOGDIR/build.log" "$LOGDIR/warnings.log" | grep -cE 'warning:')
	cat "$LOGDIR/build.log" "$LOGDIR/warnings.log" | grep -E 'warning:' | head -n 40
	echo "warnings: $nwarn ($compiled objects built, then $(echo $fdw_objs | wc -w) src/fdw files checked)"
	if [ $rc -ne 0 ]; then
		tail -n 30 "$LOGDIR/warnings.log"
		stage_result warnings 0 $((nwarn + 1))
	elif [ "$nwarn" -eq 0 ]; then stage_result warnings 1 0
	else stage_result warnings 0 "$nwarn"; fi
else
	echo "warnings: build failed"
fi

# ---------------------------------------------------------------- symbols
# Every global symbol of a pure-C layer carries its layer's prefix.
banner "layer prefixes of global symbols"
if [ $BUILD_OK = 1 ]; then
	scripts/check_symbols.sh >"$LOGDIR/symbols.log" 2>&1
	rc=$?
	grep -vE '^symbols:' "$LOGDIR/symbols.log" | head -n 40
	c=$(counts_from "$LOGDIR/symbols.log" '^symbols:')
	if [ -z "$c" ]; then stage_result symbols 0 1
	else set -- $c; f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1; stage_result symbols "$1" "$f"; fi
else
	echo "symbols: build failed"
fi

# ---------------------------------------------------------------- unit
banner "unit tests"
if ls test/unit/test_*.c >/dev/null 2>&1; then
	make -C test run-unit >"$LOGDIR/unit.log" 2>&1
	rc=$?
	grep -vE '^(make|cc|gcc|clang|ar|rm|for|	)' "$LOGDIR/unit.log" | grep -E 'FAIL|passed|failed|error|exited' | tail -n 40
	c=$(counts_from "$LOGDIR/unit.log" '^unit:')
	if [ -z "$c" ]; then
		tail -n 40 "$LOGDIR/unit.log"
		stage_result unit 0 1
	else
		set -- $c
		f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
		stage_result unit "$1" "$f"
	fi
else
	stage_result unit 0 0
fi

# ---------------------------------------------------------------- unit-san
banner "unit tests (ASan+UBSan)"
if skipped unit-san; then :
elif ls test/unit/test_*.c >/dev/null 2>&1; then
	make -C test run-unit-san >"$LOGDIR/unit-san.log" 2>&1
	rc=$?
	grep -E 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error|SUMMARY|FAIL|exited|^unit-san:' "$LOGDIR/unit-san.log" | tail -n 40
	c=$(counts_from "$LOGDIR/unit-san.log" '^unit-san:')
	if [ -z "$c" ]; then
		tail -n 40 "$LOGDIR/unit-san.log"
		stage_result unit-san 0 1
	else
		set -- $c
		f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
		stage_result unit-san "$1" "$f"
	fi
else
	stage_result unit-san 0 0
fi

# ---------------------------------------------------------------- fuzz replay
banner "fuzz corpus replay (ASan+UBSan)"
if skipped fuzz-replay; then :
elif ls test/fuzz/fuzz_*.c >/dev/null 2>&1; then
	if make -C test replay >"$LOGDIR/replay-build.log" 2>&1; then
		rp=0; rf=0
		for src in test/fuzz/fuzz_*.c; do
			name=$(basename "$src" .c)
			bin=test/fuzz/bin/replay_$name
			corpus=test/fuzz/corpus/$name
			if [ ! -x "$bin" ]; then echo "$name: replay binary missing"; rf=$((rf + 1)); continue; fi
			if [ ! -d "$corpus" ]; then echo "$name: no corpus (0 inputs)"; continue; fi
			ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$bin" "$corpus" >"$LOGDIR/replay-$name.log" 2>&1
			rc=$?
			c=$(counts_from "$LOGDIR/replay-$name.log" '')
			if [ -z "$c" ]; then p=0; f=1; else set -- $c; p=$1; f=$2; fi
			[ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
			if [ "$f" -ne 0 ]; then tail -n 30 "$LOGDIR/replay-$name.log"; fi
			echo "$name: $p passed, $f failed"
			rp=$((rp + p)); rf=$((rf + f))
		done
		stage_result fuzz-replay "$rp" "$rf"
	else
		tail -n 40 "$LOGDIR/replay-build.log"
		stage_result fuzz-replay 0 1
	fi
else
	stage_result fuzz-replay 0 0
fi

# ---------------------------------------------------------------- cluster + readability
CORPUS=${PARQUET_TESTING_DIR:-$ROOT/../shared/parquet-testing}
[ -d "$CORPUS" ] && CORPUS=$(cd "$CORPUS" && pwd)
export PARQUET_TESTING_DIR=$CORPUS	# pg_regress: sql/*.sql \getenv it
CLUSTER_OK=0
need_cluster=0
[ -s sql/schedule ] && need_cluster=1
[ -f test/conformance/run_corpus.py ] && need_cluster=1
[ -f test/fdw_convert/run.sh ] && need_cluster=1
[ -f test/aggregate/agg_fuzz.py ] && need_cluster=1
[ -f test/qual_fuzz.py ] && need_cluster=1
[ -f test/live/live_fuzz.py ] && need_cluster=1
if [ $need_cluster = 1 ]; then
	banner "throwaway PostgreSQL cluster"
	if [ $BUILD_OK = 1 ] && pg_cluster_start; then
		CLUSTER_OK=1
		pg_psql -qc "ALTER SYSTEM SET log_min_messages = 'fatal'" -c "SELECT pg_reload_conf()" >/dev/null 2>&1 || true
	else
		# A failed build is already counted; the stages that need the
		# cluster then count as not run.
		if [ $BUILD_OK = 1 ]; then stage_result cluster 0 1; else echo "cluster: not started (build failed)"; fi
	fi
fi

# Make sure the server's OS user can read PATH; in CI open up the parents
# (chmod o+rx), elsewhere only report it.  Returns non-zero if unreadable.
ensure_readable() {
	local path=$1 d
	pf_readable_by "$PGC_RUNAS" "$path" && return 0
	if [ "${CI:-}" = true ] && [ "$(id -u)" -eq 0 ]; then
		echo "readability: CI: chmod o+rx on the parents of $path"
		d=$path
		while [ "$d" != / ] && [ -n "$d" ]; do
			chmod o+rx "$d" 2>/dev/null || true
			d=$(dirname "$d")
		done
		chmod -R o+rX "$path" 2>/dev/null || true
		pf_readable_by "$PGC_RUNAS" "$path" && return 0
	fi
	echo "readability: $path is not readable by OS user $PGC_RUNAS"
	return 1
}

# ---------------------------------------------------------------- remote
# The object-store client (src/remote) against s3rver and azurite on
# 127.0.0.1, and nginx over HTTPS with a private CA (test/remote/run.sh):
# ranged reads, listings, errors, refusals, TLS.
banner "object-store client (test/remote: s3rver, azurite, nginx)"
if skipped remote; then
	:
elif [ ! -x test/remote/run.sh ]; then
	stage_result remote 0 0
else
	test/remote/run.sh >"$LOGDIR/remote.log" 2>&1
	rc=$?
	c=$(counts_from "$LOGDIR/remote.log" '^remote:')
	if [ -z "$c" ]; then
		tail -n 40 "$LOGDIR/remote.log"
		stage_result remote 0 1
	else
		set -- $c
		f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
		if [ "$f" -ne 0 ]; then head -n 60 "$LOGDIR/remote.log" | cut -c1-400
		else grep -E '^(store_check|https_check|https_fdw|https|remote)' "$LOGDIR/remote.log"; fi
		stage_result remote "$1" "$f"
	fi
fi

# ---------------------------------------------------------------- remote-fdw
# The FDW reading s3:// (and az://, http://) URLs from s3rver behind the
# fault proxy in a throwaway cluster (test/remote/fdw_run.sh): the corpus
# identical to the local files, globs, hive folders, a shard, errors, faults.
banner "FDW over object storage (test/remote/fdw_run.sh)"
if skipped remote-fdw; then
	:
elif [ ! -x test/remote/fdw_run.sh ]; then
	stage_result remote-fdw 0 0
elif [ $BUILD_OK != 1 ]; then
	stage_result remote-fdw 0 1
else
	PG_CONFIG="$PG_CONFIG" PARQUET_TESTING_DIR="$CORPUS" \
		test/remote/fdw_run.sh >"$LOGDIR/remote-fdw.log" 2>&1
	rc=$?
	c=$(counts_from "$LOGDIR/remote-fdw.log" '^remote-fdw:')
	if [ -z "$c" ]; then
		tail -n 40 "$LOGDIR/remote-fdw.log"
		stage_result remote-fdw 0 1
	else
		set -- $c
		f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
		if [ "$f" -ne 0 ]; then grep -E '^(FAIL|remote-fdw)' -A3 "$LOGDIR/remote-fdw.log" | cut -c1-400
		else grep -E '^remote-fdw' "$LOGDIR/remote-fdw.log"; fi
		stage_result remote-fdw "$1" "$f"
	fi
fi

# ---------------------------------------------------------------- pg_regress
banner "pg_regress"
if [ ! -s sql/schedule ]; then
	echo "pg_regress: sql/schedule is empty (no tests yet)"
	stage_result pg_regress 0 0
elif [ $CLUSTER_OK != 1 ]; then
	stage_result pg_regress 0 1
else
	ensure_readable "$ROOT/sql" || true
	[ -d "$CORPUS" ] && { ensure_readable "$CORPUS" || true; }
	rm -f regression.diffs regression.out
	# pg_regress runs as this user (it only talks to the server over the socket).
	make installcheck PG_CONFIG="$PG_CONFIG" >"$LOGDIR/regress.log" 2>&1
	rc=$?
	grep -E '\.\.\. |^(ok|not ok) ' "$LOGDIR/regress.log"
	p=$(grep -cE '\.\.\. +ok|^ok ' "$LOGDIR/regress.log")
	f=$(grep -cE '\.\.\. +FAILED|\.\.\. +failed|^not ok ' "$LOGDIR/regress.log")
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		tail -n 30 "$LOGDIR/regress.log"
		f=1
	fi
	if [ -s regression.diffs ]; then
		echo "---- regression.diffs (first 300 lines)"
		head -n 300 regression.diffs
	fi
	stage_result pg_regress "$p" "$f"
fi

# ---------------------------------------------------------------- fdw-convert
# The converter test module (test/fdw_convert): each statement of
# convert_test.sql is one check against convert_test.out.
banner "fdw convert (test/fdw_convert)"
if [ ! -f test/fdw_convert/run.sh ]; then
	stage_result fdw-convert 0 0
elif [ $CLUSTER_OK != 1 ]; then
	stage_result fdw-convert 0 1
else
	sh test/fdw_convert/run.sh >"$LOGDIR/fdw_convert.log" 2>&1
	rc=$?
	c=$(counts_from "$LOGDIR/fdw_convert.log" '^convert test:')
	if [ -z "$c" ]; then
		tail -n 40 "$LOGDIR/fdw_convert.log"
		stage_result fdw-convert 0 1
	else
		set -- $c
		f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
		if [ "$f" -ne 0 ]; then head -n 80 "$LOGDIR/fdw_convert.log" | cut -c1-400
		else grep -E '^convert test:' "$LOGDIR/fdw_convert.log"; fi
		stage_result fdw-convert "$1" "$f"
	fi
fi

# ---------------------------------------------------------------- agg-fuzz
# Differential fuzzer of the aggregate pushdown against PostgreSQL's own
# aggregation (test/aggregate/agg_fuzz.py): a fixed seed and a bounded
# number of queries (~30 s on a quiet machine), each one check; once over
# the Parquet files (stage agg-fuzz), once over shards written from the
# same rows (stage agg-fuzz-shard).
AGG_FUZZ_SEED=${AGG_FUZZ_SEED:-1}
AGG_FUZZ_COUNT=${AGG_FUZZ_COUNT:-1000}
for agg_mode in parquet shard; do
	agg_stage=agg-fuzz; [ $agg_mode = shard ] && agg_stage=agg-fuzz-shard
	banner "aggregate pushdown fuzz over $agg_mode (seed $AGG_FUZZ_SEED, $AGG_FUZZ_COUNT queries)"
	if [ ! -f test/aggregate/agg_fuzz.py ]; then
		stage_result $agg_stage 0 0
		continue
	elif [ $CLUSTER_OK != 1 ]; then
		stage_result $agg_stage 0 1
		continue
	fi
	ensure_readable "$ROOT/test/data/aggregate" || true
	ensure_readable "$ROOT/test/data/scan" || true
	agg_args=("$AGG_FUZZ_SEED" "$AGG_FUZZ_COUNT")
	[ $agg_mode = shard ] && agg_args+=(shard)
	python3 test/aggregate/agg_fuzz.py "${agg_args[@]}" |
		psql -X -q -A -t >"$LOGDIR/$agg_stage.log" 2>&1
	rc=$?
	# One line per query: "[not ]pushed, 0 differences" when both results
	# agree; a difference names its query, an error has no result line.
	p=$(grep -cE '^(pushed|not pushed), 0 differences$' "$LOGDIR/$agg_stage.log")
	pushed=$(grep -cE '^pushed, 0 differences$' "$LOGDIR/$agg_stage.log")
	f=$((AGG_FUZZ_COUNT - p))
	[ "$f" -lt 0 ] && f=$((-f))
	others=$(grep -vcE '^(pushed|not pushed), 0 differences$' "$LOGDIR/$agg_stage.log")
	if [ "$others" -ne 0 ] || [ $rc -ne 0 ]; then
		grep -vE '^(pushed|not pushed), 0 differences$' "$LOGDIR/$agg_stage.log" | head -n 30 | cut -c1-400
		[ "$f" -eq 0 ] && f=1
	fi
	echo "$agg_stage: $p queries agreed ($pushed of them pushed down), $f failed"
	stage_result $agg_stage "$p" "$f"
done

# ---------------------------------------------------------------- qual-fuzz
# Differential fuzzer of the shard pruning against a heap table
# (test/qual_fuzz.py): random qual trees, a fixed seed, a bounded number of
# queries (~10 s), each one check.
QUAL_FUZZ_SEED=${QUAL_FUZZ_SEED:-1}
QUAL_FUZZ_COUNT=${QUAL_FUZZ_COUNT:-2000}
banner "shard qual fuzz (seed $QUAL_FUZZ_SEED, $QUAL_FUZZ_COUNT queries)"
if [ ! -f test/qual_fuzz.py ]; then
	stage_result qual-fuzz 0 0
elif [ $CLUSTER_OK != 1 ]; then
	stage_result qual-fuzz 0 1
else
	python3 test/qual_fuzz.py "$QUAL_FUZZ_SEED" "$QUAL_FUZZ_COUNT" |
		psql -X -q -A -t >"$LOGDIR/qual_fuzz.log" 2>&1
	rc=$?
	# One line per query: "0 differences" when shard and heap agree; a
	# difference names its query, an error has no result line.
	p=$(grep -cE '^0 differences$' "$LOGDIR/qual_fuzz.log")
	f=$((QUAL_FUZZ_COUNT - p))
	[ "$f" -lt 0 ] && f=$((-f))
	others=$(grep -vcE '^0 differences$' "$LOGDIR/qual_fuzz.log")
	if [ "$others" -ne 0 ] || [ $rc -ne 0 ]; then
		grep -vE '^0 differences$' "$LOGDIR/qual_fuzz.log" | head -n 30 | cut -c1-400
		[ "$f" -eq 0 ] && f=1
	fi
	echo "qual-fuzz: $p queries agreed, $f failed"
	stage_result qual-fuzz "$p" "$f"
fi

# ---------------------------------------------------------------- memory
# Memory and changing files through the running server (test/memory):
# hostile files whose one 100 MB value every row references must keep the
# backend's peak RSS under a few times that value, and a file written
# over, replaced or removed under an open cursor must be reported as such.
# Each check is one pass or failure; ~3 minutes on a quiet machine.
banner "memory bounds and changing files (test/memory)"
if skipped memory; then :
elif [ ! -f test/memory/run.sh ]; then
	stage_result memory 0 0
elif [ $CLUSTER_OK != 1 ]; then
	stage_result memory 0 1
else
	mp=0; mf=0
	for script in run.sh file_changed.sh; do
		bash "test/memory/$script" >"$LOGDIR/memory-$script.log" 2>&1
		rc=$?
		grep -E '^(ok|FAIL) ' "$LOGDIR/memory-$script.log" | cut -c1-300
		c=$(counts_from "$LOGDIR/memory-$script.log" '^(memory|file-changed):')
		if [ -z "$c" ]; then tail -n 20 "$LOGDIR/memory-$script.log"; mf=$((mf + 1)); continue; fi
		set -- $c
		mp=$((mp + $1)); mf=$((mf + $2))
		[ $rc -ne 0 ] && [ "$2" -eq 0 ] && mf=$((mf + 1))
	done
	stage_result memory "$mp" "$mf"
fi

# ---------------------------------------------------------------- live-fuzz
# Mutation fuzzing through the running server (test/live/live_fuzz.py):
# corpus files and Amudai shards with bit flips, overwritten footer and
# page-header fields, length words and truncations, each queried (scans,
# filters, aggregates, inspection functions) in a fresh backend with a
# statement timeout.  A crash, a hang or a backend above LIVE_FUZZ_RSS_MB
# fails; errors are expected.  First a self-test (the three detectors must
# fire), then the regression seeds of test/live/seeds, then random mutants
# for LIVE_FUZZ_SECONDS (default 180) from LIVE_FUZZ_SEED (default 1).
# PF_LIVE_FUZZ=0 skips it; LIVE_FUZZ_KEEP=DIR keeps the findings' files.
# Files live in the cluster's folder (removed with the cluster).
banner "live-server mutation fuzz (seed ${LIVE_FUZZ_SEED:-1}, ${LIVE_FUZZ_SECONDS:-180} s)"
if skipped live-fuzz; then :
elif [ "${PF_LIVE_FUZZ:-1}" = 0 ]; then
	echo "live-fuzz: skipped (PF_LIVE_FUZZ=0)"
elif [ $CLUSTER_OK != 1 ]; then
	stage_result live-fuzz 0 1
else
	lf_dir=$PGC_DIR/live-fuzz
	mkdir -p "$lf_dir" && chown "$PGC_RUNAS" "$lf_dir" 2>/dev/null; chmod 755 "$lf_dir"
	lf_args=(--workdir "$lf_dir" --server-log "$PGC_DIR/server.log" --seed "${LIVE_FUZZ_SEED:-1}"
		--budget "${LIVE_FUZZ_SECONDS:-180}" --rss-mb "${LIVE_FUZZ_RSS_MB:-256}")
	[ -n "${LIVE_FUZZ_KEEP:-}" ] && lf_args+=(--keep "$LIVE_FUZZ_KEEP")
	PATH=$PGC_BINDIR:$PATH python3 test/live/live_fuzz.py "${lf_args[@]}" --self-test \
		>"$LOGDIR/live-fuzz.log" 2>&1
	PATH=$PGC_BINDIR:$PATH python3 test/live/live_fuzz.py "${lf_args[@]}" >>"$LOGDIR/live-fuzz.log" 2>&1
	rc=$?
	grep -E '^(live-fuzz|FINDING)' "$LOGDIR/live-fuzz.log" | cut -c1-400
	rm -rf "$lf_dir"
	st=$(counts_from "$LOGDIR/live-fuzz.log" '^live-fuzz self-test:')
	c=$(counts_from "$LOGDIR/live-fuzz.log" '^live-fuzz:')
	if [ -z "$c" ] || [ -z "$st" ]; then
		tail -n 30 "$LOGDIR/live-fuzz.log"
		stage_result live-fuzz 0 1
	else
		set -- $st $c
		f=$(($2 + $4)); [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
		stage_result live-fuzz $(($1 + $3)) "$f"
	fi
fi

# ---------------------------------------------------------------- load
# pgbench over foreign tables (test/live/load.py, scripts in
# test/live/pgbench/): LOAD_CLIENTS (8) clients for LOAD_SECONDS (60), no
# failed transaction, backend private memory flat; then a file rewritten,
# replaced, truncated and deleted under LOAD_CHANGE_SECONDS (20) of
# queries, once a Parquet file, once a shard: no crash, every answer that
# of one of the two versions.  PF_LOAD=0 skips it.
banner "load (pgbench ${LOAD_CLIENTS:-8} clients, ${LOAD_SECONDS:-60} s; files changed under queries)"
if skipped load; then :
elif [ "${PF_LOAD:-1}" = 0 ]; then
	echo "load: skipped (PF_LOAD=0)"
elif [ $CLUSTER_OK != 1 ]; then
	stage_result load 0 1
else
	ld_dir=$PGC_DIR/load
	mkdir -p "$ld_dir" && chown "$PGC_RUNAS" "$ld_dir" 2>/dev/null; chmod 755 "$ld_dir"
	PATH=$PGC_BINDIR:$PATH python3 test/live/load.py --workdir "$ld_dir" --server-log "$PGC_DIR/server.log" \
		--seconds "${LOAD_SECONDS:-60}" --clients "${LOAD_CLIENTS:-8}" \
		--change-seconds "${LOAD_CHANGE_SECONDS:-20}" >"$LOGDIR/load.log" 2>&1
	rc=$?
	grep -E '^load: ' "$LOGDIR/load.log" | grep -vE '^load: backend [0-9]+:' | cut -c1-400
	rm -rf "$ld_dir"
	c=$(counts_from "$LOGDIR/load.log" '^load:')
	if [ -z "$c" ]; then tail -n 30 "$LOGDIR/load.log"; stage_result load 0 1
	else set -- $c; f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1; stage_result load "$1" "$f"; fi
fi

# ---------------------------------------------------------------- conformance
banner "conformance harness self-test"
if [ -f test/conformance/test_normalize.py ]; then
	python3 test/conformance/test_normalize.py >"$LOGDIR/normalize.log" 2>&1
	rc=$?
	grep -E 'FAIL|Error|passed' "$LOGDIR/normalize.log" | tail -n 30
	c=$(counts_from "$LOGDIR/normalize.log" '^normalize:')
	if [ -z "$c" ]; then tail -n 30 "$LOGDIR/normalize.log"; stage_result normalize 0 1
	else set -- $c; f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1; stage_result normalize "$1" "$f"; fi
else
	stage_result normalize 0 0
fi

# Corpus files must be readable by the server; copy them to the cluster's
# folder when the server's OS user cannot read them in place.
server_readable_copy() {
	local src=$1 name=$2
	if [ "$PGC_RUNAS" = "$(id -un)" ]; then echo "$src"; return; fi
	if pf_readable_by "$PGC_RUNAS" "$src/." &&
		[ -z "$(runuser -u "$PGC_RUNAS" -- find "$src" \( -type f ! -readable \) -o \( -type d ! -executable \) -print -quit 2>&1)" ]; then
		echo "$src"
		return
	fi
	mkdir -p "$PGC_DIR/$name"
	cp -r "$src/." "$PGC_DIR/$name/"
	chmod -R a+rX "$PGC_DIR/$name"
	echo "readability: copied $src to $PGC_DIR/$name (not readable by $PGC_RUNAS)" >&2
	echo "$PGC_DIR/$name"
}

banner "conformance (parquet-testing corpus)"
if [ ! -f test/conformance/run_corpus.py ]; then
	stage_result conformance 0 0
elif [ ! -d "$CORPUS" ]; then
	echo "conformance: corpus not found at $CORPUS (set PARQUET_TESTING_DIR)"
	stage_result conformance 0 1
elif [ $CLUSTER_OK != 1 ]; then
	stage_result conformance 0 1
else
	corpus_srv=$(server_readable_copy "$CORPUS" corpus)
	python3 test/conformance/run_corpus.py --corpus "$corpus_srv" --manifest "$CORPUS/MANIFEST.tsv" \
		>"$LOGDIR/conformance.log" 2>&1
	rc=$?
	cat "$LOGDIR/conformance.log" | cut -c1-400
	c=$(counts_from "$LOGDIR/conformance.log" '^conformance:')
	if [ -z "$c" ]; then stage_result conformance 0 1
	else set -- $c; f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1; stage_result conformance "$1" "$f"; fi

	# VARIANT values against the corpus' own *.variant.bin bytes, decoded by
	# an independent Python decoder (DuckDB's CSV cannot judge every case)
	if [ -f test/conformance/check_variant_bin.py ]; then
		banner "conformance (VARIANT against the corpus' .variant.bin)"
		python3 test/conformance/check_variant_bin.py --corpus "$corpus_srv" \
			>"$LOGDIR/variant_bin.log" 2>&1
		rc=$?
		grep -E 'FAIL|passed' "$LOGDIR/variant_bin.log" | cut -c1-400
		c=$(counts_from "$LOGDIR/variant_bin.log" '^variant.bin check:')
		if [ -z "$c" ]; then stage_result variant-bin 0 1
		else set -- $c; f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1; stage_result variant-bin "$1" "$f"; fi
	fi
fi

# Every corpus file that reads today, written back with COPY TO (FORMAT
# parquet) and read again: the same rows (test/copy_roundtrip/run.py).
banner "copy round trip (parquet-testing corpus)"
if [ ! -f test/copy_roundtrip/run.py ]; then
	stage_result copy-roundtrip 0 0
elif [ ! -d "$CORPUS" ] || [ $CLUSTER_OK != 1 ]; then
	stage_result copy-roundtrip 0 1
else
	rt_corpus=${corpus_srv:-$(server_readable_copy "$CORPUS" corpus)}
	python3 test/copy_roundtrip/run.py --corpus "$rt_corpus" >"$LOGDIR/copy_roundtrip.log" 2>&1
	rc=$?
	grep -vE '^(PASS|SKIP) ' "$LOGDIR/copy_roundtrip.log" | cut -c1-400
	c=$(counts_from "$LOGDIR/copy_roundtrip.log" '^copy-roundtrip:')
	if [ -z "$c" ]; then stage_result copy-roundtrip 0 1
	else set -- $c; f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1; stage_result copy-roundtrip "$1" "$f"; fi
fi

banner "conformance (generated files)"
if skipped generated; then :
elif [ ! -f test/generated/generate.sh ]; then
	echo "generated: test/generated/generate.sh does not exist yet"
	stage_result generated 0 0
else
	gp=0; gf=0
	if bash test/generated/generate.sh >"$LOGDIR/generate.log" 2>&1; then
		tail -n 5 "$LOGDIR/generate.log"
	else
		tail -n 30 "$LOGDIR/generate.log"
		echo "generated: test/generated/generate.sh failed"
		gf=1
	fi
	if [ -d build/generated ] && ls build/generated/*.parquet >/dev/null 2>&1; then
		if [ $CLUSTER_OK = 1 ]; then
			gen_srv=$(server_readable_copy "$ROOT/build/generated" generated)
			python3 test/conformance/run_corpus.py --dir "$gen_srv" >"$LOGDIR/generated.log" 2>&1
			rc=$?
			cut -c1-400 "$LOGDIR/generated.log"
			c=$(counts_from "$LOGDIR/generated.log" '^conformance:')
			if [ -z "$c" ]; then gf=$((gf + 1))
			else set -- $c; gp=$((gp + $1)); gf=$((gf + $2)); [ $rc -ne 0 ] && [ "$2" -eq 0 ] && gf=$((gf + 1)); fi
		else
			gf=$((gf + 1))
		fi
	elif [ $gf -eq 0 ]; then
		echo "generated: no build/generated/*.parquet produced"
		gf=1
	fi
	stage_result generated "$gp" "$gf"
fi

banner "COPY TO interop (DuckDB, hyparquet, arrow-rs)"
if skipped copy-interop; then :
elif [ $CLUSTER_OK != 1 ]; then
	echo "copy-interop: no cluster"
	stage_result copy-interop 0 1
else
	bash test/copy_interop/run.sh >"$LOGDIR/copy_interop.log" 2>&1
	rc=$?
	grep -E '^(FAIL|ok)|passed' "$LOGDIR/copy_interop.log" | cut -c1-400
	c=$(counts_from "$LOGDIR/copy_interop.log" '^')
	if [ -z "$c" ]; then tail -n 20 "$LOGDIR/copy_interop.log"; stage_result copy-interop 0 1
	else set -- $c; f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1; stage_result copy-interop "$1" "$f"; fi
fi

# ---------------------------------------------------------------- cluster
# Scale-out over postgres_fdw (test/cluster/run.sh): a coordinator and three
# nodes of their own (scripts/cluster.sh), a table distributed over them;
# results against one server and a heap table, the plans on both sides, a
# node that is down.  Each check is one.
banner "scale-out cluster (test/cluster)"
if skipped cluster; then :
elif [ ! -x test/cluster/run.sh ]; then
	stage_result cluster 0 0
elif [ $BUILD_OK != 1 ]; then
	stage_result cluster 0 1
else
	ensure_readable "$ROOT/test/data/pruning" >/dev/null 2>&1 || true
	test/cluster/run.sh >"$LOGDIR/cluster.log" 2>&1
	rc=$?
	grep -vE '^ok ' "$LOGDIR/cluster.log" | cut -c1-400 | head -n 60
	c=$(counts_from "$LOGDIR/cluster.log" '^cluster:')
	if [ -z "$c" ]; then tail -n 30 "$LOGDIR/cluster.log"; stage_result cluster 0 1
	else set -- $c; f=$2; [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1; stage_result cluster "$1" "$f"; fi
fi

# ---------------------------------------------------------------- version matrix
# The same stages against PostgreSQL 15, 17 and 18, each in its own Debian
# root filesystem (scripts/test-matrix.sh; cached under
# /var/cache/parquet_fdw/rootfs).  Its "stage pgN" lines are summed here.
if [ "${PF_MATRIX:-1}" != 0 ] && [ -x scripts/test-matrix.sh ]; then
	banner "PostgreSQL version matrix"
	# The host cluster is not needed any more; free its memory and port.
	pg_cluster_stop
	if [ -n "$MATRIX_PREP_PID" ]; then
		wait "$MATRIX_PREP_PID"
		MATRIX_PREP_PID=
		grep -E 'rootfs .* built in|debootstrap|failed' "$LOGDIR/matrix-prepare.log" |
			grep -vE '^[0-9]+ passed, [0-9]+ failed$'  # its own tally, not a result
	fi
	# shellcheck disable=SC2086
	scripts/test-matrix.sh ${PF_MATRIX_VERSIONS:-15 17 18} >"$LOGDIR/matrix.log" 2>&1
	grep -vE '^stage pg[0-9]+: |^[0-9]+ passed, [0-9]+ failed$' "$LOGDIR/matrix.log"
	n=0
	while read -r v p f; do
		stage_result "pg$v" "$p" "$f"
		n=$((n + 1))
	done < <(sed -nE 's/^stage pg([0-9]+): ([0-9]+) passed, ([0-9]+) failed$/\1 \2 \3/p' "$LOGDIR/matrix.log" | sort -u)
	[ $n -eq 0 ] && stage_result matrix 0 1
fi

# ---------------------------------------------------------------- summary
# The failed checks' own lines, next to the summary: a long run's log is
# often read from its end only.
if [ "$TOTAL_FAIL" -gt 0 ]; then
	banner "failed checks (the first lines of each stage's log)"
	for f in "$LOGDIR"/*.log; do
		[ -f "$f" ] || continue
		grep -E '^(FAIL|not ok)|: FAIL' "$f" | head -n 5 | cut -c1-300 | sed "s|^|$(basename "$f" .log): |"
	done
fi

banner "summary"
for l in "${SUMMARY[@]}"; do echo "$l"; done
echo "elapsed: $(( $(date +%s) - START_TS ))s"
echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
[ "$TOTAL_FAIL" -eq 0 ]
