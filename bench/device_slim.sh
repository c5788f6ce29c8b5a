#!/usr/bin/env bash
# The device tool sends tracked files and untracked ones git does not ignore, 64 MiB at most;
# bench/results-* (about 150 MB) is over it. `bench/device_slim.sh on` takes the results
# folders of earlier sessions out of the index and ignores them (.git/info/exclude), so they
# stay on disk but do not travel; `off` puts the index back as HEAD has it and drops the
# exclusion. Run `off` right after the device call: never commit while it is on.
#   bench/device_slim.sh on [KEEP...]   (KEEP: results folders that travel, e.g. the session's)
#   bench/device_slim.sh off
set -euo pipefail
cd "$(dirname "$0")/.."
exclude=.git/info/exclude
begin='# device_slim: begin' end='# device_slim: end'
case "${1:-}" in
on)
  shift
  keep=" $* "
  mkdir -p .git/info
  echo "$begin" >> "$exclude"
  for d in bench/results-*/; do
    d=${d%/}
    case "$keep" in *" $d "*) continue ;; esac
    git rm -r -q --cached "$d" 2>/dev/null || true
    echo "/$d/" >> "$exclude"
  done
  echo "$end" >> "$exclude"
  ;;
off)
  git reset -q
  [ -f "$exclude" ] && sed -i "/^$begin\$/,/^$end\$/d" "$exclude"
  ;;
*)
  sed -n '2,8p' "$0" >&2
  exit 2
  ;;
esac
