#!/usr/bin/env bash
# W1-W4 and W6 in kiln and in its peers, in one run, as one Markdown table (benches/peers/table.py)
# written to $RESULTS/table.md with the run's raw JSON lines beside it in $RESULTS/run.jsonl
# ($RESULTS: benches/peers/results unless set). Needs the environments of setup.sh
# ($KILN_PEERS_DIR, else ~/.cache/kiln/peers); a peer that is missing or fails makes the
# whole command fail and leaves both files as they were. RUNS sets the timed runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
PEERS="${KILN_PEERS_DIR:-$HOME/.cache/kiln/peers}"
RUNS="${RUNS:-10}"
export RUNS
for env in mxnet modern; do
    if [ ! -x "$PEERS/$env/bin/python" ]; then
        echo "compare: no $env environment in $PEERS (run benches/peers/setup.sh)" >&2
        exit 1
    fi
done
cargo build --release --quiet
# The run's raw log and its table, both written under temporary names beside their final
# ones and renamed once the whole run succeeded: a failed run leaves the last good pair.
RESULTS="${RESULTS:-benches/peers/results}"
mkdir -p "$RESULTS"
log="$RESULTS/run.jsonl"
table="$RESULTS/table.md"
out="$(mktemp "$log.XXXXXX")"
md="$(mktemp "$table.XXXXXX")"
trap 'rm -f "$out" "$out.err" "$md"' EXIT
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
python3 -c 'import json, sys
keys = ["cores", "cpu", "date", "commit", "runs", "log"]
run = dict(zip(keys, sys.argv[1:]))
run["cores"], run["runs"] = int(run["cores"]), int(run["runs"])
print(json.dumps({"run": run}))' \
    "$(nproc)" "$cpu" "$(date -u +%Y-%m-%dT%H:%MZ)" "$(git describe --always --dirty)" \
    "$RUNS" "$log" > "$out"
kiln() { target/release/kiln bench "$@" --json --runs "$RUNS" >> "$out"; }
# A peer's warnings stay out of the log; its errors are shown when it fails.
peer() {
    if ! "$PEERS/$1/bin/python" "benches/peers/$2" "$3" >> "$out" 2> "$out.err"; then
        cat "$out.err" >&2
        echo "compare: the $2 peers of $3 failed" >&2
        exit 1
    fi
}
# Each workload in kiln, then right away in its peers: this VM's speed drifts over
# minutes, and kiln's runs all first would meet a slow stretch the peers do not.
kiln elementwise
peer modern modern.py w1
kiln mlp-train
peer modern modern.py w2
kiln lenet-train
peer mxnet mxnet_peer.py w3
kiln resnet18-infer --batch 1
kiln resnet18-infer --batch 8
peer modern modern.py w4
peer mxnet mxnet_peer.py w4
kiln resnet18-train
peer modern modern.py w6
peer mxnet mxnet_peer.py w6
python3 benches/peers/table.py "$out" > "$md"
mv "$out" "$log"
mv "$md" "$table"
cat "$table"
echo "compare: wrote $table and its raw log $log" >&2
