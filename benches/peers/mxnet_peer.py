"""W3 and W4 in MXNet 1.9.1 (the `mxnet` environment of setup.sh).

W3: one SGD step (lr 0.1) of LeNet (MXNet's example symbol) at batch 64 through
    mx.mod.Module: forward, backward, update.
W4: Gluon's resnet18_v1 (random weights), hybridized, inference at 224x224, batch 1
    and 8, with MKLDNN (oneDNN) as the pip wheel ships it.
W6: one training step of that resnet18_v1 at 224x224, batch 8 (BatchNorm in training
    mode, softmax cross-entropy, SGD with momentum 0.9, lr 0.1), through mx.mod.Module on
    its symbol and through hybridized Gluon with a Trainer.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import measure  # noqa: E402

import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

RUNS = int(os.environ.get("RUNS", "10"))


def lenet():
    data = mx.sym.var("data")
    x = data
    for i, filters in enumerate((20, 50)):
        x = mx.sym.Convolution(x, kernel=(5, 5), num_filter=filters, name=f"conv{i + 1}")
        x = mx.sym.Activation(x, act_type="tanh")
        x = mx.sym.Pooling(x, pool_type="max", kernel=(2, 2), stride=(2, 2))
    x = mx.sym.flatten(x)
    x = mx.sym.FullyConnected(x, num_hidden=500, name="fc1")
    x = mx.sym.Activation(x, act_type="tanh")
    x = mx.sym.FullyConnected(x, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(x, name="softmax")


def module_step(symbol, x, y, optimizer_params):
    """One training step of `symbol` through mx.mod.Module on the batch (x, y), with SGD
    (Xavier-initialized weights; the Module rescales gradients by 1/batch)."""
    mod = mx.mod.Module(symbol, context=mx.cpu())
    mod.bind(data_shapes=[("data", x.shape)], label_shapes=[("softmax_label", y.shape)])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params=optimizer_params)
    db = mx.io.DataBatch(data=[x], label=[y])

    def step():
        mod.forward(db, is_train=True)
        mod.backward()
        mod.update()
        mx.nd.waitall()

    return step


def w3():
    batch = 64
    x = mx.nd.array(np.random.rand(batch, 1, 28, 28))
    y = mx.nd.array(np.arange(batch) * 7 % 10)
    step = module_step(lenet(), x, y, {"learning_rate": 0.1})
    measure("lenet-train", "mxnet Module", step, RUNS, batch=batch)


def w4():
    from mxnet.gluon.model_zoo import vision

    net = vision.resnet18_v1(pretrained=False)
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True, static_shape=True)
    for batch in (1, 8):
        x = mx.nd.array(np.random.rand(batch, 3, 224, 224))

        def run():
            net(x).wait_to_read()

        measure("resnet18-infer", "mxnet (mkldnn)", run, RUNS, batch=batch)


def w6():
    from mxnet import autograd, gluon
    from mxnet.gluon.model_zoo import vision

    batch = 8
    x = mx.nd.array(np.random.rand(batch, 3, 224, 224))
    y = mx.nd.array(np.arange(batch) * 7 % 1000)
    net = vision.resnet18_v1(pretrained=False)
    net.hybridize(static_alloc=True, static_shape=True)
    symbol = mx.sym.SoftmaxOutput(net(mx.sym.var("data")), name="softmax")
    step = module_step(symbol, x, y, {"learning_rate": 0.1, "momentum": 0.9})
    measure("resnet18-train", "mxnet Module", step, RUNS, batch=batch)

    net.initialize(mx.init.Xavier())
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": 0.1, "momentum": 0.9})

    def gluon_step():
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(batch)
        mx.nd.waitall()

    measure("resnet18-train", "mxnet Gluon (hybridized)", gluon_step, RUNS, batch=batch)


if __name__ == "__main__":
    which = sys.argv[1:] or ["w3", "w4", "w6"]
    for name in which:
        globals()[name]()
