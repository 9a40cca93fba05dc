"""Reads the JSON lines of `kiln bench --json` and the peer scripts (one run) and prints
one table: each workload's kiln time against its peers, the ratio kiln/peer (below 1:
kiln is faster) and the target. Exits 1 when a row is missing: a peer that did not run
fails the comparison instead of vanishing from it."""
import json
import sys

# (workload, batch or None, kiln's variant, peers, target ratio against the best peer)
ROWS = [
    ("elementwise", None, "executor", ["torch.compile"], 1.0),
    ("mlp-train", 128, "kiln", ["jax.jit"], 0.85),
    ("lenet-train", 64, "kiln", ["mxnet Module"], 0.6),
    ("resnet18-infer", 1, "kiln",
     ["pytorch (compiled, frozen)", "onnxruntime", "mxnet (mkldnn)"], 0.9),
    ("resnet18-infer", 8, "kiln",
     ["pytorch (compiled, frozen)", "onnxruntime", "mxnet (mkldnn)"], 0.9),
]


def main(path):
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]

    def find(workload, batch, variant):
        for r in rows:
            if (r["workload"], r["variant"]) == (workload, variant) and (
                    batch is None or r.get("batch") == batch):
                return r["median_ms"]
        return None

    missing = []
    print(f"{'workload':<16}{'batch':>6}{'kiln ms':>10}  {'peer':<28}{'peer ms':>9}"
          f"{'kiln/peer':>11}{'target':>8}")
    for workload, batch, kiln_variant, peers, target in ROWS:
        kiln = find(workload, batch, kiln_variant)
        if kiln is None:
            missing.append(f"kiln {workload} {kiln_variant}")
            continue
        best = None
        for peer in peers:
            ms = find(workload, batch, peer)
            if ms is None:
                missing.append(f"{peer} {workload}")
                continue
            if best is None or ms < best:
                best = ms
            print(f"{workload:<16}{batch or '':>6}{kiln:>10.3f}  {peer:<28}{ms:>9.3f}"
                  f"{kiln / ms:>11.2f}")
        if best is not None:
            verdict = "met" if kiln / best <= target else "missed"
            print(f"{workload:<16}{batch or '':>6}{kiln:>10.3f}  {'best peer':<28}{best:>9.3f}"
                  f"{kiln / best:>11.2f}{target:>8.2f}  {verdict}")
    if missing:
        print("missing: " + "; ".join(missing), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1])
