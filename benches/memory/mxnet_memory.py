#!/usr/bin/env python3
"""MXNet 1.9.1 reference numbers for the memory planner comparison.

For each zoo symbol, batch size and mode this binds a GraphExecutor with
``simple_bind`` (nothing is run: MXNet makes its static memory plan at bind
time) and records what ``Executor.debug_str()`` reports on its last two lines:

    Total <N> MB allocated
    Total <K> TempSpace resource requested

See README.md next to this file for exactly what <N> counts (and what it does
not), why <K> is always 11, and how to run this. Writes ``mxnet.json`` here.

Run with the MXNet 1.9.1 venv, from anywhere:

    /root/venvs/mxnet/bin/python benches/memory/mxnet_memory.py
"""

import argparse
import gc
import json
import os
import platform
import re
import sys
import tempfile

# ---------------------------------------------------------------------------
# Environment. All of it must be in place before `import mxnet`: several of
# these are read once into C++ statics (dmlc::GetEnv) on first use.
# ---------------------------------------------------------------------------
ENV = {
    # Do not partition the graph into a subgraph backend (the MKLDNN build
    # would otherwise be allowed to fuse conv+bn+relu etc. before planning,
    # changing the set of entries that get planned).
    "MXNET_SUBGRAPH_BACKEND": "NONE",
    # Do not dispatch to MKLDNN kernels at run time. NOTE: this is a run-time
    # switch only; the pip wheel is *compiled* with MKLDNN, and compile-time
    # effects on the graph stay (max Pooling keeps its hidden workspace output,
    # see README "MKLDNN build caveat").
    "MXNET_MKLDNN_ENABLED": "0",
    # Dump the static memory plan (per node: inputs/outputs with shapes) to
    # stderr at bind time; we capture it to count entries (see plan_summary).
    # It only logs; it does not change the plan.
    "MXNET_MEM_PLAN_VERBOSE_LOGGING": "1",
    # Silence the "Storage type fallback detected" warning that every
    # operator prints once MKLDNN is disabled. Logging only.
    "MXNET_STORAGE_FALLBACK_LOG_VERBOSE": "0",
    # Planner / gradient knobs, pinned to MXNet 1.9.1's defaults so that a
    # stray value in the caller's environment cannot change the numbers.
    "NNVM_EXEC_MATCH_RANGE": "16",  # MXPlanMemory size-bucket match range
    "NNVM_AUTO_SEARCH_MATCH_RANGE": "0",  # do not search match ranges 1..16
    "NNVM_EXEC_NUM_TEMP": "1",  # no node colouring in the allocator
    "MXNET_BACKWARD_DO_MIRROR": "0",  # no recomputation (mirroring)
    "MXNET_EXEC_INPLACE_GRAD_SUM_CAP": "8",  # gradient aggregation shape
}
for _k, _v in ENV.items():
    os.environ[_k] = _v

import mxnet as mx  # noqa: E402  (must come after the environment)
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ZOO = os.path.join(REPO, "tests", "fixtures", "zoo")

MODELS = ["alexnet", "vgg16", "googlenet", "inception-bn", "resnet50_v1", "inception_v3"]
BATCHES = [32, 64]
MODES = ["inference", "training"]
MiB = 1 << 20

TAIL_MB = re.compile(r"^Total (\d+) MB allocated$")
TAIL_TEMP = re.compile(r"^Total (\d+) TempSpace resource requested$")
PLAN_NODE = re.compile(r"\bnode (\d+) (\S+)$")
PLAN_OUTPUT = re.compile(r"\boutput (\d+): \[([0-9,]*)\]")


def input_shape(model, batch):
    side = 299 if model == "inception_v3" else 224
    return (batch, 3, side, side)


def grad_req_for(sym, mode):
    """inference: 'null' for every argument (no backward graph is built).
    training: 'null' for data and *label, 'write' for everything else."""
    req = {}
    for name in sym.list_arguments():
        if mode == "inference" or name == "data" or name.endswith("label"):
            req[name] = "null"
        else:
            req[name] = "write"
    return req


