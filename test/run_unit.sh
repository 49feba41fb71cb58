#!/bin/sh
# Run each unit test program given as an argument and sum their
# "<name>: N passed, N failed" lines into one total line, labelled
# $UNIT_LABEL (default "unit").
total_pass=0
total_fail=0
for bin in "$@"; do
	out=$("$bin" 2>&1)
	rc=$?
	printf '%s\n' "$out" | tail -n 60
	line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	p=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) passed, ([0-9]+) failed.*/\1/')
	f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) passed, ([0-9]+) failed.*/\2/')
	[ -n "$p" ] || p=0
	[ -n "$f" ] || f=0
	# A crash or a missing summary line counts as one failure.
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "$bin: exited with status $rc"; fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
done
echo "${UNIT_LABEL:-unit}: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
