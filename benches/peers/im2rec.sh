#!/usr/bin/env bash
# Packing speed, kiln im2rec against MXNet 1.9.1's tools/im2rec.py in one run, on the same
# list of N JPEGs (default 2000, 240-400 pixels a side, made once by image_iter.py's
# `folder` mode in $PEERS/data): re-encoded (decode, --resize 256, JPEG quality 95) and
# passed through, both with --num-thread 2. Prints images/s of each. Needs setup.sh's mxnet
# environment.
set -euo pipefail
cd "$(dirname "$0")/../.."
PEERS="${KILN_PEERS_DIR:-$HOME/.cache/kiln/peers}"
N="${N:-2000}"
py="$PEERS/mxnet/bin/python"
root="$PEERS/data/jpeg-folder-$N"
[ -d "$root" ] || "$py" benches/peers/image_iter.py folder "$root" "$N"
im2rec="$("$py" -c 'import mxnet, os; print(os.path.join(os.path.dirname(mxnet.__file__), "tools", "im2rec.py"))' 2>/dev/null)"
cargo build --release --quiet
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), $(git describe --always --dirty)"
target/release/kiln im2rec "$work/list" "$root" --list --recursive 2>/dev/null >/dev/null
for mode in "--resize 256" "--pass-through"; do
    for tool in kiln mxnet; do
        rm -f "$work"/list.rec "$work"/list.idx
        start=$(date +%s.%N)
        if [ $tool = kiln ]; then
            target/release/kiln im2rec "$work/list" "$root" $mode --num-thread 2 2>/dev/null
        else
            "$py" "$im2rec" "$work/list" "$root" $mode --num-thread 2 >/dev/null 2>&1
        fi
        end=$(date +%s.%N)
        python3 -c "import sys; n, t = int(sys.argv[1]), float(sys.argv[3]) - float(sys.argv[2]); print('%-5s %-15s %6.0f images/s (%.2f s, %d bytes)' % (sys.argv[4], sys.argv[5], n / t, t, int(sys.argv[6])))" \
            "$N" "$start" "$end" "$tool" "$mode" "$(stat -c %s "$work/list.rec")"
    done
done
