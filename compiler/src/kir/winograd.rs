//! Winograd's F(2x2, 3x3) and F(4x4, 3x3) for a 3x3 convolution: the geometry (whose
//! tiles and transforms the CPU backend runs, `kiln_runtime::cpu::winograd`) and the plan
//! that picks it for a fused kernel's matrix product (the output tile set where the
//! program's steps are made, [`Conv3x3::large_tiles_pay`]). Shared by the JIT executor
//! and the macro's AOT code, so both decide alike.

use super::{Idx, Lowered};
use crate::graph::{Entry, Graph, NodeId};
use crate::infer::Inferred;
use kiln_ops::{Attrs, ConvKind, Pattern};

/// The operator whose data gradient a plan may compute (see [`winograd_plan`]).
const CONVOLUTION_BACKWARD: &str = "_backward_Convolution";

/// 4x4 output tiles a convolution has at least (over its batch) where F(4x4, 3x3) runs
/// instead of F(2x2, 3x3). Its transformed weights are 2.25 times F(2x2, 3x3)'s, and
/// each of its products multiplies them by that many tiles: with fewer, reading them
/// (and in training, where the weights change every step, transforming them) costs more
/// than the multiplications it saves. On AMD Zen 4, ResNet-18's 7×7 layers at batch 8
/// (32 tiles) ran 1.4 times slower by F(4x4, 3x3) in a training step, its 28×28 ones at
/// batch 1 (49 tiles) 1.2 times faster in inference. Where the transformed weights are
/// kept (inference), 32 would pay too — ResNet-18's 14×14 layers in inference's parts of
/// 2 images made batch 8 1.05–1.07 times faster — but the kept transforms, 4 times the
/// weights, would take alexnet's inference from 22 to 40 MB. (At 224×224 and batch 1,
/// ResNet's 56×56, 28×28, 14×14 and 7×7 layers have 196, 49, 16 and 4 such tiles.)
pub const LARGE_TILES: usize = 48;

/// One 3x3, stride-1, undilated, ungrouped 2-D convolution in f32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv3x3 {
    pub batch: usize,
    pub channels: usize,
    pub height: usize,
    pub width: usize,
    pub filters: usize,
    /// Zero padding along y and x (at most 2: a tile never lies wholly in the padding).
    pub pad: [usize; 2],
    /// NHWC data and output, (filter, 3, 3, channel) weights; else NCHW and (filter,
    /// channel, 3, 3).
    pub channel_last: bool,
    /// The data gradient of a forward convolution (or a deconvolution, which is one): the
    /// weight is the forward's, whose filters are this convolution's channels and
    /// channels its filters, read with its taps reversed; the data is the forward's
    /// output gradient.
    pub data_gradient: bool,
    /// Side of an output tile: 2, F(2x2, 3x3) on 4x4 input tiles (exact in binary up to
    /// halvings), or 4, F(4x4, 3x3) on 6x6 ones (2.25 times fewer multiplications in the
    /// products, about two digits fewer in f32).
    pub output_tile: usize,
    /// The weight gradient of this (forward, channel-first) convolution instead of its
    /// output: `Gᵀ [Σ over the tiles (A dY Aᵀ) ⊙ (Bᵀ d B)] G` for each (filter, channel)
    /// pair, from the output gradient `dY` and the data `d` — the transpose of the
    /// forward's `Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A` in the weight `g`.
    pub weight_gradient: bool,
}

/// Output tiles of one image from which a weight gradient takes whole images on each
/// thread, each summing its own products over its images' tiles; below, shorter sums
/// would run gemm below its rate, and the images are taken in chunks, each chunk's 16
/// products (over its images' tiles) split over the threads (at 224×224, ResNet's
/// 56×56 and 28×28 layers have 784 and 196 tiles an image, its 14×14 and 7×7 ones 49
/// and 16).
pub const WEIGHT_GRADIENT_TILES: usize = 64;

