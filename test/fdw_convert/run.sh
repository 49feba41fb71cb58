#!/bin/sh
# Build the convert.c test module and run convert_test.sql against a running
# server (PGHOST/PGPORT/PGUSER from the environment); compares with
# convert_test.out.  Usage: test/fdw_convert/run.sh [--accept]
set -e
cd "$(dirname "$0")"
make -s >/dev/null
dir=$(mktemp -d /tmp/pf_convert_test.XXXXXX)
chmod 755 "$dir"
cp pf_convert_test.so "$dir/"
chmod 755 "$dir/pf_convert_test.so"
psql -X -q -v ON_ERROR_STOP=0 -d "${PGDATABASE:-postgres}" \
	-c "DROP FUNCTION IF EXISTS pf_convert_test(text, regtype, int)" \
	-c "CREATE FUNCTION pf_convert_test(text, regtype, int) RETURNS SETOF text AS '$dir/pf_convert_test.so' LANGUAGE C STRICT" >/dev/null
psql -X -a -d "${PGDATABASE:-postgres}" -f convert_test.sql > "$dir/result.out" 2>&1 || true
sed -i 's/^psql:convert_test.sql:[0-9]*: //' "$dir/result.out"
if [ "$1" = "--accept" ]; then
	cp "$dir/result.out" convert_test.out
fi
if diff -u convert_test.out "$dir/result.out"; then
	echo "convert test: ok"
	rm -rf "$dir"
else
	echo "convert test: FAILED (result in $dir/result.out)"
	exit 1
fi
