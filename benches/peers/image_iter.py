"""ImageRecordIter throughput: MXNet 1.9.1's, on the file image_iter.sh packs.

`python image_iter.py make FILE.rec N` writes N JPEGs (quality 90, 240-400 pixels a side,
smooth fields with noise) into FILE.rec with labels 0-9; `python image_iter.py folder DIR
N` writes the same images as DIR/<label>/<i>.jpg (for im2rec.sh); `python image_iter.py time
FILE.rec EPOCHS` times MXNet's ImageRecordIter with the benchmark's settings (resize 256,
random 224 crop, mirror, ImageNet mean/std, 2 decoding threads) and prints one line per
epoch: images and images/s.
"""
import sys
import time

import numpy as np

PARAMS = dict(data_shape=(3, 224, 224), batch_size=32, resize=256, rand_crop=True,
              rand_mirror=True, mean_r=123.68, mean_g=116.28, mean_b=103.53, std_r=58.395,
              std_g=57.12, std_b=57.375, preprocess_threads=2, prefetch_buffer=4)

def jpegs(n):
    """(label, JPEG bytes) of n images."""
    import cv2
    rng = np.random.RandomState(0)
    for i in range(n):
        h, w = rng.randint(240, 400), rng.randint(240, 400)
        yy, xx = np.mgrid[0:h, 0:w]
        img = np.stack([127 + 100 * np.sin(xx / (7 + i % 5) + c) * np.cos(yy / (9 + c))
                        + rng.randn(h, w) * 10 for c in range(3)], 2)
        ok, jpeg = cv2.imencode(".jpg", np.clip(img, 0, 255).astype(np.uint8),
                                [cv2.IMWRITE_JPEG_QUALITY, 90])
        yield i % 10, jpeg.tobytes()


if sys.argv[1] == "make":
    from mxnet import recordio
    out = recordio.MXRecordIO(sys.argv[2], "w")
    for i, (label, jpeg) in enumerate(jpegs(int(sys.argv[3]))):
        out.write(recordio.pack(recordio.IRHeader(0, float(label), i, 0), jpeg))
    out.close()
elif sys.argv[1] == "folder":
    import os
    for i, (label, jpeg) in enumerate(jpegs(int(sys.argv[3]))):
        folder = os.path.join(sys.argv[2], str(label))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "%05d.jpg" % i), "wb") as f:
            f.write(jpeg)
else:
    import ast
    import mxnet as mx
    for pair in sys.argv[4:]:
        key, value = pair.split("=", 1)
        PARAMS[key] = ast.literal_eval(value)
        if PARAMS[key] == -1:
            del PARAMS[key]
    it = mx.io.ImageRecordIter(path_imgrec=sys.argv[2], **PARAMS)
    for epoch in range(int(sys.argv[3])):
        it.reset()
        n, start = 0, time.time()
        for batch in it:
            n += PARAMS["batch_size"] - batch.pad
        print("mxnet epoch %d: %d images, %.0f images/s" % (epoch + 1, n, n / (time.time() - start)))
