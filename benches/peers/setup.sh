#!/usr/bin/env bash
# Creates the peers' Python environments for benches/peers/compare.sh:
#   $PEERS/mxnet   MXNet 1.9.1 with numpy 1.23.5 (numpy >= 1.24 breaks `import mxnet`)
#   $PEERS/modern  PyTorch, JAX and ONNX Runtime (with onnx, to export the models) on a
#                  current numpy
# $PEERS is $KILN_PEERS_DIR, else ~/.cache/kiln/peers. Re-running skips what is installed.
set -euo pipefail
PEERS="${KILN_PEERS_DIR:-$HOME/.cache/kiln/peers}"
PYTHON="${PYTHON:-python3}"
mkdir -p "$PEERS"

venv() {
    local dir="$PEERS/$1"; shift
    if [ ! -x "$dir/bin/python" ]; then
        "$PYTHON" -m venv "$dir"
        "$dir/bin/pip" install --quiet --upgrade pip
    fi
    "$dir/bin/pip" install --quiet "$@"
}

# OpenCV draws and encodes the image-iterator benchmark's JPEGs (image_iter.sh).
venv mxnet mxnet==1.9.1 numpy==1.23.5 opencv-python-headless==4.8.1.78
venv modern torch jax onnxruntime onnx numpy

"$PEERS/mxnet/bin/python" -c 'import mxnet, numpy; print("mxnet", mxnet.__version__, "numpy", numpy.__version__)'
"$PEERS/modern/bin/python" -c 'import torch, jax, onnxruntime, numpy; print("torch", torch.__version__, "jax", jax.__version__, "onnxruntime", onnxruntime.__version__, "numpy", numpy.__version__)'
