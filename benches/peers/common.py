"""Timing shared by the peer scripts: median and minimum of timed runs after warm-up,
printed as one JSON object per line, as `kiln bench --json` prints them."""
import json
import statistics
import time


def measure(workload, variant, fn, runs=10, warmup=2, **extra):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    row = {
        "workload": workload,
        "variant": variant,
        "median_ms": statistics.median(times) * 1e3,
        "min_ms": min(times) * 1e3,
        "runs": runs,
    }
    row.update(extra)
    print(json.dumps(row), flush=True)