/// Tiles a weight gradient's products sum over at least where it does not run by images:
/// it takes the images in chunks of as many as that needs, so its working space holds a
/// few images' transforms, not the batch's.
pub const WEIGHT_GRADIENT_DEPTH: usize = 128;

impl Conv3x3 {
    /// Output height and width.
    pub fn out_dims(&self) -> [usize; 2] {
        [
            self.height + 2 * self.pad[0] - 2,
            self.width + 2 * self.pad[1] - 2,
        ]
    }

    /// Tiles along y and x.
    pub fn tile_dims(&self) -> [usize; 2] {
        self.out_dims().map(|d| d.div_ceil(self.output_tile))
    }

    /// Elements of a transformed tile (of an input tile, 2 wider than an output tile):
    /// each is one matrix product.
    pub fn elements(&self) -> usize {
        (self.output_tile + 2).pow(2)
    }

    /// Whether F(4x4, 3x3) pays here: at least [`LARGE_TILES`] 4x4 output tiles over the
    /// batch (a weight gradient's per-element sums, filters × channels, are written,
    /// added and transformed as a convolution's transformed weights are read: the same
    /// rule holds), and a weight gradient runs by images
    /// ([`Conv3x3::weight_gradient_by_images`]) — by chunks, F(4x4, 3x3)'s larger sums
    /// and chunks of as many tiles (four times the images) would grow the workspace:
    /// alexnet's training step 91 → 96 MB, for 3% of ResNet-18's.
    pub fn large_tiles_pay(&self) -> bool {
        let large = Conv3x3 {
            output_tile: 4,
            ..*self
        };
        large.tiles() >= LARGE_TILES && (!self.weight_gradient || large.weight_gradient_by_images())
    }

    /// Output tiles over the batch.
    pub fn tiles(&self) -> usize {
        let [ty, tx] = self.tile_dims();
        self.batch * ty * tx
    }

    /// Length of the transformed weights (kiln-runtime's `Winograd::transform_weights`).
    pub fn weights_len(&self) -> usize {
        self.elements() * self.filters * self.channels
    }

    /// Length of the working space a run takes (kiln-runtime's `Winograd::run`): the
    /// transformed inputs and the products, a matrix for each element of a transformed
    /// tile (channels × tiles and filters × tiles).
    pub fn scratch_len(&self) -> usize {
        self.elements() * (self.channels + self.filters) * self.tiles()
    }

    /// Tile rows per band where a run takes bands of tiles through all three phases, each
    /// band on one thread: a band's transformed inputs `V` about fill the core's L2 cache
    /// (`l2` bytes), so the products read them from there right after the transform
    /// wrote them, and each product (one element's) stays wide. `None` where the whole
    /// layer's `V` and `M` going through the outer caches (written, then read) cost no
    /// more than every band reading the transformed weights `U` again (from L2 only where
    /// they fit there beside a band's `V`), or where each of `threads` would not have two
    /// bands: with one, each thread reads all of `U` where the whole layer's products
    /// split it, and multiplies it by half as many tiles (on AMD Zen 4, ResNet-18's 56×56
    /// layer by F(4x4, 3x3) and its 28×28 one by F(2x2, 3x3), each in two bands at batch
    /// 1, ran 1.1 times slower than whole).
    pub fn band_rows(&self, l2: usize, threads: usize) -> Option<usize> {
        let [ty_n, tx_n] = self.tile_dims();
        let v_row = 4 * self.elements() * self.channels * tx_n;
        // At most a thread's share of the rows, so every task's V and M fit in the scratch
        // sized for the whole layer's; then evened out over an image's bands, so the
        // threads get about equal work.
        let rows = (l2 / v_row)
            .max(1)
            .min(ty_n)
            .min(self.batch * ty_n / threads);
        if rows == 0 {
            return None;
        }
        let rows = ty_n.div_ceil(ty_n.div_ceil(rows));
        if self.batch * ty_n.div_ceil(rows) < 2 * threads {
            return None;
        }
        let u_bytes = 4 * self.elements() * self.filters * self.channels;
        let u_reads = if u_bytes + rows * v_row <= l2 {
            threads
        } else {
            self.batch * ty_n.div_ceil(rows)
        };
        let whole_bytes = 4 * self.elements() * (self.channels + self.filters) * self.tiles();
        let whole = if whole_bytes <= l2 {
            0
        } else {
            2 * whole_bytes
        };
        (u_reads * u_bytes < whole).then_some(rows)
    }

