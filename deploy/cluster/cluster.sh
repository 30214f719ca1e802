#!/usr/bin/env bash
# The reference topology on one machine, as a user runs it on several (docs/scaling.md, "Running
# several replicas"): a PostgreSQL 15 primary and a streaming replica (Debian's postgresql-15), PgBouncer in
# transaction mode, Redis, three `wds serve` behind HAProxy, two `wds index` sharing chains by lease.
#
#   deploy/cluster/cluster.sh up        start everything (in the background) and wait until ready
#   deploy/cluster/cluster.sh down      stop everything this directory started
#   deploy/cluster/cluster.sh run       up, then wait; Ctrl-C stops everything
#   deploy/cluster/cluster.sh status    each process: its role (index leader / standby), pid, port, state
#   deploy/cluster/cluster.sh start|stop|kill <component>   one component: primary, replica,
#       redis, pgbouncer, haproxy, serve1..3, index1..2 (kill = kill -9: a supervised one restarts)
#
# Runs as root: it installs the Debian packages it needs when missing (postgresql-15, redis-server,
# haproxy, pgbouncer), runs PostgreSQL and PgBouncer as the `postgres` user (runuser) and gives that
# user their directories (chown). Everything but PostgreSQL runs under supervise.sh, with the restart
# policy of its unit in deploy/systemd (a killed serve is back within seconds, as under systemd).
# Settings (environment): CLUSTER_DIR (default /tmp/wds-cluster), CLUSTER_PORT (default
# 29000: primary +1, replica +2, pgbouncer +3, redis +4, HAProxy +80, stats +90, serve +81..83),
# and the chains to index as for `wds` (WDS_RPC_<CHAIN>, WDS_START_BLOCK_<CHAIN>). Loopback only.
# CLUSTER_SERVE<n>_DATABASE_URL, _DATABASE_DIRECT_URL, _DATABASE_READ_URL: another address for one
# replica's connections (the fault tests route serve3 through a proxy that can stall).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DIR="${CLUSTER_DIR:-/tmp/wds-cluster}"
# below Linux's ephemeral ports (32768-60999), which an outgoing connection may hold at any time
BASE="${CLUSTER_PORT:-29000}"
if ! [[ "$BASE" =~ ^[0-9]+$ ]] || [ "$BASE" -lt 1024 ] || [ "$BASE" -gt 65445 ]; then
  echo "cluster: CLUSTER_PORT must be a port number from 1024 to 65445 (the cluster uses it up to +90), got \"$BASE\"" >&2
  exit 2
fi
HOST=127.0.0.1
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
PRIMARY_PORT=$((BASE + 1))
REPLICA_PORT=$((BASE + 2))
PGBOUNCER_PORT=$((BASE + 3))
REDIS_PORT=$((BASE + 4))
HAPROXY_PORT=$((BASE + 80))
STATS_PORT=$((BASE + 90))
DB_PASSWORD=wds
REPLICATION_PASSWORD=replication
UNITS="$ROOT/deploy/systemd"
ROOT_NEEDED="cluster.sh must run as root: it installs the Debian packages it needs when missing (postgresql-15, redis-server, haproxy, pgbouncer), runs PostgreSQL and PgBouncer as the postgres user (runuser) and gives that user their directories (chown)."

serve_port() { echo $((BASE + 80 + $1)); }

# PostgreSQL refuses to run as root: its commands run as the `postgres` user.
as_postgres() { runuser -u postgres -- "$@"; }

log() { echo "cluster: $*" >&2; }

ensure_packages() {
  "$ROOT/scripts/ensure-debian-packages.sh" "$PG_BIN/postgres:postgresql-15" redis-server:redis-server \
    haproxy:haproxy pgbouncer:pgbouncer
}

