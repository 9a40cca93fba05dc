"""W1, W2 and W4 in PyTorch, JAX and ONNX Runtime (the `modern` environment of setup.sh).

W1: y = a*b + 1 on 2^24 f32, torch.compile writing in place into a preallocated y.
W2: one SGD step (lr 0.1) of a 784-512-512-10 ReLU MLP with softmax cross-entropy at
    batch 128, jax.jit of value_and_grad and the update.
W4: resnet18 (v1, as MXNet's Gluon model zoo) inference at 224x224, batch 1 and 8:
    PyTorch compiled (torch.compile with inductor's freezing, eval mode, no grad) and ONNX
    Runtime (the same model exported to ONNX).
W6: one training step of that resnet18 at 224x224, batch 8: BatchNorm in training mode,
    softmax cross-entropy, SGD with momentum 0.9 (lr 0.1), in PyTorch eager and compiled
    (torch.compile of the model; the optimizer's step as PyTorch runs it by default).
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from common import measure  # noqa: E402

import numpy as np  # noqa: E402

RUNS = int(os.environ.get("RUNS", "10"))


def w1():
    import torch

    n = 1 << 24
    a, b = torch.rand(n), torch.rand(n)
    y = torch.empty(n)

    @torch.compile
    def fma(a, b, y):
        torch.add(torch.mul(a, b), 1.0, out=y)

    measure("elementwise", "torch.compile", lambda: fma(a, b, y), RUNS)


def w2():
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    sizes = [784, 512, 512, 10]
    params = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        key, k = jax.random.split(key)
        bound = (3.0 / fan_in) ** 0.5
        params.append((jax.random.uniform(k, (fan_in, fan_out), minval=-bound, maxval=bound),
                       jnp.zeros(fan_out)))
    x = jax.random.uniform(key, (128, 784))
    labels = jnp.arange(128) * 7 % 10

    def loss(params, x, labels):
        for i, (w, b) in enumerate(params):
            x = x @ w + b
            if i < len(params) - 1:
                x = jax.nn.relu(x)
        logp = jax.nn.log_softmax(x)
        return -jnp.mean(logp[jnp.arange(x.shape[0]), labels])

    @jax.jit
    def step(params, x, labels):
        grads = jax.grad(loss)(params, x, labels)
        return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)

    state = {"p": params}

    def run():
        state["p"] = step(state["p"], x, labels)
        jax.block_until_ready(state["p"])

    measure("mlp-train", "jax.jit", run, RUNS, batch=128)


def resnet18():
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

        def forward(self, x):
            r = x if self.down is None else self.down(x)
            return torch.relu(self.body(x) + r)

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
              nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)]
    model = nn.Sequential(*layers).eval()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_var.uniform_(0.5, 1.5)
    return model


def w6():
    import torch

    batch = 8
    x = torch.rand(batch, 3, 224, 224)
    labels = torch.arange(batch) * 7 % 1000
    for variant, compile_model in (("pytorch eager", False), ("pytorch (compiled)", True)):
        model = resnet18().train()
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        forward = torch.compile(model) if compile_model else model
        loss_fn = torch.nn.CrossEntropyLoss()

        def step():
            opt.zero_grad(set_to_none=True)
            loss_fn(forward(x), labels).backward()
            opt.step()

        measure("resnet18-train", variant, step, RUNS, batch=batch)


def w4():
    import torch
    import onnxruntime as ort

    # Inductor's freezing folds the weights into the compiled graph as constants.
    torch._inductor.config.freezing = True
    model = resnet18()
    compiled = torch.compile(model)
    for batch in (1, 8):
        x = torch.rand(batch, 3, 224, 224)
        with torch.no_grad():
            measure("resnet18-infer", "pytorch (compiled, frozen)", lambda: compiled(x), RUNS,
                    batch=batch)
        path = os.path.join(tempfile.mkdtemp(), "resnet18.onnx")
        torch.onnx.export(model, (x,), path, dynamo=False)
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        feed = {session.get_inputs()[0].name: x.numpy()}
        measure("resnet18-infer", "onnxruntime", lambda: session.run(None, feed), RUNS,
                batch=batch)


if __name__ == "__main__":
    which = sys.argv[1:] or ["w1", "w2", "w4", "w6"]
    for name in which:
        globals()[name]()
