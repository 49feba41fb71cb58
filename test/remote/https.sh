#!/usr/bin/env bash
# The object-store client over HTTPS: nginx (Debian's, from the deps list
# of scripts/test.sh) on 127.0.0.1 with a certificate signed by a CA that
# openssl makes in a temporary folder, serving corpus files with ranges.
# Runs test/remote/https_check.c against it (reads with ca_file, a clear
# TLS error without it, no redirect followed, no secret in an error).
#
# Then, where the FDW reads URLs (src/fdw/remote_object.c is in the tree,
# and the extension is installed for PG_CONFIG), the same through SQL on
# a throwaway cluster (https_fdw.sql's checks): rows read over https://
# and s3:// with ca_file equal the local file's, no CA is 58030 with a
# ca_file hint, a refused signed request is 42501 whose error and server
# log hold no secret, 404 is 58P01, a role without parquet_fdw_remote_read
# gets 42501 and a member reads, a link-local endpoint of a server that a
# superuser does not own is refused.
# Stops what it started.  Last line "https: N passed, N failed".
#
#   test/remote/https.sh
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CORPUS=${PARQUET_TESTING_DIR:-$ROOT/../shared/parquet-testing}/data
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
KEYS=(alltypes_plain.parquet datapage_v2.snappy.parquet binary.parquet)

fail_all() { echo "https: $*"; echo "https: 0 passed, 1 failed"; exit 1; }
[ -x "$NGINX" ] || fail_all "nginx not found (Debian package nginx-light)"
command -v openssl >/dev/null || fail_all "openssl not found"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pf-https.XXXXXX")
NGINX_PID=
cleanup() {
	if [ -n "$NGINX_PID" ]; then kill "$NGINX_PID" 2>/dev/null; wait "$NGINX_PID" 2>/dev/null; fi
	[ "$(type -t pg_cluster_stop)" = function ] && pg_cluster_stop
	rm -rf "$WORK"
}
trap cleanup EXIT
chmod 755 "$WORK"

make -s -C "$ROOT/test" remote/bin/https_check || fail_all "build of https_check failed"

# A CA and a server certificate for 127.0.0.1 signed by it.
(
	cd "$WORK" || exit 1
	umask 022
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout ca.key -out ca.pem -days 2 -subj "/CN=parquet_fdw test CA" &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout server.key -out server.csr -subj "/CN=127.0.0.1" &&
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n' >ext.cnf &&
	openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
		-out server.pem -days 2 -extfile ext.cnf
) >"$WORK/openssl.log" 2>&1 || { cat "$WORK/openssl.log"; fail_all "openssl could not make the certificates"; }

# The files nginx serves, readable by its worker user.
mkdir -p "$WORK/www/test" "$WORK/logs" "$WORK/tmp"
for k in "${KEYS[@]}"; do cp "$CORPUS/$k" "$WORK/www/test/" || fail_all "no corpus file $k"; done
chmod -R a+rX "$WORK/www"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$WORK/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log warn;
events { worker_connections 64; }
http {
	access_log $WORK/logs/access.log;
	client_body_temp_path $WORK/tmp/body;
	proxy_temp_path $WORK/tmp/proxy;
	fastcgi_temp_path $WORK/tmp/fastcgi;
	uwsgi_temp_path $WORK/tmp/uwsgi;
	scgi_temp_path $WORK/tmp/scgi;
	default_type application/octet-stream;
	server {
		listen 127.0.0.1:$PORT ssl;
		ssl_certificate $WORK/server.pem;
		ssl_certificate_key $WORK/server.key;
		root $WORK/www;
		location /test/ { }
		location /redirect/ { return 302 /test/; }
		location /denied/ {
			default_type application/xml;
			return 403 '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';
		}
	}
}
CONF
"$NGINX" -e "$WORK/logs/error.log" -p "$WORK" -c "$WORK/nginx.conf" >"$WORK/logs/stdout.log" 2>&1 &
NGINX_PID=$!
for _ in $(seq 1 50); do
	curl -s -o /dev/null --cacert "$WORK/ca.pem" "https://127.0.0.1:$PORT/test/${KEYS[0]}" && break
	if ! kill -0 "$NGINX_PID" 2>/dev/null; then
		cat "$WORK/logs/error.log" "$WORK/logs/stdout.log"; NGINX_PID=; fail_all "nginx did not start"
	fi
	sleep 0.2
done

pass=0
fail=0
# count LOG: add the "N passed, N failed" of LOG's last such line
count() {
	local line p f
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
	p=$(echo "$line" | sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed.*/\1/p')
	f=$(echo "$line" | sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed.*/\2/p')
	[ -z "$p" ] && { p=0; f=1; }
	[ "$2" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p))
	fail=$((fail + f))
}

"$ROOT/test/remote/bin/https_check" "127.0.0.1:$PORT" "$WORK/ca.pem" "$WORK/www/test" "${KEYS[@]}" \
	>"$WORK/check.log" 2>&1
rc=$?
cat "$WORK/check.log"
count "$WORK/check.log" $rc

if [ ! -f "$ROOT/src/fdw/remote_object.c" ]; then
	echo "https_fdw: skipped (this tree's FDW does not read URLs yet)"
else
	# shellcheck source=scripts/lib/pgcluster.sh
	. "$ROOT/scripts/lib/pgcluster.sh"
	if ! pg_cluster_start >"$WORK/cluster.log" 2>&1; then
		cat "$WORK/cluster.log"
		echo "https_fdw: 0 passed, 1 failed"
		fail=$((fail + 1))
	else
		psql -X -q -At -v ON_ERROR_STOP=1 -v port="$PORT" -v work="$WORK" \
			-f "$HERE/https_fdw.sql" >"$WORK/fdw.log" 2>&1
		rc=$?
		# the secret of the user mapping must not be in the server's log
		if grep -q 'https-fdw-secret' "$PGC_DIR/server.log"; then
			echo "https_fdw: the server log holds the secret"; rc=1
		fi
		cat "$WORK/fdw.log"
		count "$WORK/fdw.log" $rc
	fi
fi
[ $fail -ne 0 ] && tail -n 20 "$WORK/logs/error.log"
echo "https: $pass passed, $fail failed"
[ $fail -eq 0 ]
