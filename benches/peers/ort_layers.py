"""ONNX Runtime's time per node for W4's resnet18 (the model modern.py exports), from its
own profiler: medians over 30 runs after 10 to warm up, the largest first, and the sum by
operator — to set beside `kiln bench resnet18-infer --profile`'s trace layer by layer.

    ~/.cache/kiln/peers/modern/bin/python benches/peers/ort_layers.py [BATCH]
"""
import collections
import json
import os
import statistics
import sys
import tempfile
import time

import onnxruntime as ort
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from modern import resnet18  # noqa: E402

batch = int(sys.argv[1]) if len(sys.argv) > 1 else 1
x = torch.rand(batch, 3, 224, 224)
path = os.path.join(tempfile.mkdtemp(), "resnet18.onnx")
torch.onnx.export(resnet18(), (x,), path, dynamo=False)
options = ort.SessionOptions()
options.enable_profiling = True
# The profile goes beside the exported model, not into the caller's directory.
options.profile_file_prefix = os.path.join(os.path.dirname(path), "ort_profile")
session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
feed = {session.get_inputs()[0].name: x.numpy()}
for _ in range(10):
    session.run(None, feed)
passes = []
for _ in range(30):
    start = time.perf_counter()
    session.run(None, feed)
    passes.append(time.perf_counter() - start)
events = json.load(open(session.end_profiling()))
times = collections.defaultdict(list)
for e in events:
    if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
        times[(e["name"][: -len("_kernel_time")], e["args"].get("op_name"))].append(e["dur"])
nodes = sorted(((statistics.median(v) / 1e3, k) for k, v in times.items()), reverse=True)
print(f"batch {batch}: {statistics.median(passes) * 1e3:.2f} ms a pass (median), "
      f"nodes {sum(t for t, _ in nodes):.2f} ms")
by_op = collections.Counter()
for t, (_, op) in nodes:
    by_op[op] += t
print(", ".join(f"{op} {t:.2f}" for op, t in by_op.most_common()))
for t, (name, op) in nodes:
    print(f"{t:8.3f}  {op:18s} {name}")
