//! `kiln im2rec [FLAGS] PREFIX ROOT`, as MXNet's `tools/im2rec.py` is called: with
//! `--list`, the images under ROOT become `PREFIX.lst` (or chunks and train/val/test
//! splits); without it, every `PREFIX*.lst` is packed into `.rec` and `.idx` files beside
//! it, each image decoded, cropped, resized and encoded again as `im2rec.py` does
//! (kiln-image's `Reencode`: JPEG records byte for byte as OpenCV's libjpeg-turbo writes
//! them, PNG ones with the same pixels in other bytes) or stored as it is with
//! `--pass-through`. The lists and pass-through record files are byte for byte what
//! `im2rec.py` writes. Records keep the list's order whatever `--num-thread`; an image that
//! cannot be read stops the run naming it, unless `--skip-errors` (then a warning and a
//! count, as `im2rec.py` prints and goes on).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kiln::image::Reencode;
use kiln::io::im2rec::{lists_for_prefix, make_lists, pack_list, Encode, ListOptions, PackOptions};
use kiln::{Error, Result};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Prefix of the .lst files to write (--list) or to pack (PREFIX*.lst).
    prefix: PathBuf,
    /// The folder the images (and the lists' paths) are under.
    root: PathBuf,
    /// Make image lists from ROOT instead of packing.
    #[arg(long)]
    list: bool,
    /// Extensions of images (--list).
    #[arg(long, num_args = 1.., default_values = [".jpeg", ".jpg", ".png"])]
    exts: Vec<String>,
    /// Lists to split the images into (--list).
    #[arg(long, default_value_t = 1)]
    chunks: usize,
    /// Share of each chunk for training (--list).
    #[arg(long, default_value_t = 1.0)]
    train_ratio: f64,
    /// Share of each chunk for testing (--list).
    #[arg(long, default_value_t = 0.0)]
    test_ratio: f64,
    /// Walk subfolders, each folder of images a label (--list).
    #[arg(long)]
    recursive: bool,
    /// Keep the folder's order (--list shuffles, as im2rec.py, with Python's seed 100).
    #[arg(long)]
    no_shuffle: bool,
    /// Store each image file's bytes as they are.
    #[arg(long)]
    pass_through: bool,
    /// Resize the shorter edge to this many pixels when re-encoding.
    #[arg(long, default_value_t = 0)]
    resize: usize,
    /// Crop the centre square when re-encoding.
    #[arg(long)]
    center_crop: bool,
    /// JPEG quality (1-100) or PNG compression (1-9) when re-encoding.
    #[arg(long, default_value_t = 95)]
    quality: u8,
    /// Threads reading (and encoding) images.
    #[arg(long, default_value_t = 1)]
    num_thread: usize,
    /// Colour mode when re-encoding: 1 colour, 0 grayscale, -1 as stored.
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    color: i8,
    /// The encoding of re-encoded images: .jpg or .png.
    #[arg(long, default_value = ".jpg")]
    encoding: String,
    /// Store every label column of the list (several labels as an array).
    #[arg(long)]
    pack_label: bool,
    /// Skip images that cannot be read, with a warning and a count, instead of stopping.
    #[arg(long)]
    skip_errors: bool,
}

/// Re-encoding allocates and frees a few hundred KiB per image (coefficients, planes,
/// pixels). glibc hands such blocks back to the system as they are freed (mapped anew
/// above its mmap threshold, the heap trimmed above twice that), so every image paid
/// for fresh pages — their faults and zeroing were a fifth of the time per image (AMD
/// EPYC, 0.22 of 1.14 ms). Raised thresholds keep the freed blocks for the next image;
/// what a pack holds at once is bounded by its window of records, so nothing grows.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets allocator parameters; both values are in range.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

pub fn run(args: Args) -> Result<()> {
    let input = |e: kiln::io::Error| Error::Input(e.to_string());
    if !args.root.is_dir() {
        return Err(Error::Input(format!(
            "ROOT {}: not a folder of images",
            args.root.display()
        )));
    }
    if args.list {
        let options = ListOptions {
            exts: args.exts.iter().map(|e| e.to_lowercase()).collect(),
            chunks: args.chunks,
            train_ratio: args.train_ratio,
            test_ratio: args.test_ratio,
            recursive: args.recursive,
            shuffle: !args.no_shuffle,
        };
        let prefix = args.prefix.to_string_lossy();
        let (written, folders) = make_lists(&prefix, &args.root, &options).map_err(input)?;
        for (folder, label) in folders {
            println!("{folder} {label}");
        }
        for path in written {
            eprintln!("wrote {}", path.display());
        }
        return Ok(());
    }
    let reencode = Reencode {
        resize: args.resize,
        center_crop: args.center_crop,
        quality: args.quality,
        encoding: args
            .encoding
            .parse()
            .map_err(|e: kiln::image::Error| Error::Input(format!("--encoding: {e}")))?,
        color: args.color,
    };
    let lists = lists_for_prefix(&args.prefix).map_err(input)?;
    if lists.is_empty() {
        return Err(Error::Input(format!(
            "no list file {}*.lst (make one with --list)",
            args.prefix.display()
        )));
    }
    let options = PackOptions {
        pack_label: args.pack_label,
        num_thread: args.num_thread,
        skip_errors: args.skip_errors,
    };
    if !args.pass_through {
        keep_freed_memory();
    }
    let pass_through = |_: &Path, bytes: Vec<u8>| Ok(bytes);
    let transform = |_: &Path, bytes: Vec<u8>| reencode.apply(&bytes).map_err(|e| e.to_string());
    let encode: &Encode = match args.pass_through {
        true => &pass_through,
        false => &transform,
    };
    for list in lists {
        eprintln!("Creating .rec file from {}", list.display());
        let lines = std::fs::read_to_string(&list)
            .map(|t| t.lines().filter(|l| !l.trim().is_empty()).count())
            .unwrap_or(0);
        let bar = progress_bar(lines);
        let started = Instant::now();
        let step = |n: usize| bar.inc(n as u64);
        let packed = pack_list(&list, &args.root, &options, encode, &step).map_err(input)?;
        bar.finish_and_clear();
        let seconds = started.elapsed().as_secs_f64();
        for why in &packed.skipped {
            eprintln!("skipped {why}");
        }
        eprintln!(
            "{} images into {} in {seconds:.2} s ({:.0} images/s){}",
            packed.records,
            packed.rec.display(),
            packed.records as f64 / seconds.max(1e-9),
            match packed.skipped.len() {
                0 => String::new(),
                n => format!(", {n} skipped"),
            }
        );
    }
    Ok(())
}

/// A bar on stderr when it is a terminal.
fn progress_bar(images: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(images as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} images {per_sec} {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