    /// Whether a weight gradient takes whole images on each thread
    /// ([`WEIGHT_GRADIENT_TILES`]), else chunks of images, each chunk's products split
    /// over the threads.
    pub fn weight_gradient_by_images(&self) -> bool {
        let [ty_n, tx_n] = self.tile_dims();
        ty_n * tx_n >= WEIGHT_GRADIENT_TILES
    }

    /// Images a weight gradient's chunk holds where it does not run by images: enough
    /// for [`WEIGHT_GRADIENT_DEPTH`] tiles, at most the batch.
    pub fn weight_gradient_chunk(&self) -> usize {
        let [ty_n, tx_n] = self.tile_dims();
        WEIGHT_GRADIENT_DEPTH
            .div_ceil((ty_n * tx_n).max(1))
            .min(self.batch)
            .max(1)
    }

    /// Length of the working space a weight gradient takes on `threads` threads: by
    /// images, each task's transformed data and output gradient of one image and its sum
    /// of their products (16 matrices, filters × channels); else a chunk's transforms
    /// and one sum.
    pub fn weight_gradient_scratch_len(&self, threads: usize) -> usize {
        let [ty_n, tx_n] = self.tile_dims();
        let (tiles, pairs) = (ty_n * tx_n, self.filters * self.channels);
        let width = self.channels + self.filters;
        match self.weight_gradient_by_images() {
            true => threads.min(self.batch).max(1) * self.elements() * (width * tiles + pairs),
            false => self.elements() * (width * self.weight_gradient_chunk() * tiles + pairs),
        }
    }

    /// Length of the working space a run in `bands` takes: each task's transformed inputs
    /// and products of one band.
    pub fn band_scratch_len(&self, bands: Bands) -> usize {
        let [ty_n, tx_n] = self.tile_dims();
        let tasks = bands.threads.min(self.batch * ty_n.div_ceil(bands.rows));
        tasks * self.elements() * (self.channels + self.filters) * bands.rows * tx_n
    }

    /// Whether Winograd beats im2col and gemm here: enough channels and filters to
    /// amortize the transforms, and a valid geometry.
    pub fn pays(&self) -> bool {
        self.pad.iter().all(|&p| p <= 2)
            && self.height + 2 * self.pad[0] > 2
            && self.width + 2 * self.pad[1] > 2
            && self.channels >= 16
            && self.filters >= 16
    }
}

/// A convolution a product computes with Winograd's algorithm instead of gemm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WinogradPlan {
    pub conv: Conv3x3,
    /// The kernel inputs holding the data and the weight (a weight gradient's: the data
    /// and the output gradient).
    pub data: usize,
    pub weight: usize,
    /// Whether the transformed weights are kept from run to run (remade only when the
    /// weight variable changes): where the weight is a variable the program does not
    /// train. Otherwise they are remade on every run in the step's workspace.
    pub keep_weights: bool,
    /// The bands of tile rows a run takes through all three phases, each band on one
    /// thread ([`Conv3x3::band_rows`] for the images a run takes, set where the program's
    /// steps are made); `None`: each phase over the whole layer in turn. A weight
    /// gradient's `threads` size its working space where it runs by images.
    pub bands: Option<Bands>,
}

/// Bands of `rows` tile rows, on at most `threads` threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bands {
    pub rows: usize,
    pub threads: usize,
}

