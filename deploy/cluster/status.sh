# shellcheck shell=bash
# cluster.sh's look at its processes (sourced by it): the ports `up` needs, and `status`.

# every component's ports (a line each: component port)
component_ports() {
  echo "primary $PRIMARY_PORT"
  echo "replica $REPLICA_PORT"
  echo "pgbouncer $PGBOUNCER_PORT"
  echo "redis $REDIS_PORT"
  echo "haproxy $HAPROXY_PORT"
  echo "haproxy $STATS_PORT"
  for n in 1 2 3; do echo "serve$n $(serve_port "$n")"; done
}

component_running() {
  case "$1" in
    primary | replica) [ -f "$DIR/$1/postmaster.pid" ] && alive "$(head -n 1 "$DIR/$1/postmaster.pid")" ;;
    *) supervised "$1" ;;
  esac
}

# Before `up`: every port of a component that is not running yet is free, or `up` stops here naming it
# (any TCP socket on it but one in TIME-WAIT: an outgoing connection's holds it as much as a listener).
check_ports() {
  local taken=0 name port holder range ephemeral=()
  range="$(cat /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo '32768 60999')"
  while read -r name port; do
    if [ "$port" -ge "${range%%[[:space:]]*}" ] && [ "$port" -le "${range##*[[:space:]]}" ]; then ephemeral+=("$port"); fi
    component_running "$name" && continue
    holder="$(ss -Htanp exclude time-wait "( sport = :$port )" | head -n 1 | tr -s ' ')"
    if [ -n "$holder" ]; then
      log "port $port ($name) is taken: $holder"
      taken=1
    fi
  done < <(component_ports)
  if [ "${#ephemeral[@]}" -gt 0 ]; then
    log "warning: ports ${ephemeral[*]} are in the kernel's ephemeral range (${range//[[:space:]]/-}), where an outgoing connection may hold one at any time: choose a CLUSTER_PORT below it"
  fi
  if [ "$taken" = 1 ]; then
    log "not started: free the ports above, or choose another CLUSTER_PORT (now $BASE)"
    return 1
  fi
}

psql_at() { # port, query: one line per row, fields separated by a space; nothing when it does not answer
  PGPASSWORD=$DB_PASSWORD PGCONNECT_TIMEOUT=2 "$PG_BIN/psql" -XAt -F ' ' -h $HOST -p "$1" -U postgres -d postgres \
    -c "$2" 2>/dev/null || true
}

# the replica as its primary sees it: "replay lag <bytes> bytes, <seconds> s (<state>)", and whether paused
replica_state() {
  local lag paused
  lag="$(psql_at "$PRIMARY_PORT" "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint || ' bytes, '
      || coalesce(round(extract(epoch FROM replay_lag)::numeric, 1), 0) || ' s (' || state || ')' FROM pg_stat_replication")"
  paused="$(psql_at "$REPLICA_PORT" "SELECT pg_is_wal_replay_paused()")"
  echo "replay lag ${lag:-unknown (the primary does not answer or sees no replica)}$([ "$paused" = t ] && echo ', replay paused')"
}

# the chains an index process leads: its leases in pg_stat_activity (service/src/store/leases.ts)
chains_led_by() { # pid
  psql_at "$PRIMARY_PORT" "SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'wds-lease index:%'" |
    awk -v holder="$1@$(hostname)" '$3 == holder { sub(/^index:/, "", $2); print $2 }' | paste -sd, -
}

haproxy_state() { # server name
  curl -fsS "http://$HOST:$STATS_PORT/stats;csv" 2>/dev/null | awk -F, -v server="$1" '$1 == "wds_serve" && $2 == server { print $18 }'
}

status_line() { # component, role, pid, port, state
  printf '%-10s %-14s %-8s %-6s %s\n' "$@"
}

status() {
  local name pid state chains
  status_line COMPONENT ROLE PID PORT STATE
  for name in primary replica; do
    if component_running "$name"; then
      pid="$(head -n 1 "$DIR/$name/postmaster.pid")" state=running
      [ "$name" = replica ] && state="running, $(replica_state)"
    else
      pid=- state=stopped
    fi
    status_line "$name" "$name" "$pid" "$(component_ports | awk -v c="$name" '$1 == c { print $2; exit }')" "$state"
  done
  for name in redis pgbouncer haproxy serve1 serve2 serve3 index1 index2; do
    local role=$name port
    port="$(component_ports | awk -v c="$name" '$1 == c { print $2; exit }')"
    pid="$(pid_of "$name")"
    if running "$name"; then state=running; elif supervised "$name"; then state=restarting pid=-; else state=stopped pid=-; fi
    case "$name" in
      haproxy) state="$state, stats on $STATS_PORT" ;;
      serve*) role=serve && [ "$state" = running ] && state="running, HAProxy $(haproxy_state "$name")" ;;
      index*)
        role="index standby" port=-
        if [ "$state" = running ]; then
          chains="$(chains_led_by "$pid")"
          [ -z "$chains" ] || { role="index leader" && state="running, leads $chains"; }
        fi
        ;;
    esac
    status_line "$name" "$role" "${pid:--}" "$port" "$state"
  done
}
