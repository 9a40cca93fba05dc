#!/usr/bin/env bash
# Runs every fuzz target of kiln_compiler::formats::fuzz under libFuzzer, each for
# SECONDS (default 300) or RUNS executions (`RUNS=1000000 fuzz/run.sh`), growing its
# committed corpus (fuzz/corpus/NAME). cargo-fuzz needs -Z flags: it runs on the nightly
# toolchain where rustup has one, else on stable with RUSTC_BOOTSTRAP=1.
# Usage: fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-300}
shift || true
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
if rustup toolchain list | grep -q '^nightly'; then
  fuzz=(cargo +nightly fuzz)
else
  export RUSTC_BOOTSTRAP=1
  fuzz=(cargo fuzz)
fi
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || mapfile -t targets < <("${fuzz[@]}" list)
limit=(-max_total_time="$seconds")
[[ -n ${RUNS:-} ]] && limit=(-runs="$RUNS")
for t in "${targets[@]}"; do
  echo "=== $t"
  # A crash leaves its input in artifacts/$t/ and fails the script: make it a regression
  # test by copying it into corpus/$t/ once fixed.
  "${fuzz[@]}" run "$t" "corpus/$t" -- "${limit[@]}" -max_len=65536 -rss_limit_mb=4096 -timeout=10
done
