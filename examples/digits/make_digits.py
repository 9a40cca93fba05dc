"""Exports the UCI optical-recognition handwritten digits that scikit-learn ships
(1,797 images of 8x8 pixels, 16 gray levels; Alpaydin & Kaynak, UCI Machine Learning
Repository, CC BY 4.0) as PNG files in one folder per class, then packs them with
`kiln im2rec` into digits_train.rec/.idx/.lst (80%) and digits_test.rec/.idx/.lst (20%),
shuffled as im2rec.py shuffles. Values 0-16 are stored as 0-255 (v * 255 // 16).

Needs scikit-learn (1.3.2 made these) and numpy, and the kiln binary (`cargo build --release`).
Run: python make_digits.py (in this folder).
"""
import os
import shutil
import subprocess
import tempfile
import zlib
import struct

import numpy as np
from sklearn.datasets import load_digits

KILN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../target/release/kiln")


def png(gray):
    """An 8-bit grayscale PNG of `gray` (h x w uint8), written by hand: no image library."""
    h, w = gray.shape
    raw = b"".join(b"\x00" + gray[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


digits = load_digits()
images = tempfile.mkdtemp()
for i, (image, label) in enumerate(zip(digits.images, digits.target)):
    folder = os.path.join(images, str(label))
    os.makedirs(folder, exist_ok=True)
    pixels = (image.astype(np.int64) * 255 // 16).astype(np.uint8)
    with open(os.path.join(folder, "%04d.png" % i), "wb") as f:
        f.write(png(pixels))

for stale in [f for f in os.listdir(".") if f.startswith("digits")]:
    os.remove(stale)
subprocess.run([KILN, "im2rec", "digits", images, "--list", "--recursive",
                "--train-ratio", "0.8", "--test-ratio", "0.2"], check=True)
subprocess.run([KILN, "im2rec", "digits", images, "--pass-through"], check=True)
shutil.rmtree(images)
print(sorted(os.listdir(".")))
