#!/usr/bin/env bash
# The GPU check, in two halves, because the GPU machine has CUDA but no Rust toolchain:
#
#   scripts/gpu-check.sh build   here: the kiln CLI (no LLVM, no MPI: nothing to install
#                                there) and kiln-cuda's test binaries for the CUDA API
#                                version $CUDA (12 or 13; 13 by default, the libraries
#                                the lent GPU machines have, while builds for this
#                                machine default to 12), stripped, into target/gpu-check/
#                                — the folder to carry.
#   scripts/gpu-check.sh run     on the GPU machine: puts the CUDA libraries of its Python
#                                packages (nvidia-*) on the library path, runs the GPU
#                                tests on GPU 0, then the benches — W1 against the device's
#                                copy, ResNet-50 inference (batch 1, 64) and training
#                                (batch 64) against the cuBLAS bound, NVRTC's compile
#                                time — and PyTorch's on the same card where it imports,
#                                and prints one table (benches/peers/gpu_table.py).
#
# GPU_CHECK_DEVICE=emulated runs the second half on the emulated device at small sizes
# (the script's own check, on any machine). RUNS sets the timed runs (default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
out=target/gpu-check

build() {
    local cuda=${CUDA:-13}
    cargo build --release -p kiln --no-default-features --features "cuda,cuda-$cuda"
    rm -rf "$out" && mkdir -p "$out/tests"
    cp "$target/release/kiln" "$out/kiln"
    # The test executables cargo builds, read from its JSON messages.
    cargo test --release -p kiln-cuda --no-default-features --features "driver,cuda-$cuda" \
        --no-run --message-format=json |
        python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])' |
        while read -r exe; do cp "$exe" "$out/tests/$(basename "$exe" | sed 's/-[0-9a-f]*$//')"; done
    compgen -G "$out/tests/*" >/dev/null || { echo "gpu-check: cargo built no test binaries" >&2; exit 1; }
    strip "$out/kiln" "$out"/tests/*
    du -sh "$out"
}

run() {
    local device=${GPU_CHECK_DEVICE:-cuda} runs=${RUNS:-10}
    [[ -x $out/kiln ]] || { echo "gpu-check: no $out/kiln (run \`$0 build\` first)" >&2; exit 2; }
    # CUDA's libraries from the Python packages (nvidia-cublas, -cuda-nvrtc, ...), in
    # every folder of the `nvidia` namespace package; no empty entries (they would put
    # the current folder on the search path).
    local libs
    libs=$(python3 -c 'import glob, os, nvidia
print(":".join(sorted(l for p in nvidia.__path__ for l in glob.glob(os.path.join(p, "*", "lib")))))' 2>/dev/null || true)
    LD_LIBRARY_PATH=$(printf '%s:%s' "$libs" "${LD_LIBRARY_PATH:-}" | tr -s ':' | sed 's/^://; s/:$//')
    export LD_LIBRARY_PATH
    export KILN_TEST_DEVICE=$device KILN_CACHE_DIR=${KILN_CACHE_DIR:-$out/cache}
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
    # Every test binary runs, and the benches after them; a failure fails the run at
    # the end. Tests of the emulated device alone run on it whatever the device.
    local failed=()
    for t in "$out"/tests/*; do
        echo "=== $(basename "$t")"
        "$t" --test-threads 1 || failed+=("$(basename "$t")")
    done
    local log=$out/run.jsonl
    : > "$log"
    local size=28 batch=64 big=64
    if [[ $device == emulated ]]; then size=16 batch=1 big=1; fi
    bench() { "$out/kiln" bench "$@" --device "$device" --json --runs "$runs" | tee -a "$log"; }
    bench gpu-elementwise --log2-size "$size"
    if [[ $device == cuda ]]; then
        bench gpu-resnet50 --batch 1
        bench gpu-resnet50 --batch "$big" --train
        "$out/kiln" bench jit --device cuda --json --runs 3 | tee -a "$log"
        if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
            RUNS=$runs BATCH=$batch LOG2_SIZE=$size python3 benches/peers/gpu_torch.py >> "$log" ||
                echo "note: PyTorch's benches failed; the table has what they printed"
        else
            echo "note: no PyTorch with CUDA here; the table has kiln's rows only"
        fi
    fi
    python3 benches/peers/gpu_table.py "$log"
    if ((${#failed[@]})); then
        echo "gpu-check: failing tests in: ${failed[*]}" >&2
        exit 1
    fi
}

case ${1:-} in
    build) build ;;
    run) run ;;
    *) echo "usage: $0 build|run" >&2; exit 2 ;;
esac
