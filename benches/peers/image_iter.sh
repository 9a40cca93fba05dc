#!/usr/bin/env bash
# ImageRecordIter throughput and peak memory, kiln against MXNet 1.9.1 in one run, on the
# same file of JPEGs (made once by image_iter.py in $PEERS/data): decoding, resize 256,
# random 224 crop, mirror and normalization on 2 threads, 3 epochs each; then decoding
# alone (a 32×32 centre crop, no resize, 1 thread), which compares kiln's JPEG decoder
# with the libjpeg-turbo inside MXNet. Needs setup.sh's mxnet environment and
# /usr/bin/time. N sets the images (default 400).
set -euo pipefail
cd "$(dirname "$0")/../.."
PEERS="${KILN_PEERS_DIR:-$HOME/.cache/kiln/peers}"
N="${N:-400}"
py="$PEERS/mxnet/bin/python"
rec="$PEERS/data/jpeg-$N.rec"
mkdir -p "$PEERS/data"
[ -s "$rec" ] || "$py" benches/peers/image_iter.py make "$rec" "$N"
cargo build --release --quiet
echo "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), $(git describe --always --dirty)"
peak() { /usr/bin/time -f "  peak RSS %M KB" "$@"; }
peak target/release/kiln data iter "path_imgrec=$rec" "data_shape=(3,224,224)" batch_size=32 \
    resize=256 rand_crop=True rand_mirror=True mean_r=123.68 mean_g=116.28 mean_b=103.53 \
    std_r=58.395 std_g=57.12 std_b=57.375 preprocess_threads=2 prefetch_buffer=4 --epochs 3 2>&1 |
    grep -E "^epoch|peak" | sed 's/^epoch/kiln epoch/'
peak "$py" benches/peers/image_iter.py time "$rec" 3 2>&1 | grep -E "^mxnet|peak"
echo "decode-bound: data_shape (3,32,32), no resize, 1 thread"
target/release/kiln data iter "path_imgrec=$rec" "data_shape=(3,32,32)" batch_size=32 \
    preprocess_threads=1 prefetch_buffer=4 --epochs 3 2>&1 | grep -E "^epoch" | sed 's/^epoch/kiln epoch/'
"$py" benches/peers/image_iter.py time "$rec" 3 "data_shape=(3,32,32)" resize=-1 rand_crop=False \
    rand_mirror=False preprocess_threads=1 2>&1 | grep -E "^mxnet"
