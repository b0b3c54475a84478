#!/usr/bin/env bash
# pg.sh: a throwaway PostgreSQL server for hermesstate's tests, used by
# .ci/run and by `make pg-up` / `make pg-down`.
#
#   scripts/pg.sh install          install Debian's postgresql when no initdb
#                                  is found under /usr/lib/postgresql/*/bin
#   scripts/pg.sh up DIR [PORT]    initdb DIR/data (UTF-8, C.UTF-8, trust) if
#                                  it is not there yet and start the server
#                                  on 127.0.0.1:PORT (socket in DIR); PORT
#                                  "auto" or empty: the first free one from
#                                  55432. Prints the export line.
#   scripts/pg.sh down DIR         stop the server of DIR and remove DIR
#   scripts/pg.sh env DIR          print the export line of DIR's server
#
# Run as root, the server runs as the postgres user (initdb refuses root);
# otherwise as the calling user. The settings are for tests only: fsync,
# synchronous_commit and full_page_writes off (a crash may lose the
# cluster, which is thrown away anyway).
set -euo pipefail

die() { echo "pg.sh: $*" >&2; exit 1; }

# pgbin prints the bin directory of the newest installed PostgreSQL.
pgbin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$d" ] && [ -x "$d/initdb" ] || return 1
  printf '%s\n' "$d"
}

# as_owner runs its arguments as the server's owner.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# port_free reports whether nothing listens on 127.0.0.1:$1.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

dsn() { printf 'postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable' "$1"; }

cmd_install() {
  if pgbin >/dev/null; then return 0; fi
  [ "$(id -u)" = 0 ] || die "no PostgreSQL under /usr/lib/postgresql/*/bin; install Debian's postgresql package"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql postgresql-contrib >/dev/null
  pgbin >/dev/null || die "postgresql installed but no initdb under /usr/lib/postgresql/*/bin"
}

cmd_up() {
  local dir=${1:?usage: pg.sh up DIR [PORT]} port=${2:-auto} bin
  bin=$(pgbin) || die "no PostgreSQL under /usr/lib/postgresql/*/bin (scripts/pg.sh install, as root)"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
  chmod 700 "$dir"
  as_owner test -w "$dir" || die "the server's user cannot write $dir (a parent directory is closed to it?)"
  if [ -f "$dir/port" ] && as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
    cmd_env "$dir"; return 0 # already running
  fi
  if [ "$port" = auto ]; then
    port=55432
    while ! port_free "$port"; do port=$((port + 1)); [ "$port" -lt 55532 ] || die "no free port in 55432-55531"; done
  elif ! port_free "$port"; then
    die "127.0.0.1:$port is taken"
  fi
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 -N >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  fi
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null || { tail -n 20 "$dir/server.log" >&2; die "the server did not start"; }
  printf '%s\n' "$port" >"$dir/port"
  cmd_env "$dir"
}

cmd_down() {
  local dir=${1:?usage: pg.sh down DIR} bin
  [ -d "$dir" ] || return 0
  if [ -f "$dir/data/PG_VERSION" ] && bin=$(pgbin); then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

cmd_env() {
  local dir=${1:?usage: pg.sh env DIR}
  [ -f "$dir/port" ] || die "no server in $dir (scripts/pg.sh up $dir)"
  printf 'export HERMESSTATE_TEST_PG=%s\n' "'$(dsn "$(cat "$dir/port")")'"
}

case "${1:-}" in
  install) shift; cmd_install "$@" ;;
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down "$@" ;;
  env) shift; cmd_env "$@" ;;
  *) die "usage: pg.sh install | up DIR [PORT] | down DIR | env DIR" ;;
esac