wait_for() { # description, seconds, command...
  local what=$1 seconds=$2
  shift 2
  for _ in $(seq 1 $((seconds * 10))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  log "timed out waiting for $what"
  return 1
}

alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
# a process's pid (while it runs), and its supervisor's (while it supervises: the process may be restarting)
pid_of() { cat "$DIR/run/$1.pid" 2>/dev/null || true; }
supervisor_of() { cat "$DIR/run/$1.supervise.pid" 2>/dev/null || true; }
running() { alive "$(pid_of "$1")"; }
supervised() { alive "$(supervisor_of "$1")"; }

# --- PostgreSQL -----------------------------------------------------------------------------

init_primary() {
  [ -f "$DIR/primary/PG_VERSION" ] && return 0
  log "initialising the primary in $DIR/primary"
  install -d -o postgres -g postgres -m 700 "$DIR/primary"
  echo "$DB_PASSWORD" >"$DIR/run/pwfile" && chown postgres "$DIR/run/pwfile"
  as_postgres "$PG_BIN/initdb" -D "$DIR/primary" -U postgres --pwfile="$DIR/run/pwfile" -A scram-sha-256 >/dev/null
  cp "$HERE/postgresql-primary.conf" "$DIR/primary/wds.conf"
  cat >>"$DIR/primary/postgresql.conf" <<EOF
include 'wds.conf'
listen_addresses = '$HOST'
port = $PRIMARY_PORT
unix_socket_directories = '$DIR/run'
EOF
  cat >"$DIR/primary/pg_hba.conf" <<EOF
local   all          postgres                  scram-sha-256
host    all          all          $HOST/32     scram-sha-256
host    replication  replicator   $HOST/32     scram-sha-256
EOF
  start_primary
  PGPASSWORD=$DB_PASSWORD "$PG_BIN/psql" -q -h $HOST -p $PRIMARY_PORT -U postgres -d postgres -v ON_ERROR_STOP=1 <<EOF
CREATE ROLE wds LOGIN PASSWORD '$DB_PASSWORD';
CREATE DATABASE wds OWNER wds;
CREATE ROLE replicator REPLICATION LOGIN PASSWORD '$REPLICATION_PASSWORD';
EOF
}

start_primary() {
  as_postgres "$PG_BIN/pg_ctl" -D "$DIR/primary" -l "$DIR/logs/primary.log" -w -t 60 start >/dev/null
}

init_replica() {
  [ -f "$DIR/replica/PG_VERSION" ] && return 0
  log "cloning the replica from the primary (pg_basebackup)"
  install -d -o postgres -g postgres -m 700 "$DIR/replica"
  # -R writes standby.signal and primary_conninfo; -C -S: a replication slot keeps the WAL it needs
  as_postgres env PGPASSWORD=$REPLICATION_PASSWORD "$PG_BIN/pg_basebackup" -h $HOST -p $PRIMARY_PORT -U replicator \
    -D "$DIR/replica" -R -X stream -c fast -C -S wds_replica
  sed -i "s/^port = .*/port = $REPLICA_PORT/" "$DIR/replica/postgresql.conf"
}

start_replica() {
  as_postgres "$PG_BIN/pg_ctl" -D "$DIR/replica" -l "$DIR/logs/replica.log" -w -t 60 start >/dev/null
}

stop_pg() { # primary|replica, mode
  [ -f "$DIR/$1/postmaster.pid" ] || return 0
  as_postgres "$PG_BIN/pg_ctl" -D "$DIR/$1" -m "${2:-fast}" -w -t 60 stop >/dev/null || true
}

# --- the rest ---------------------------------------------------------------------------------

# the unit (deploy/systemd) whose restart policy a component runs under
unit_of() {
  case "$1" in
    serve*) echo "$UNITS/wds-serve@.service" ;;
    index*) echo "$UNITS/wds-index@.service" ;;
    redis) echo "$UNITS/redis-server.service.d/wds.conf" ;;
    *) echo "$UNITS/$1.service.d/wds.conf" ;;
  esac
}

spawn() { # name, command... (supervised, in the background, logs in logs/<name>.log, pid in run/<name>.pid)
  local name=$1
  shift
  if supervised "$name"; then return 0; fi
  setsid "$HERE/supervise.sh" "$(unit_of "$name")" "$DIR/run/$name.pid" "$@" >>"$DIR/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/run/$name.supervise.pid"
}

start_redis() {
  spawn redis redis-server --port "$REDIS_PORT" --bind $HOST --save '' --appendonly no
  wait_for redis 10 redis-cli -p "$REDIS_PORT" ping
}

