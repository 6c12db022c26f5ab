#!/usr/bin/env bash
# Throwaway PostgreSQL 15 + pgvector cluster for Dossier's PostgreSQL store tests (CI and local).
#   start  install postgresql-15/-server-dev-15 with apt if missing; build pgvector from a copy of
#          ../shared/vendor/pgvector-0.8.6 unless vector.control is installed (Debian 12 has no
#          pgvector package and CI reaches only Debian's archive and npm, so it is vendored);
#          initdb a cluster in $DOSSIER_PG_DIR (default /tmp/dossier-pg) as the `postgres` user
#          (postgres refuses to run as root), on 127.0.0.1 and a free port (from 55432), trust
#          auth, fsync off; `vector` is created in template1 and in database dossier_test.
#   env    print the connection string, e.g. postgres://postgres@127.0.0.1:55432/dossier_test
#   stop   pg_ctl stop -m fast and delete the cluster directory.
#   down   pg_ctl stop -m fast, keeping the cluster (fault tests: PostgreSQL goes away mid-load);
#   up     start a cluster that is down again, same port and data; restart  pg_ctl restart -m fast.
# Idempotent: `start` on a running cluster only prints its connection string (on stdout).
set -euo pipefail

PG_MAJOR=15
PGBIN=/usr/lib/postgresql/$PG_MAJOR/bin
BASE=${DOSSIER_PG_DIR:-/tmp/dossier-pg}
DATA=$BASE/data
STATE=$BASE/state
LOG=$BASE/postgres.log
FIRST_PORT=${DOSSIER_PG_PORT:-55432}
DB=dossier_test
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENDOR=$(cd "$ROOT/.." && pwd)/shared/vendor/pgvector-0.8.6

say() { echo "postgres-test-cluster: $*" >&2; }
die() { say "error: $*"; exit 1; }

as_postgres() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  elif [ "$(id -un)" = postgres ]; then
    "$@"
  else
    sudo -u postgres -- "$@"
  fi
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Reads PORT/URL/DATA from the state file; returns 1 if there is none.
load_state() {
  [ -f "$STATE" ] || return 1
  # shellcheck disable=SC1090
  . "$STATE"
}

# pg_ctl status alone is fooled by a killed postmaster left as a zombie, so also ask the port.
running() {
  [ -f "$DATA/PG_VERSION" ] && [ -n "${PORT:-}" ] &&
    as_postgres "$PGBIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1 &&
    "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PORT"
}

install_packages() {
  local missing=()
  [ -x "$PGBIN/postgres" ] || missing+=("postgresql-$PG_MAJOR")
  [ -f "/usr/include/postgresql/$PG_MAJOR/server/postgres.h" ] || missing+=("postgresql-server-dev-$PG_MAJOR")
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]} with apt-get"
  # Do not let postgresql-common create (and start) the default cluster "main" on 5432.
  as_root mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' | as_root tee /etc/postgresql-common/createcluster.d/dossier-no-main.conf >/dev/null
  as_root apt-get update -qq || die "apt-get update failed"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null || die "apt-get install ${missing[*]} failed"
  [ -x "$PGBIN/postgres" ] || die "$PGBIN/postgres missing after installing postgresql-$PG_MAJOR"
}

