#!/usr/bin/env bash
# Run a command against a throwaway PostgreSQL cluster: with-postgres.sh CMD [ARGS...]
# Starts PostgreSQL (the machine's server binaries) on a free loopback port with a fresh
# database, exports DD_TEST_DB_URL for the test suite, runs the command, then removes it all.
set -euo pipefail
PG_BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"
if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/initdb" ]; then
  echo "PostgreSQL server binaries not found (set PG_BIN): skipping the PostgreSQL run." >&2
  exit 0
fi
dir=$(mktemp -d /tmp/dd-pg-XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg=()
if [ "$(id -u)" = "0" ]; then
  chown postgres "$dir"
  as_pg=(runuser -u postgres --)
fi
cleanup() {
  "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
"${as_pg[@]}" "$PG_BIN/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
"${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o \
  "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null
"${as_pg[@]}" "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres dd_test
export DD_TEST_DB_URL="postgresql+psycopg://postgres@127.0.0.1:$port/dd_test"
"$@"