impl WinogradPlan {
    /// Length of the working space a run over `images` images takes: in bands, each
    /// task's band; else the whole layer's transformed inputs and products.
    pub fn scratch_len(&self, images: usize) -> usize {
        let conv = Conv3x3 {
            batch: images,
            ..self.conv
        };
        match self.bands {
            _ if conv.weight_gradient => {
                conv.weight_gradient_scratch_len(self.bands.map_or(1, |b| b.threads))
            }
            Some(bands) => conv.band_scratch_len(bands),
            None => conv.scratch_len(),
        }
    }
}

/// The Winograd plan of a part's one kernel `l`: where the part holds one Convolution
/// that Winograd's algorithm computes and pays for, `l` reads its data and weight
/// directly, and whatever consumes the convolution's value in the part is element-wise or
/// broadcast to the convolution's shape — so the product `l` stores at each point is the
/// convolution's output there, in its layout.
///
/// Or the part holds one `_backward_Convolution` and `l` computes its weight gradient
/// alone ([`Conv3x3::weight_gradient`], channel-first), or its data gradient alone: for
/// stride 1 that is a convolution too, of the output gradient by the forward's weight
/// with its taps reversed and its filters and channels swapped, padded by 2 − p where
/// the forward pads by p. A stride-1 Deconvolution (channel-first, no output
/// adjustment or target shape) is that same data gradient of its data.
pub fn winograd_plan(
    g: &Graph,
    inferred: &Inferred,
    nodes: &[NodeId],
    l: &Lowered,
) -> Option<WinogradPlan> {
    let is_conv = |id: &&NodeId| {
        (g.node(**id).op)
            .is_some_and(|op| op.convolution.is_some() || op.name == CONVOLUTION_BACKWARD)
    };
    let mut convs = nodes.iter().filter(is_conv);
    let (&id, None) = (convs.next()?, convs.next()) else {
        return None;
    };
    let n = g.node(id);
    let backward = n.op.is_some_and(|op| op.name == CONVOLUTION_BACKWARD);
    let deconvolution =
        n.op.is_some_and(|op| op.convolution == Some(ConvKind::Transposed));
    let data_gradient = backward || deconvolution;
    if backward && l.outputs == [Entry { node: id, index: 1 }] {
        return weight_gradient_plan(g, inferred, id, l);
    }
    // Of the backward operator, `l` computes the data gradient and nothing else of it.
    if backward
        && (!l.outputs.contains(&Entry { node: id, index: 0 })
            || l.outputs.iter().any(|e| e.node == id && e.index != 0))
    {
        return None;
    }
    let a = n.params.as_ref()?;
    let pad = stride_one_3x3(a, &["None", "NCHW", "NHWC"])?;
    let all = |name: &str, v: i64| a.shape(name).iter().all(|&x| x == v);
    // A deconvolution's output size is its own only without these (and its channel-last
    // weight is laid out otherwise).
    let plain_deconvolution =
        || all("adj", 0) && all("target_shape", 0) && matches!(a.str("layout"), "None" | "NCHW");
    if deconvolution && !plain_deconvolution() {
        return None;
    }
    let channel_last = a.str("layout") == "NHWC";
    let out_shape = inferred.shape(Entry { node: id, index: 0 });
    let extent = |d: &Idx| match d {
        Idx::Const(v) => Some(*v),
        _ => None,
    };
    if (l.kernel.domain.iter().map(extent)).ne(out_shape.iter().map(|&d| Some(d as i64))) {
        return None;
    }
    // Every node downstream of the convolution in the part maps points one to one.
    let mut downstream = vec![id];
    for &m in nodes.iter().filter(|&&m| m > id) {
        let node = g.node(m);
        if node.inputs.iter().any(|e| downstream.contains(&e.node)) {
            let pattern = node.op.map(|op| op.pattern);
            let same = inferred.shape(Entry { node: m, index: 0 }) == out_shape;
            if !(same && matches!(pattern, Some(Pattern::ElemWise | Pattern::Broadcast))) {
                return None;
            }
            downstream.push(m);
        }
    }
    // The backward operator's inputs: the output gradient, the data, the weight.
    let weight_entry = n.inputs[if backward { 2 } else { 1 }];
    let input = |e: Entry| l.inputs.iter().position(|&i| i == e);
    let (data, weight) = (input(n.inputs[0])?, input(weight_entry)?);
    let x = inferred.shape(n.inputs[0]).as_slice();
    let w = inferred.shape(weight_entry).as_slice();
    let [batch, channels, height, width] = match (channel_last, x) {
        (false, &[b, c, h, w]) => [b, c, h, w],
        (true, &[b, h, w, c]) => [b, c, h, w],
        _ => return None,
    };
    // The forward's channels: the weight's last axis channel-last, else its second.
    let filters = match (data_gradient, channel_last, w) {
        (false, _, &[f, ..]) => f,
        (true, false, &[_, c, ..]) => c,
        (true, true, &[.., c]) => c,
        _ => return None,
    };
    let pad = match data_gradient {
        false => pad,
        true => [2usize.checked_sub(pad[0])?, 2usize.checked_sub(pad[1])?],
    };
    let conv = Conv3x3 {
        batch,
        channels,
        height,
        width,
        filters,
        pad,
        channel_last,
        data_gradient,
        weight_gradient: false,
        output_tile: 2,
    };
    conv.pays().then(|| WinogradPlan {
        conv,
        data,
        weight,
        keep_weights: g.node(weight_entry.node).is_variable(),
        bands: None,
    })
}

