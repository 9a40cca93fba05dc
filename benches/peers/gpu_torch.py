"""PyTorch on the same GPU as `scripts/gpu-check.sh run`: W1 (a*b + 1 on 2^LOG2_SIZE
f32, eager and torch.compile where it works here, against torch's device copy) and
ResNet-50 v1 as MXNet's resnet50_v1 defines it (the stride on the 1x1 of each stage's
first bottleneck; torchvision's is v1.5), inference at batch 1 and BATCH and a training
step at BATCH — forward and backward, as kiln's `gpu-resnet50 --train` measures it (no
optimizer update) — one JSON line per variant as `kiln bench --json` prints them."""
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(__file__))
from common import measure  # noqa: E402

RUNS = int(os.environ.get("RUNS", "10"))
BATCH = int(os.environ.get("BATCH", "64"))
N = 1 << int(os.environ.get("LOG2_SIZE", "28"))
dev = torch.device("cuda")


def synced(fn):
    def run():
        fn()
        torch.cuda.synchronize()
    return run


def elementwise():
    a = torch.full((N,), 1.5, device=dev)
    b = torch.full((N,), 1.5, device=dev)
    y = torch.empty_like(a)
    copy = synced(lambda: y.copy_(a))
    measure("gpu-elementwise", "torch-copy", copy, RUNS, peer="pytorch", elements=N)
    eager = synced(lambda: torch.add(a * b, 1.0, out=y))
    measure("gpu-elementwise", "torch-eager", eager, RUNS, peer="pytorch", elements=N)
    try:
        fused = torch.compile(lambda a, b: a * b + 1.0)
        measure("gpu-elementwise", "torch-compile", synced(lambda: fused(a, b)), RUNS,
                peer="pytorch", elements=N)
    except Exception as e:  # no Triton or C compiler on the machine
        print(f"note: torch.compile failed: {e}", file=sys.stderr)


class Bottleneck(nn.Module):
    def __init__(self, cin, mid, stride):
        super().__init__()
        cout = 4 * mid
        self.body = nn.Sequential(
            nn.Conv2d(cin, mid, 1, stride, bias=False), nn.BatchNorm2d(mid), nn.ReLU(),
            nn.Conv2d(mid, mid, 3, 1, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(),
            nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.short = None
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                       nn.BatchNorm2d(cout))

    def forward(self, x):
        s = x if self.short is None else self.short(x)
        return torch.relu(self.body(x) + s)


def resnet50():
    layers, cin = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                   nn.MaxPool2d(3, 2, 1)], 64
    for mid, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for i in range(blocks):
            layers.append(Bottleneck(cin, mid, stride if i == 0 else 1))
            cin = 4 * mid
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 1000)]
    return nn.Sequential(*layers)


def resnet():
    net = resnet50().to(dev)
    net.eval()
    for batch in [1, BATCH]:
        x = torch.randn(batch, 3, 224, 224, device=dev)
        with torch.no_grad():
            measure("gpu-resnet50", "torch-infer", synced(lambda: net(x)), RUNS,
                    peer="pytorch", batch=batch)
    net.train()
    x = torch.randn(BATCH, 3, 224, 224, device=dev)
    label = torch.randint(0, 1000, (BATCH,), device=dev)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        net.zero_grad(set_to_none=True)
        loss_fn(net(x), label).backward()
    measure("gpu-resnet50", "torch-train", synced(step), RUNS, peer="pytorch", batch=BATCH)


if __name__ == "__main__":
    elementwise()
    resnet()