start_pgbouncer() {
  local secret
  secret="$(PGPASSWORD=$DB_PASSWORD "$PG_BIN/psql" -At -h $HOST -p $PRIMARY_PORT -U postgres -d postgres \
    -c "SELECT rolpassword FROM pg_authid WHERE rolname = 'wds'")"
  echo "\"wds\" \"$secret\"" >"$DIR/run/pgbouncer-users.txt"
  sed -e "s|@PRIMARY_HOST@|$HOST|; s|@PRIMARY_PORT@|$PRIMARY_PORT|; s|@LISTEN_HOST@|$HOST|; s|@LISTEN_PORT@|$PGBOUNCER_PORT|" \
    -e "s|@AUTH_FILE@|$DIR/run/pgbouncer-users.txt|; s|@LOG_FILE@|$DIR/logs/pgbouncer.log|; s|@PID_FILE@|$DIR/run/pgbouncer-self.pid|" \
    -e "s|@STATEMENT_TIMEOUT_MS@|${WDS_STATEMENT_TIMEOUT_MS:-5000}|" \
    "$HERE/pgbouncer.ini.template" >"$DIR/run/pgbouncer.ini"
  chown postgres "$DIR/run/pgbouncer.ini" "$DIR/run/pgbouncer-users.txt"
  touch "$DIR/logs/pgbouncer.log" && chown postgres "$DIR/logs/pgbouncer.log"
  # PgBouncer, like PostgreSQL, will not run as root
  spawn pgbouncer runuser -u postgres -- pgbouncer "$DIR/run/pgbouncer.ini"
  wait_for pgbouncer 10 "$PG_BIN/pg_isready" -h $HOST -p "$PGBOUNCER_PORT"
}

url() { echo "postgres://wds:$DB_PASSWORD@$HOST:$1/wds"; }

wds_env() {
  # one JWT secret for all replicas: a portal session made on one is valid on the others
  [ -f "$DIR/run/jwt-secret" ] || head -c 48 /dev/urandom | base64 | tr -d '\n/+=' >"$DIR/run/jwt-secret"
  echo "WDS_JWT_SECRET=$(cat "$DIR/run/jwt-secret")" "REDIS_URL=redis://$HOST:$REDIS_PORT" "WDS_MARKET_SYNC_AT=off" \
    "LOG_LEVEL=${LOG_LEVEL:-info}" "HOST=$HOST"
}

start_serve() { # n
  local n=$1 database direct read
  # reads on the replica; queries through PgBouncer; LISTEN and migrations straight to the primary
  database="CLUSTER_SERVE${n}_DATABASE_URL" direct="CLUSTER_SERVE${n}_DATABASE_DIRECT_URL"
  read="CLUSTER_SERVE${n}_DATABASE_READ_URL"
  # shellcheck disable=SC2046
  spawn "serve$n" env $(wds_env) PORT="$(serve_port "$n")" WDS_DATA_DIR="$DIR/serve$n" \
    DATABASE_URL="${!database:-$(url $PGBOUNCER_PORT)}" DATABASE_DIRECT_URL="${!direct:-$(url $PRIMARY_PORT)}" \
    DATABASE_READ_URL="${!read:-$(url $REPLICA_PORT)}" node "$ROOT/service/bin/wds.js" serve
  wait_for "serve$n" 60 curl -fsS "http://$HOST:$(serve_port "$n")/ready"
}

start_index() { # n
  local n=$1
  if ! env | grep -qE '^WDS_(RPC|EXPLORER)_'; then
    log "index$n not started: no chain has a source (set WDS_RPC_<CHAIN>)"
    return 0
  fi
  # indexers hold their chain's lease (a session advisory lock): a direct connection, never PgBouncer
  # shellcheck disable=SC2046
  spawn "index$n" env $(wds_env) WDS_DATA_DIR="$DIR/index$n" DATABASE_URL="$(url $PRIMARY_PORT)" \
    node "$ROOT/service/bin/wds.js" index
}

