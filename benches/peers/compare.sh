#!/usr/bin/env bash
# W1-W4 in kiln and in its peers, in one run, as one table (benches/peers/table.py).
# Needs the environments of setup.sh ($KILN_PEERS_DIR, else ~/.cache/kiln/peers); a peer
# that is missing or fails makes the whole command fail. RUNS sets the timed runs.
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
out="$(mktemp)"
trap 'rm -f "$out" "$out.err"' EXIT
kiln() { target/release/kiln bench "$@" --json --runs "$RUNS" >> "$out"; }
# A peer's warnings stay out of the table; its errors are shown when it fails.
peer() {
    if ! "$PEERS/$1/bin/python" "benches/peers/$2" >> "$out" 2> "$out.err"; then
        cat "$out.err" >&2
        echo "compare: the $2 peers failed" >&2
        exit 1
    fi
}
kiln elementwise
kiln mlp-train
kiln lenet-train
kiln resnet18-infer --batch 1
kiln resnet18-infer --batch 8
peer modern modern.py
peer mxnet mxnet_peer.py
echo "$(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ); kiln $(git rev-parse --short HEAD)"
python3 benches/peers/table.py "$out"
