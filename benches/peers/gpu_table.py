"""The table `scripts/gpu-check.sh run` prints: every row of its JSON log (kiln's GPU
benches and PyTorch's), with the W1 ratios against the device's copy and ResNet-50's
images/s against the cuBLAS bound and PyTorch's."""
import json
import sys


def main(path):
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    by = {(r["workload"], r["variant"], r.get("batch")): r for r in rows}
    print("| workload | variant | median ms | figure | ratio |")
    print("|---|---|---|---|---|")
    copy = by.get(("gpu-elementwise", "copy", None))
    torch_copy = by.get(("gpu-elementwise", "torch-copy", None))
    for r in rows:
        w, v, ms = r["workload"], r["variant"], r["median_ms"]
        figure, ratio = "", ""
        if w == "gpu-elementwise":
            elements = r.get("elements", 0)
            moved = 2 if "copy" in v else 3
            gbps = moved * 4 * elements / (ms / 1e3) / 1e9
            figure = f"{gbps:.1f} GB/s"
            base = torch_copy if v.startswith("torch") else copy
            if base and "copy" not in v:
                base_gbps = 2 * 4 * elements / (base["median_ms"] / 1e3) / 1e9
                ratio = f"{gbps / base_gbps:.2f}× copy"
        elif w == "gpu-resnet50" and "batch" in r:
            b = r["batch"]
            rate = b / (ms / 1e3)
            figure = f"batch {b}: {rate:.1f} images/s"
            if "bound_images_per_s" in r:
                ratio = f"{rate / r['bound_images_per_s']:.2f} of cuBLAS bound"
                peer = by.get((w, "torch-" + v, b))
                if peer:
                    ratio += f", {rate / (b / (peer['median_ms'] / 1e3)):.2f}× PyTorch"
        elif "tflops" in r:
            figure = f"{r['tflops']:.1f} TFLOP/s"
        elif r.get("per") == "kernel":
            figure = f"{ms:.1f} ms per kernel, {r.get('kernels')} kernels"
        print(f"| {w} | {v} | {ms:.3f} | {figure} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1])
