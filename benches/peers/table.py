"""Reads the JSON lines of one compare.sh run (its `{"run": ...}` line, then what
`kiln bench --json` and the peer scripts printed) and prints the run's Markdown table:
each workload's kiln time against its peers, best peer first, the ratio kiln/peer (below 1:
kiln is faster) and the target. Exits 1, printing nothing, when a row is missing: a peer
that did not run fails the comparison instead of vanishing from it."""
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
    ("resnet18-train", 8, "kiln Module (forward_backward + update)",
     ["pytorch eager", "pytorch (compiled)", "mxnet Module", "mxnet Gluon (hybridized)"], 0.8),
]


def ms(value):
    """Three significant figures (whole milliseconds from 100 on), as RESULTS.md prints
    times."""
    return f"{value:#.3g}" if value < 100 else f"{value:.0f}"


def table(lines):
    """The Markdown lines of the table, and the rows that are missing."""
    rows = [r for r in lines if "workload" in r]
    run = next((r["run"] for r in lines if "run" in r), None)

    def find(workload, batch, variant):
        for r in rows:
            if (r["workload"], r["variant"]) == (workload, variant) and (
                    batch is None or r.get("batch") == batch):
                return r["median_ms"]
        return None

    out, missing = [], []
    if run is not None:
        out += [f"{run['cores']} cores ({run['cpu']}); {run['date']}; kiln {run['commit']}; "
                f"medians of {run['runs']} runs; raw log: `{run['log']}`.", ""]
    out += ["| workload | batch | kiln ms | peer | peer ms | kiln/peer | target | |",
            "|---|---|---|---|---|---|---|---|"]
    for workload, batch, kiln_variant, peers, target in ROWS:
        kiln = find(workload, batch, kiln_variant)
        if kiln is None:
            missing.append(f"kiln {workload} {kiln_variant}")
            continue
        found = []
        for peer in peers:
            peer_ms = find(workload, batch, peer)
            if peer_ms is None:
                missing.append(f"{peer} {workload}")
            else:
                found.append((peer_ms, peer))
        found.sort()
        shown_batch = "" if batch is None else batch
        for i, (peer_ms, peer) in enumerate(found):
            ratio = kiln / peer_ms
            if i == 0:
                verdict = "met" if ratio <= target else "missed"
                out.append(f"| `{workload}` | {shown_batch} | {ms(kiln)} | {peer} | "
                           f"{ms(peer_ms)} | **{ratio:.2f}** | ≤ {target:g} | {verdict} |")
            else:
                out.append(f"| | {shown_batch} | | {peer} | {ms(peer_ms)} | {ratio:.2f} | | |")
    return out, missing


def main(path):
    with open(path) as f:
        lines = [json.loads(line) for line in f if line.startswith("{")]
    out, missing = table(lines)
    if missing:
        print("missing: " + "; ".join(missing), file=sys.stderr)
        sys.exit(1)
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
