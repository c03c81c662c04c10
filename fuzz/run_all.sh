#!/usr/bin/env bash
# The maintainers' long fuzzing campaign: every target of tests/fuzz/targets.py in turn under atheris,
# niced, each for SECONDS (default 300) or RUNS inputs, whichever comes first. Corpora grow in
# fuzz/corpus/TARGET (git-ignored); failing inputs are written to fuzz/findings/TARGET-crash-*; the last
# lines of each log (inputs run, coverage) go into docs/errors.md by hand.
# Usage: fuzz/run_all.sh [SECONDS] [RUNS] [TARGET ...]
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
runs=${2:-1000000}
shift 2 2>/dev/null || shift $#
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(python fuzz/campaign.py --list)
fi
mkdir -p fuzz/corpus fuzz/findings fuzz/logs
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t"
  cp -n fuzz/seeds/"$t"/* "fuzz/corpus/$t/" 2>/dev/null || true
  nice -n 19 python fuzz/campaign.py "$t" -runs="$runs" -max_total_time="$seconds" -max_len=2048 -timeout=30 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="fuzz/findings/$t-" "fuzz/corpus/$t" \
    >"fuzz/logs/$t.log" 2>&1
  echo "$t: exit $? $(grep -E '^Done|stat::number_of_executed_units' "fuzz/logs/$t.log" | tr '\n' ' ')"
done