install_pgvector() {
  local ext
  ext="$("$PGBIN/pg_config" --sharedir)/extension"
  [ -f "$ext/vector.control" ] && return 0
  [ -f "$VENDOR/vector.control" ] || die "pgvector source not found at $VENDOR (../shared beside the repo?)"
  say "building pgvector from $VENDOR"
  local build
  build=$(mktemp -d /tmp/dossier-pgvector.XXXXXX)
  cp -r "$VENDOR/." "$build/"
  chmod -R u+w "$build"
  # with_llvm=no: skip the clang bitcode for JIT (not needed for tests, saves time).
  if ! make -C "$build" -s -j"$(nproc)" PG_CONFIG="$PGBIN/pg_config" with_llvm=no >"$build.log" 2>&1 ||
     ! as_root make -C "$build" -s PG_CONFIG="$PGBIN/pg_config" with_llvm=no install >>"$build.log" 2>&1; then
    tail -n 30 "$build.log" >&2
    die "pgvector build failed (full log: $build.log)"
  fi
  rm -rf "$build" "$build.log"
  [ -f "$ext/vector.control" ] || die "pgvector installed but $ext/vector.control is missing"
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() {
  local p
  for ((p = FIRST_PORT; p < FIRST_PORT + 50; p++)); do
    port_busy "$p" || { echo "$p"; return 0; }
  done
  die "no free port in $FIRST_PORT..$((FIRST_PORT + 49))"
}

cmd_start() {
  if load_state && running; then
    say "already running on port $PORT"
    echo "$URL"
    return 0
  fi
  # Stale leftovers (crashed run, reboot): stop whatever is there and start over.
  if [ -e "$BASE" ]; then
    [ -f "$DATA/PG_VERSION" ] && as_postgres "$PGBIN/pg_ctl" -D "$DATA" stop -m immediate -t 5 >/dev/null 2>&1 || true
    rm -rf "$BASE"
  fi

  install_packages
  id postgres >/dev/null 2>&1 || die "user postgres does not exist (is postgresql-$PG_MAJOR installed?)"
  install_pgvector

  local port
  port=$(pick_port)
  mkdir -p "$BASE"
  chown postgres: "$BASE"
  chmod 755 "$BASE"  # data/ itself is 0700 (initdb); state file stays readable
  as_postgres "$PGBIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$BASE/initdb.log" 2>&1 ||
    { tail -n 20 "$BASE/initdb.log" >&2; die "initdb failed"; }
  as_postgres tee -a "$DATA/postgresql.conf" >/dev/null <<EOF

# dossier test cluster: throwaway data, speed over durability
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$BASE'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
wal_level = minimal
max_wal_senders = 0
checkpoint_timeout = 1h
max_wal_size = 1GB
shared_buffers = 128MB
maintenance_work_mem = 256MB
jit = off
log_min_messages = warning
EOF
  if ! as_postgres "$PGBIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 start >/dev/null; then
    tail -n 20 "$LOG" >&2 || true
    die "pg_ctl start failed (log: $LOG)"
  fi
  local i
  for ((i = 0; i < 60; i++)); do
    "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$port" && break
    sleep 0.5
  done
  "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$port" || die "server on port $port not ready after 30 s (log: $LOG)"

  local psql=(env PGOPTIONS="-c client_min_messages=warning" "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres)
  "${psql[@]}" -d template1 -c 'CREATE EXTENSION IF NOT EXISTS vector' >/dev/null || die "CREATE EXTENSION vector in template1 failed"
  "${psql[@]}" -d postgres -c "CREATE DATABASE $DB" >/dev/null || die "CREATE DATABASE $DB failed"
  "${psql[@]}" -d "$DB" -c 'CREATE EXTENSION IF NOT EXISTS vector' >/dev/null || die "CREATE EXTENSION vector in $DB failed"

  local url="postgres://postgres@127.0.0.1:$port/$DB"
  printf 'PORT=%s\nURL=%s\nDATA=%s\n' "$port" "$url" "$DATA" >"$STATE"
  say "running on port $port (data $DATA)"
  echo "$url"
}

cmd_stop() {
  if [ ! -e "$BASE" ]; then
    say "not running"
    return 0
  fi
  load_state || true
  if [ -f "$DATA/PG_VERSION" ]; then
    as_postgres "$PGBIN/pg_ctl" -D "$DATA" stop -m fast -w -t 30 >/dev/null 2>&1 ||
      as_postgres "$PGBIN/pg_ctl" -D "$DATA" stop -m immediate -t 5 >/dev/null 2>&1 || true
  fi
  rm -rf "$BASE"
  say "stopped"
}

cmd_down() {
  load_state || die "no cluster in $BASE (run: $0 start)"
  as_postgres "$PGBIN/pg_ctl" -D "$DATA" stop -m fast -w -t 30 >/dev/null || die "pg_ctl stop failed (log: $LOG)"
  say "down (port $PORT, data kept)"
}

cmd_up() {
  load_state || die "no cluster in $BASE (run: $0 start)"
  if ! running; then
    as_postgres "$PGBIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 start >/dev/null || { tail -n 20 "$LOG" >&2 || true; die "pg_ctl start failed (log: $LOG)"; }
  fi
  say "up on port $PORT"
  echo "$URL"
}

cmd_restart() {
  load_state || die "no cluster in $BASE (run: $0 start)"
  as_postgres "$PGBIN/pg_ctl" -D "$DATA" -l "$LOG" restart -m fast -w -t 60 >/dev/null || { tail -n 20 "$LOG" >&2 || true; die "pg_ctl restart failed (log: $LOG)"; }
  say "restarted on port $PORT"
  echo "$URL"
}

cmd_env() {
  load_state && running || die "no running cluster (run: $0 start)"
  echo "$URL"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  env) cmd_env ;;
  down) cmd_down ;;
  up) cmd_up ;;
  restart) cmd_restart ;;
  *) echo "usage: $0 start|stop|env|down|up|restart" >&2; exit 2 ;;
esac
