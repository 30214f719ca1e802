#!/usr/bin/env bash
# Runs one command as systemd runs a unit's ExecStart, with that unit's restart policy, for
# cluster.sh on a machine (or in a container) where systemd is not the init:
#
#   supervise.sh <unit file> <pid file> <command>...
#
# The policy is read from the unit file (deploy/systemd/), the keys and defaults being systemd's:
#   Restart=                no | always | on-failure | on-abnormal (default no)
#   RestartSec=             the wait before a restart (default 100ms; "1", "1s", "500ms", "1min")
#   StartLimitIntervalSec=, StartLimitBurst=
#                           more than Burst starts within Interval: give up (default 10 s, 5)
# A clean end, as systemd counts it: exit status 0, or the signals HUP, INT, TERM, PIPE. on-failure
# restarts after any other end, on-abnormal after an unclean signal only, always after every end.
# The pid file holds the command's pid while it runs. SIGTERM to this supervisor is `systemctl stop`:
# SIGTERM to the command's process group, and no restart. A command killed from outside (kill -9 of
# its pid) is a failure, restarted as the unit says.
set -uo pipefail

UNIT=$1 PID_FILE=$2
shift 2

say() { echo "supervise: $(date -u +%FT%T.%3NZ) $*" >&2; }

setting() { # key, default: the unit's last value for the key
  local value
  value="$(sed -n "s/^[[:space:]]*$1=[[:space:]]*//p" "$UNIT" | tail -n 1)"
  echo "${value:-$2}"
}

milliseconds() { # a systemd time span: 5, 5s, 500ms, 1min
  awk -v span="$1" 'BEGIN {
    if (sub(/ms$/, "", span)) print int(span); else if (sub(/min$/, "", span)) print int(span * 60000);
    else { sub(/s(ec)?$/, "", span); print int(span * 1000) } }'
}

RESTART="$(setting Restart no)"
RESTART_MS="$(milliseconds "$(setting RestartSec 100ms)")"
LIMIT_INTERVAL_MS="$(milliseconds "$(setting StartLimitIntervalSec 10)")"
LIMIT_BURST="$(setting StartLimitBurst 5)"

stopping=0
child=
stop() {
  stopping=1
  if [ -n "$child" ]; then kill -TERM -- "-$child" 2>/dev/null; fi
}
trap stop TERM INT

clean_end() { # wait's status
  case "$1" in
    0 | 129 | 130 | 141 | 143) return 0 ;; # exit 0, SIGHUP, SIGINT, SIGPIPE, SIGTERM
    *) return 1 ;;
  esac
}

restarts_after() { # wait's status
  case "$RESTART" in
    always) return 0 ;;
    on-failure) ! clean_end "$1" ;;
    on-abnormal) [ "$1" -gt 128 ] && ! clean_end "$1" ;;
    *) return 1 ;;
  esac
}

describe() { # wait's status
  if [ "$1" -gt 128 ]; then echo "killed by SIG$(kill -l $(($1 - 128)))"; else echo "exited with status $1"; fi
}

starts=()
while [ "$stopping" = 0 ]; do
  now="$(date +%s%3N)"
  recent=()
  for at in "${starts[@]}"; do
    if [ $((now - at)) -lt "$LIMIT_INTERVAL_MS" ]; then recent+=("$at"); fi
  done
  starts=("${recent[@]}")
  if [ "${#starts[@]}" -ge "$LIMIT_BURST" ]; then
    say "$LIMIT_BURST starts within $((LIMIT_INTERVAL_MS / 1000)) s (StartLimitBurst, StartLimitIntervalSec): not started again"
    break
  fi
  starts+=("$now")
  # a session of its own: `kill -9 -<pid>` reaches the command and its children, not this supervisor
  setsid "$@" &
  child=$!
  echo "$child" >"$PID_FILE"
  # a stop that came between the loop's check and the start
  if [ "$stopping" = 1 ]; then kill -TERM -- "-$child" 2>/dev/null; fi
  say "started (pid $child)"
  wait "$child" 2>/dev/null
  status=$?
  # a signal to this supervisor interrupts wait: wait again for the command's own end
  while kill -0 "$child" 2>/dev/null; do
    wait "$child" 2>/dev/null
    status=$?
  done
  child=
  rm -f "$PID_FILE"
  if [ "$stopping" = 1 ]; then
    say "stopped"
    break
  fi
  if ! restarts_after "$status"; then
    say "$(describe "$status"); not restarted (Restart=$RESTART)"
    break
  fi
  say "$(describe "$status"); restarting in $RESTART_MS ms (Restart=$RESTART)"
  sleep "$(awk -v ms="$RESTART_MS" 'BEGIN { print ms / 1000 }')" &
  wait $! || true
done