start_haproxy() {
  spawn haproxy env WDS_HAPROXY_BIND="$HOST:$HAPROXY_PORT" WDS_HAPROXY_STATS_BIND="$HOST:$STATS_PORT" \
    WDS_SERVE_1="$HOST:$(serve_port 1)" WDS_SERVE_2="$HOST:$(serve_port 2)" WDS_SERVE_3="$HOST:$(serve_port 3)" \
    haproxy -W -db -f "$HERE/haproxy.cfg"
  # its first health checks may wait on a busy machine (a CI run beside other work timed out at 10 s)
  wait_for haproxy 30 curl -fsS "http://$HOST:$HAPROXY_PORT/ready"
}

stop_process() { # name: as `systemctl stop`, its supervisor stops it (SIGTERM) and does not restart it
  local supervisor pid
  supervisor="$(supervisor_of "$1")" pid="$(pid_of "$1")"
  if alive "$supervisor"; then kill -TERM "$supervisor"; fi
  for _ in $(seq 1 150); do alive "$supervisor" || alive "$pid" || break; sleep 0.1; done
  # setsid made each a process group leader: the signal reaches the children (runuser's pgbouncer) too
  for group in "$supervisor" "$pid"; do [ -z "$group" ] || kill -KILL -- "-$group" 2>/dev/null || true; done
  rm -f "$DIR/run/$1.pid" "$DIR/run/$1.supervise.pid"
}

kill_process() { # name: kill -9 of the process (and its children), which its supervisor restarts
  local pid
  pid="$(pid_of "$1")"
  alive "$pid" || { log "$1 is not running" && return 1; }
  kill -KILL -- "-$pid"
  for _ in $(seq 1 50); do alive "$pid" || return 0; sleep 0.1; done
}

start_component() {
  case "$1" in
    primary) start_primary ;;
    replica) start_replica ;;
    redis) start_redis ;;
    pgbouncer) start_pgbouncer ;;
    haproxy) start_haproxy ;;
    serve[1-3]) start_serve "${1#serve}" ;;
    index[1-2]) start_index "${1#index}" ;;
    *) log "unknown component $1" && return 2 ;;
  esac
}

stop_component() { # name, TERM|KILL
  case "$1:${2:-TERM}" in
    primary:KILL | replica:KILL) stop_pg "$1" immediate ;;
    primary:* | replica:*) stop_pg "$1" fast ;;
    *:KILL) kill_process "$1" ;;
    *) stop_process "$1" ;;
  esac
}

up() {
  check_ports
  ensure_packages
  mkdir -p "$DIR/run" "$DIR/logs"
  chmod 755 "$DIR" "$DIR/run" "$DIR/logs"
  chown postgres "$DIR/logs" "$DIR/run"
  init_primary
  [ -f "$DIR/primary/postmaster.pid" ] || start_primary
  init_replica
  [ -f "$DIR/replica/postmaster.pid" ] || start_replica
  start_redis
  start_pgbouncer
  # the first serve applies the migrations (under their lock) before the others start
  start_serve 1
  start_serve 2 &
  local second=$!
  start_serve 3 &
  local third=$!
  wait "$second" "$third"
  start_index 1
  start_index 2
  start_haproxy
  log "up: http://$HOST:$HAPROXY_PORT (HAProxy), stats http://$HOST:$STATS_PORT/stats, logs in $DIR/logs"
}

down() {
  for name in haproxy index1 index2 serve1 serve2 serve3 pgbouncer redis; do stop_process "$name"; done
  stop_pg replica
  stop_pg primary
  log "down (data kept in $DIR; remove it for a fresh start)"
}

# shellcheck source=deploy/cluster/status.sh
. "$HERE/status.sh"

case "${1:-}" in
  up | down | run | start | stop | kill) [ "$(id -u)" = 0 ] || { echo "$ROOT_NEEDED" >&2 && exit 1; } ;;
esac
case "${1:-}" in
  up) up ;;
  down) down ;;
  run)
    trap down EXIT INT TERM
    up
    log "running; Ctrl-C stops everything"
    while sleep 3600; do :; done
    ;;
  status) status ;;
  start) start_component "$2" ;;
  stop) stop_component "$2" TERM ;;
  kill) stop_component "$2" KILL ;;
  *)
    # the comment at the top of this file
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit 2
    ;;
esac
