#!/usr/bin/env bash
# Starts the command given (an engine: `node bin/engine.js`, `npm start`) in a process group of
# its own, reads its output until it says where it listens, asks that address for /health once,
# then kills the group. What hyperfine times of it is the start to the first /health answer.
# Exits 1 when the engine ends before it listens or /health does not answer 200.
#   bash bench/startup/first-health.sh <command> [args...]
set -uo pipefail
fifo=$(mktemp -u)
mkfifo "$fifo"
setsid "$@" >"$fifo" 2>/dev/null &
engine=$!
url=''
while IFS= read -r line; do
  case $line in
    *'listening on http://'*)
      url=${line##*listening on }
      break
      ;;
  esac
done <"$fifo"
status=1
if [ -n "$url" ] && curl -sf -o /dev/null "${url/localhost/127.0.0.1}/health"; then status=0; fi
kill -KILL -- "-$engine" 2>/dev/null
wait "$engine" 2>/dev/null
rm -f "$fifo"
exit $status
