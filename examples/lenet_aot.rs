//! kiln's main job: LeNet declared in Rust with `kiln::network!`, compiled ahead of time
//! while this example builds, trained with SGD on a synthetic MNIST-like dataset that the
//! example generates and writes in MNIST's idx format (then reads back with a small idx
//! reader of its own), printing loss, accuracy and throughput per epoch.
//!
//! `cargo run --release --example lenet_aot [EPOCHS]` (default 3).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

// The network, declared in Rust with `kiln::network!` (shared with the tests and the bench).
include!("networks/lenet.rs");

const SIDE: usize = 28;
const PIXELS: usize = SIDE * SIDE;

/// A small deterministic generator (64-bit LCG), enough for data and initial weights.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `n` images of ten classes: class k is a two-pixel bar across row 3 + 2k crossed by one
/// down column 21 − 2k, each shifted by a pixel or not, over faint noise.
fn synthesize(n: usize, rng: &mut Rng) -> (Vec<u8>, Vec<u8>) {
    let (mut images, mut labels) = (vec![0u8; n * PIXELS], Vec::with_capacity(n));
    for (i, image) in images.chunks_mut(PIXELS).enumerate() {
        let class = (i * 7 + (rng.next() * 10.0) as usize) % 10;
        let jitter = |rng: &mut Rng| usize::from(rng.next() < 0.5);
        let (row, col) = (3 + 2 * class + jitter(rng), 21 - 2 * class + jitter(rng));
        for (p, v) in image.iter_mut().enumerate() {
            let (y, x) = (p / SIDE, p % SIDE);
            let on = (y == row || y == row + 1) && (4..24).contains(&x)
                || (x == col || x == col + 1) && (4..24).contains(&y);
            *v = if on {
                200 + (rng.next() * 55.0) as u8
            } else {
                (rng.next() * 40.0) as u8
            };
        }
        labels.push(class as u8);
    }
    (images, labels)
}

/// Writes MNIST's idx format: a magic number (0x0803 images, 0x0801 labels), the
/// dimensions as big-endian u32, then the bytes.
fn write_idx(path: &Path, magic: u32, dims: &[usize], bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    out.write_all(&magic.to_be_bytes())?;
    for &d in dims {
        out.write_all(&(d as u32).to_be_bytes())?;
    }
    out.write_all(bytes)?;
    out.flush()
}

/// Reads an idx file of unsigned bytes (kiln-io's reader, MNISTIter's): its dimensions
/// and data.
fn read_idx(path: &Path) -> Result<(Vec<usize>, Vec<u8>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (dims, data) = kiln::io::read_idx(&bytes, path).map_err(|e| e.to_string())?;
    Ok((dims, data.to_vec()))
}

/// The dataset written to and read back from idx files in `dir`.
fn dataset(dir: &Path, name: &str, n: usize, rng: &mut Rng) -> Result<(Vec<u8>, Vec<u8>), String> {
    let (images, labels) = synthesize(n, rng);
    let (img_path, lbl_path) = (
        dir.join(format!("{name}-images-idx3-ubyte")),
        dir.join(format!("{name}-labels-idx1-ubyte")),
    );
    write_idx(&img_path, 0x0803, &[n, SIDE, SIDE], &images).map_err(|e| e.to_string())?;
    write_idx(&lbl_path, 0x0801, &[n], &labels).map_err(|e| e.to_string())?;
    let (dims, images) = read_idx(&img_path)?;
    let (_, labels) = read_idx(&lbl_path)?;
    if dims != [n, SIDE, SIDE] {
        return Err(format!("{}: dimensions {dims:?}", img_path.display()));
    }
    Ok((images, labels))
}

/// Batch `b`'s images as f32 in [0, 1] and its labels.
fn batch(images: &[u8], labels: &[u8], b: usize, size: usize) -> (Vec<f32>, Vec<f32>) {
    let data = images[b * size * PIXELS..(b + 1) * size * PIXELS]
        .iter()
        .map(|&v| v as f32 / 255.0)
        .collect();
    let labels = labels[b * size..(b + 1) * size]
        .iter()
        .map(|&l| l as f32)
        .collect();
    (data, labels)
}

/// Mean cross-entropy and correct predictions of `probabilities` (rows of 10).
fn score(probabilities: &[f32], labels: &[f32]) -> (f32, usize) {
    let mut loss = 0.0;
    let mut correct = 0;
    for (row, &label) in probabilities.chunks(10).zip(labels) {
        loss -= row[label as usize].max(1e-12).ln();
        let best = (0..10)
            .max_by(|&a, &b| row[a].total_cmp(&row[b]))
            .unwrap_or(0);
        correct += usize::from(best == label as usize);
    }
    (loss / labels.len() as f32, correct)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let epochs: usize = std::env::args().nth(1).map_or(Ok(3), |a| a.parse())?;
    let dir: PathBuf = std::env::temp_dir().join("kiln-lenet-aot");
    std::fs::create_dir_all(&dir)?;
    let mut rng = Rng(7);
    let (train_x, train_y) = dataset(&dir, "train", 6400, &mut rng)?;
    let (test_x, test_y) = dataset(&dir, "t10k", 1280, &mut rng)?;
    println!(
        "synthetic MNIST-like data in {}: 6400 training and 1280 test images",
        dir.display()
    );
    let plan = LeNet::memory_plan();
    println!(
        "LeNet, compiled ahead of time: {} parameters ({:.1} MB), arenas {:.1} MB (inference) and {:.1} MB (training)",
        LeNet::PARAMS.iter().map(|(_, s)| s.iter().product::<usize>()).sum::<usize>(),
        plan.parameters as f64 / 1e6,
        plan.inference as f64 / 1e6,
        plan.training as f64 / 1e6
    );
    // Xavier-uniform weights, zero biases.
    let mut init_rng = Rng(42);
    let mut net = LeNet::new(|name, shape, values| {
        if name.ends_with("weight") {
            let fan_in: usize = shape[1..].iter().product();
            let bound = (6.0 / (fan_in + shape[0]) as f32).sqrt();
            values
                .iter_mut()
                .for_each(|v| *v = (2.0 * init_rng.next() - 1.0) * bound);
        }
    });
    let size = LeNet::BATCH;
    let steps = train_y.len() / size;
    for epoch in 1..=epochs {
        let start = Instant::now();
        let (mut loss, mut correct) = (0.0, 0);
        for b in 0..steps {
            let (data, labels) = batch(&train_x, &train_y, b, size);
            let out = net.train_step(&[&data, &labels], 0.1)?;
            let (l, c) = score(out[0], &labels);
            loss += l;
            correct += c;
            let done = (b + 1) * 30 / steps;
            print!(
                "\repoch {epoch} [{}{}] {}/{steps}",
                "#".repeat(done),
                ".".repeat(30 - done),
                b + 1
            );
            std::io::stdout().flush()?;
        }
        let seconds = start.elapsed().as_secs_f64();
        let mut test_correct = 0;
        for b in 0..test_y.len() / size {
            let (data, labels) = batch(&test_x, &test_y, b, size);
            test_correct += score(net.forward(&[&data, &labels])?[0], &labels).1;
        }
        println!(
            "\repoch {epoch}: loss {:.4}, train accuracy {:.1}%, test accuracy {:.1}%, {:.0} samples/s{}",
            loss / steps as f32,
            100.0 * correct as f64 / (steps * size) as f64,
            100.0 * test_correct as f64 / test_y.len() as f64,
            (steps * size) as f64 / seconds,
            " ".repeat(12)
        );
    }
    Ok(())
}
