#!/usr/bin/env bash
# Start a throwaway PostgreSQL on 127.0.0.1 for the database-cursor tests, and print the
# DSN to use as MEMTRAILS_TEST_PG_DSN. Installs Debian's postgresql when it is missing.
#   usage: eval "$(scripts/postgres.sh)"     stop: scripts/postgres.sh stop
set -euo pipefail
PGPORT=${MEMTRAILS_PG_PORT:-54329}
PGDATA=${MEMTRAILS_PG_DATA:-/tmp/memtrails-pg}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ]; then
  as_root apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq postgresql >&2
  bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi

# PostgreSQL refuses to run as root: run it as the postgres user when we are root.
run() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

if [ "${1:-}" = stop ]; then
  run "$bindir/pg_ctl" -D "$PGDATA" -m fast stop >&2 || true
  exit 0
fi

if ! run "$bindir/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
  rm -rf "$PGDATA"
  mkdir -p "$PGDATA"
  [ "$(id -u)" = 0 ] && chown postgres "$PGDATA"
  run "$bindir/initdb" -D "$PGDATA" -U postgres --auth=trust -E UTF8 >/dev/null
  run "$bindir/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w \
    -o "-p $PGPORT -k $PGDATA -c listen_addresses=127.0.0.1" start >&2
fi
echo "export MEMTRAILS_TEST_PG_DSN=postgresql://postgres@127.0.0.1:$PGPORT/postgres"
