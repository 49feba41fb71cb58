# shellcheck shell=bash
# The live servers of the remote stages (test/remote/run.sh, fdw_run.sh,
# bench/remote.sh), sourced, on 127.0.0.1 ports the kernel picks:
#   rs_install                   s3rver and Azurite from npm into the node cache
#   rs_free_ports N              N distinct free TCP ports, on one line
#   rs_wait_port PORT            until something answers HTTP there
#   rs_start_s3rver PORT DIR     s3rver with the bucket "test", data in DIR
#   rs_start_azurite PORT DIR    Azurite's blob service, data in DIR
#   rs_start_proxy PORT TPORT    test/remote/fault_proxy.mjs in front of TPORT
#   rs_start_s3_behind_proxy DIR s3rver (data in DIR) and the fault proxy in
#                                front of it, both answering: sets S3_PORT and
#                                PROXY_PORT; non-zero when one did not start
#   rs_start_nginx PORT DIR      nginx over plain http serving DIR/www (GET,
#                                HEAD, ranges): a fast server for http:// URLs
#   rs_start_nginx_delay PORT DIR MS  the same, each request answered MS ms
#                                late by nginx's echo module (a timer: no CPU
#                                spent on the wait, unlike the JS proxies)
#   rs_s3_put PORT KEY FILE      upload FILE as test/KEY (curl's own SigV4)
#   rs_stop                      stop every server started (call from a trap)
# Before sourcing: STAGE (the name failures are printed under).
RS_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
S3RVER_VERSION=3.7.1
AZURITE_VERSION=3.35.0
# Azurite's well-known development account (public, in Microsoft's docs).
AZ_ACCOUNT=devstoreaccount1
AZ_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
# A folder of their own: npm install --no-save prunes what it did not list,
# which would remove the DuckDB package test/generated keeps in the parent.
RS_CACHE=${PARQUET_FDW_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw}/remote-servers
RS_PIDS=()

rs_version_of() {
	node -e 'try { console.log(require(process.argv[1]).version) } catch (e) { console.log("") }' \
		"$RS_CACHE/node_modules/$1/package.json"
}

rs_install() {
	mkdir -p "$RS_CACHE"
	# A package.json of its own keeps npm from installing into a parent folder.
	[ -f "$RS_CACHE/package.json" ] || echo '{"private": true}' >"$RS_CACHE/package.json"
	if [ "$(rs_version_of s3rver)" != "$S3RVER_VERSION" ] ||
		[ "$(rs_version_of azurite)" != "$AZURITE_VERSION" ]; then
		echo "$STAGE: installing s3rver@$S3RVER_VERSION azurite@$AZURITE_VERSION into $RS_CACHE"
		npm install --prefix "$RS_CACHE" --no-audit --no-fund --no-save --loglevel=error \
			"s3rver@$S3RVER_VERSION" "azurite@$AZURITE_VERSION" >/dev/null 2>&1 || return 1
	fi
}

rs_free_ports() {
	# every socket stays bound until all are chosen: the ports differ
	python3 -c 'import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

rs_wait_port() {
	for _ in $(seq 1 100); do
		curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
		sleep 0.2
	done
	return 1
}

rs_start_s3rver() {
	# s3rver 3 makes continuation tokens with a cipher Node's OpenSSL 3 hides.
	NODE_OPTIONS=--openssl-legacy-provider "$RS_CACHE/node_modules/.bin/s3rver" \
		-d "$2" -a 127.0.0.1 -p "$1" --configure-bucket test \
		>"$2.log" 2>&1 &
	RS_PIDS+=($!)
}

rs_start_azurite() {
	"$RS_CACHE/node_modules/.bin/azurite-blob" --silent --disableTelemetry --skipApiVersionCheck \
		--location "$2" --blobHost 127.0.0.1 --blobPort "$1" \
		>"$2.log" 2>&1 &
	RS_PIDS+=($!)
}

rs_start_proxy() {
	node "$RS_HERE/fault_proxy.mjs" "$1" 127.0.0.1 "$2" >/dev/null 2>&1 &
	RS_PIDS+=($!)
}

# a store DELAY ms away (per request) at port 1, in front of port 2
rs_start_delay_proxy() {
	node "$RS_HERE/delay_proxy.mjs" "$1" 127.0.0.1 "$2" "$3" >/dev/null 2>&1 &
	RS_PIDS+=($!)
}

rs_start_s3_behind_proxy() {
	read -r S3_PORT PROXY_PORT <<<"$(rs_free_ports 2)"
	rs_start_s3rver "$S3_PORT" "$1"
	rs_start_proxy "$PROXY_PORT" "$S3_PORT"
	rs_wait_port "$S3_PORT" && rs_wait_port "$PROXY_PORT"
}

rs_start_nginx() {
	local nginx server
	nginx=$(command -v nginx || echo /usr/sbin/nginx)
	mkdir -p "$2/www" "$2/logs" "$2/tmp"
	server="server { listen 127.0.0.1:$1; root $2/www; }"
	# echo_sleep waits on a timer, then the static handler answers (ranges,
	# If-Match and its 412 alike): a store across a network for the bench
	[ -n "${3:-}" ] && server="server { listen 127.0.0.1:$1; root $2/www;
		location / { echo_sleep $(printf '%d.%03d' $(($3 / 1000)) $(($3 % 1000))); echo_exec @files; }
		location @files { }
	}"
	cat >"$2/nginx.conf" <<CONF
${3:+load_module ${RS_NGINX_ECHO:-/usr/lib/nginx/modules/ngx_http_echo_module.so};}
daemon off;
worker_processes 1;
pid $2/nginx.pid;
error_log $2/logs/error.log warn;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $2/tmp/body;
	proxy_temp_path $2/tmp/proxy;
	fastcgi_temp_path $2/tmp/fastcgi;
	uwsgi_temp_path $2/tmp/uwsgi;
	scgi_temp_path $2/tmp/scgi;
	default_type application/octet-stream;
	$server
}
CONF
	"$nginx" -e "$2/logs/error.log" -p "$2" -c "$2/nginx.conf" >"$2/logs/stdout.log" 2>&1 &
	RS_PIDS+=($!)
}

rs_start_nginx_delay() { rs_start_nginx "$1" "$2" "$3"; }

rs_s3_put() {
	curl -s -f --aws-sigv4 "aws:amz:us-east-1:s3" --user S3RVER:S3RVER \
		-H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -T "$3" \
		"http://127.0.0.1:$1/test/$2" -o /dev/null
}

rs_stop() {
	for p in "${RS_PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	RS_PIDS=()
}
