#!/bin/sh
# Build the convert.c test module and run convert_test.sql against a running
# server (PGHOST/PGPORT/PGUSER from the environment); compares with
# convert_test.out statement by statement: each statement of convert_test.sql
# is one check, passed when its echoed output is the expected one.  Prints
# "convert test: N passed, N failed" and exits non-zero on any failure.
# Usage: test/fdw_convert/run.sh [--accept]
#
# Statements start at column 0 and end with ';' at the end of a line (or are
# one-line backslash commands): keep convert_test.sql in that form.
set -e
cd "$(dirname "$0")"
make -s >/dev/null
dir=$(mktemp -d /tmp/pf_convert_test.XXXXXX)
chmod 755 "$dir"
cp pf_convert_test.so "$dir/"
chmod 755 "$dir/pf_convert_test.so"
psql -X -q -v ON_ERROR_STOP=0 -d "${PGDATABASE:-postgres}" \
	-c "SET client_min_messages = warning" \
	-c "DROP FUNCTION IF EXISTS pf_convert_test(text, regtype, int)" \
	-c "CREATE FUNCTION pf_convert_test(text, regtype, int) RETURNS SETOF text AS '$dir/pf_convert_test.so' LANGUAGE C STRICT" >/dev/null
psql -X -a -d "${PGDATABASE:-postgres}" -f convert_test.sql > "$dir/result.out" 2>&1 || true
sed -i 's/^psql:convert_test.sql:[0-9]*: //' "$dir/result.out"
if [ "$1" = "--accept" ]; then
	cp "$dir/result.out" convert_test.out
fi

# Split both outputs at the echoed first line of each statement (psql -a
# echoes the input in order) and compare them block by block.
set +e
awk '
FILENAME == ARGV[1] {
	if (!in_stmt && $0 !~ /^[ \t]*$/ && $0 !~ /^--/) { n++; first[n] = $0; in_stmt = 1 }
	if (in_stmt && ($0 ~ /;[ \t]*$/ || $0 ~ /^\\/)) in_stmt = 0
	next
}
FNR == 1 { file++; k = 0 }
{
	if (k < n && $0 == first[k + 1]) k++
	out[file, k] = out[file, k] $0 "\n"
}
END {
	pass = 0; fail = 0
	if (out[1, 0] != out[2, 0]) { fail++; print "FAILED: output before the first statement" }
	for (i = 1; i <= n; i++) {
		if ((1, i) in out && out[1, i] == out[2, i]) pass++
		else { fail++; print "FAILED: " first[i] }
	}
	print "convert test: " pass " passed, " fail " failed"
	exit fail != 0
}' convert_test.sql convert_test.out "$dir/result.out"
rc=$?
if [ $rc -eq 0 ]; then
	rm -rf "$dir"
else
	diff -u convert_test.out "$dir/result.out" | head -n 100
	echo "convert test: result in $dir/result.out"
fi
exit $rc
