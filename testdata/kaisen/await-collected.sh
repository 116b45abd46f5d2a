#!/bin/sh
# await-collected.sh REPO N: wait (at most 60 s) until the kaisen run in
# REPO has collected task N, as its ledger records it. A worker that must
# act only after a sibling's result is in (a test that orders two
# parallel tasks) calls it.
set -eu
ledger="$1/.jj/specstack/jj-kaisen/run.toml"
i=0
while [ $i -lt 600 ]; do
	if [ -f "$ledger" ] && awk -v n="$2" '
		/^ *kind = "collected"$/ { c = 1; next }
		c && $0 ~ "^ *task = " n "$" { found = 1 }
		{ c = 0 }
		END { exit !found }' "$ledger"; then
		exit 0
	fi
	sleep 0.1
	i=$((i + 1))
done
echo "await-collected: task $2 was not collected in 60 s" >&2
exit 1