/// The plan of kernel `l`, which computes the weight gradient of `_backward_Convolution`
/// node `id` alone: a 3x3, stride-1, undilated, ungrouped, channel-first convolution.
fn weight_gradient_plan(
    g: &Graph,
    inferred: &Inferred,
    id: NodeId,
    l: &Lowered,
) -> Option<WinogradPlan> {
    let n = g.node(id);
    let pad = stride_one_3x3(n.params.as_ref()?, &["None", "NCHW"])?;
    // The backward operator's inputs: the output gradient, the data, the weight.
    let (dy, x, w) = (n.inputs[0], n.inputs[1], n.inputs[2]);
    let [batch, channels, height, width] = *inferred.shape(x).as_slice() else {
        return None;
    };
    let &[filters, ..] = inferred.shape(w).as_slice() else {
        return None;
    };
    let extent = |d: &Idx| match d {
        Idx::Const(v) => Some(*v),
        _ => None,
    };
    let weight_shape = [filters, channels, 3, 3].map(|d| Some(d as i64));
    if (l.kernel.domain.iter().map(extent)).ne(weight_shape) {
        return None;
    }
    let input = |e: Entry| l.inputs.iter().position(|&i| i == e);
    let conv = Conv3x3 {
        batch,
        channels,
        height,
        width,
        filters,
        pad,
        channel_last: false,
        data_gradient: false,
        weight_gradient: true,
        output_tile: 2,
    };
    conv.pays().then_some(WinogradPlan {
        conv,
        data: input(x)?,
        // The output gradient, in the weight's place: what multiplies the data.
        weight: input(dy)?,
        // Nothing transformed to keep: the weight is not read.
        keep_weights: false,
        bands: None,
    })
}

/// The padding `[y, x]` of a convolution whose parameters `a` make it 3x3, stride 1,
/// undilated and ungrouped, in one of `layouts`; `None` otherwise.
fn stride_one_3x3(a: &Attrs, layouts: &[&str]) -> Option<[usize; 2]> {
    let all = |name: &str, v: i64| a.shape(name).iter().all(|&x| x == v);
    let fits = a.shape("kernel") == [3, 3]
        && all("stride", 1)
        && all("dilate", 1)
        && a.int("num_group") == 1
        && layouts.contains(&a.str("layout"));
    match (fits, a.shape("pad")) {
        (true, []) => Some([0, 0]),
        (true, &[py, px]) => Some([py as usize, px as usize]),
        _ => None,
    }
}
