#!/bin/sh
# Test worker: copies the last line of its brief (the task text) into
# out-N.txt, so a script can check the text arrived intact, as data.
set -eu
tail -n 1 "$SPECSTACK_BRIEF" > "out-$SPECSTACK_TASK.txt"
echo 'Status: DONE' > "$SPECSTACK_REPORT"