class CaptureFd2:
    """Capture everything written to file descriptor 2 (C++ LOG(INFO) goes
    there, below Python's sys.stderr)."""

    def __enter__(self):
        sys.stderr.flush()
        self._tmp = tempfile.TemporaryFile()
        self._saved = os.dup(2)
        os.dup2(self._tmp.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._tmp.seek(0)
        self.text = self._tmp.read().decode("utf-8", "replace")
        self._tmp.close()
        return False


def bind(sym, grad_req, type_dict=None, **shapes):
    with CaptureFd2() as cap:
        exe = sym.simple_bind(mx.cpu(), grad_req=grad_req, type_dict=type_dict, **shapes)
    return exe, cap.text


def parse_tail(debug_str):
    lines = debug_str.rstrip("\n").split("\n")
    tail = lines[-3:]
    m_mb = TAIL_MB.match(lines[-2])
    m_tmp = TAIL_TEMP.match(lines[-1])
    if not (m_mb and m_tmp):
        raise RuntimeError("unexpected debug_str tail: %r" % (tail,))
    return int(m_mb.group(1)), int(m_tmp.group(1)), tail


def plan_summary(log):
    """Summarise the MXNET_MEM_PLAN_VERBOSE_LOGGING dump (common::LogMemoryPlan):
    every op node with its output entries. MXNet 1.9.1's dump has no storage
    ids, so this cannot reproduce the byte total; it counts what is planned."""
    nodes = []  # (op, [elements per output])
    for line in log.splitlines():
        m = PLAN_NODE.search(line)
        if m:
            nodes.append((m.group(2), []))
            continue
        m = PLAN_OUTPUT.search(line)
        if m and nodes:
            dims = [int(d) for d in m.group(2).split(",") if d]
            nodes[-1][1].append(int(np.prod(dims, dtype=np.int64)) if dims else 1)
    ops = [n for n in nodes if n[0] != "var"]
    # max Pooling in this MKLDNN-compiled wheel has a hidden 2nd output (the
    # MKLDNN workspace, same shape as the output), even with MKLDNN disabled.
    pool_ws = [outs[1] for op, outs in ops if op == "Pooling" and len(outs) == 2]
    return {
        "op_nodes": len(ops),
        "op_output_entries": sum(len(outs) for _, outs in ops),
        "maxpool_workspace_entries": len(pool_ws),
        "maxpool_workspace_bytes_at_4B": 4 * sum(pool_ws),
    }


def nbytes(arrays):
    return int(sum(a.size * np.dtype(a.dtype).itemsize for a in arrays if a is not None))


def measure(model, batch, mode):
    sym = mx.sym.load(os.path.join(ZOO, "%s-symbol.json" % model))
    req = grad_req_for(sym, mode)
    shape = input_shape(model, batch)
    exe, log = bind(sym, req, data=shape)
    mb, temp, tail = parse_tail(exe.debug_str())
    res = {
        "model": model,
        "batch": batch,
        "mode": mode,
        "data_shape": list(shape),
        "allocated_mb": float(mb),
        # MXNet prints floor(bytes / 2^20): the planned byte total lies in
        # [allocated_mb * 2^20, (allocated_mb + 1) * 2^20).
        "allocated_bytes_range": [mb * MiB, (mb + 1) * MiB],
        "temp_space": temp,
        "debug_str_tail": tail,
        "grad_req_write": sum(1 for v in req.values() if v == "write"),
        # Context only: none of these is part of allocated_mb.
        "excluded_bytes": {
            "arguments": nbytes(exe.arg_arrays),
            "aux_states": nbytes(exe.aux_arrays),
            "argument_gradients": nbytes(exe.grad_arrays),
        },
        "plan": plan_summary(log),
    }
    del exe
    gc.collect()
    return res


# ---------------------------------------------------------------------------
# Probes: tiny graphs whose planned total is known by hand. They pin down what
# "Total N MB allocated" counts (README cites them); all sizes are chosen so
# the MiB floor is exact.
# ---------------------------------------------------------------------------
def probes():
    d = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(d, num_hidden=1024, name="fc")
    null = "null"
    cases = [
        ("fc_inference",
         "FC (4096,1024)->1024: only the 16 MiB output is planned; data (16 MiB) and "
         "weight (4 MiB) are arguments, not counted",
         fc, null, None, {"data": (4096, 1024)}, 16),
        ("batchnorm_aux",
         "BatchNorm on 64 MiB: output (64 MiB) + saved mean/var (2 KiB) are planned; "
         "gamma/beta arguments and moving_mean/var aux states are not",
         mx.sym.BatchNorm(d, name="bn"), null, None, {"data": (64, 256, 32, 32)}, 64),
        ("relu_chain_inplace",
         "relu(relu(relu(x))) on 64 MiB: first output gets a block, the next two run "
         "in place in it -> one 64 MiB block",
         mx.sym.relu(mx.sym.relu(mx.sym.relu(d))), null, None,
         {"data": (64, 256, 32, 32)}, 64),
        ("conv_workspace",
         "3x3 conv 64->64 on (1,64,256,256): only the 16 MiB output; the im2col "
         "TempSpace (144 MiB at run time) is not in the figure",
         mx.sym.Convolution(d, num_filter=64, kernel=(3, 3), pad=(1, 1), name="c"),
         null, None, {"data": (1, 64, 256, 256)}, 16),
        ("fc_training_param_grads",
         "FC (4096,2048)->1024, grad_req write for weight/bias, null for data: "
         "output 16 + head-gradient identity copy 16 + the data gradient the backward "
         "op still produces 32 = 64; the 8 MiB weight gradient (external) is not counted",
         fc, {"data": null, "fc_weight": "write", "fc_bias": "write"}, None,
         {"data": (4096, 2048)}, 64),
        ("fc_training_all_grads",
         "same with grad_req write for data too: data and weight gradients are "
         "user-visible (external) -> output 16 + head-gradient copy 16 = 32",
         fc, "write", None, {"data": (4096, 2048)}, 32),
        ("softmax_loss_head_training",
         "SoftmaxOutput on (4096,4096), grad_req write for data: forward output 64; "
         "the loss ignores its head gradient, so no head-gradient copy is planned; "
         "the data gradient is external -> 64",
         mx.sym.SoftmaxOutput(d, name="softmax"), {"data": "write", "softmax_label": null},
         None, {"data": (4096, 4096)}, 64),
        ("dtype_float16",
         "relu on 16 Mi float16 elements (32 MiB real): the planner sizes every entry "
         "as elements*4 -> 64",
         mx.sym.relu(d), null, {"data": "float16"}, {"data": (4096, 4096)}, 64),
        ("dtype_float64",
         "relu on 16 Mi float64 elements (128 MiB real): elements*4 -> 64",
         mx.sym.relu(d), null, {"data": "float64"}, {"data": (4096, 4096)}, 64),
        ("maxpool_hidden_workspace",
         "max Pooling 2x2/2 on (64,256,32,32): 16 MiB output + 16 MiB hidden MKLDNN "
         "workspace output (compiled in; present with MXNET_MKLDNN_ENABLED=0) = 32",
         mx.sym.Pooling(d, kernel=(2, 2), stride=(2, 2), pool_type="max"), null, None,
         {"data": (64, 256, 32, 32)}, 32),
        ("avgpool_no_workspace",
         "avg Pooling 2x2/2 on (64,256,32,32): output only = 16",
         mx.sym.Pooling(d, kernel=(2, 2), stride=(2, 2), pool_type="avg"), null, None,
         {"data": (64, 256, 32, 32)}, 16),
        ("variable_only",
         "a bare variable: nothing planned = 0; TempSpace line still says 11",
         d, null, None, {"data": (4, 4)}, 0),
    ]
    out = []
    for name, desc, sym, req, types, shapes, expect in cases:
        exe, _ = bind(sym, req, type_dict=types, **shapes)
        mb, temp, tail = parse_tail(exe.debug_str())
        out.append({
            "name": name,
            "description": desc,
            "expected_mb": expect,
            "allocated_mb": float(mb),
            "temp_space": temp,
            "ok": mb == expect and temp == 11,
        })
        del exe
    gc.collect()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "mxnet.json"))
    ap.add_argument("--models", nargs="+", default=MODELS, choices=MODELS)
    ap.add_argument("--batches", nargs="+", type=int, default=BATCHES)
    ap.add_argument("--modes", nargs="+", default=MODES, choices=MODES)
    ap.add_argument("--no-probes", action="store_true")
    args = ap.parse_args()

    results = []
    for model in [m for m in MODELS if m in args.models]:
        for batch in sorted(args.batches):
            for mode in [m for m in MODES if m in args.modes]:
                r = measure(model, batch, mode)
                results.append(r)
                print("%-13s N=%-3d %-9s %6d MB  temp=%d  (maxpool ws entries %d)"
                      % (model, batch, mode, r["allocated_mb"], r["temp_space"],
                         r["plan"]["maxpool_workspace_entries"]), flush=True)

    doc = {
        "mxnet_version": mx.__version__,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
        "mkldnn_compiled_in": bool(mx.runtime.Features().is_enabled("MKLDNN")),
        "context": "cpu(0)",
        "dtype": "float32",
        "env": dict(ENV),
        "results": results,
    }
    failed = []
    if not args.no_probes:
        doc["probes"] = probes()
        failed = [p["name"] for p in doc["probes"] if not p["ok"]]
        for p in doc["probes"]:
            print("probe %-26s expected %3d MB got %3d MB  %s"
                  % (p["name"], p["expected_mb"], p["allocated_mb"],
                     "ok" if p["ok"] else "FAIL"), flush=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("wrote %s" % os.path.relpath(args.out, REPO))
    if failed:
        print("probes failed: %s" % ", ".join(failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
