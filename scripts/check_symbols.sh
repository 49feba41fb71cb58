#!/usr/bin/env bash
# Every global symbol a pure-C layer defines carries its layer's prefix, so
# that the layers cannot collide with each other, with PostgreSQL or with
# the libraries the extension links:
#
#   src/codec cdc_   src/compress cmp_   src/parquet pq_   src/amudai am_
#   src/common pfc_   src/remote rmt_
#
# Reads the objects each layer's objs.mk lists, as the extension build left
# them (run `make` first), with `nm -g --defined-only`.  Prints every symbol
# without its prefix, then "symbols: N passed, N failed" (one check per
# symbol, a missing object is a failure); exit status non-zero on failure.
#
#   scripts/check_symbols.sh
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1

LAYERS="codec:cdc_ compress:cmp_ parquet:pq_ amudai:am_ common:pfc_ remote:rmt_"
pass=0
fail=0
for entry in $LAYERS; do
	layer=${entry%%:*}
	prefix=${entry#*:}
	mk=src/$layer/objs.mk
	[ -f "$mk" ] || continue
	for obj in $(sed -nE 's/^[A-Z_]+_OBJS[[:space:]]*\+=[[:space:]]*//p' "$mk"); do
		if [ ! -f "$obj" ]; then
			echo "$obj: missing (build first)"
			fail=$((fail + 1))
			continue
		fi
		while read -r _ _ sym; do
			[ -n "$sym" ] || continue
			case $sym in
			"$prefix"*) pass=$((pass + 1)) ;;
			*)
				echo "$obj: $sym lacks the $layer prefix $prefix"
				fail=$((fail + 1))
				;;
			esac
		done < <(nm -g --defined-only "$obj")
	done
done
echo "symbols: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
