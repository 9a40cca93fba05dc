//! A graph cut into steps: the fusion groups' parts ([`crate::kir::parts`]), each a
//! compiled kernel, a matrix product with its packs and epilogue, or a node on its native
//! or reference kernel (with why, where its group did not lower), then put in an order
//! that respects their data dependencies.

use super::{Product, Step, StepKind, Stream, Target, WINOGRAD_OUTPUTS};
use crate::error::{Error, Result};
use crate::graph::{Entry, Graph, NodeId};
use crate::infer::Inferred;
use crate::kir::matmul::{Along, Chunks, MatMul};
use crate::kir::{self, matmul, Conv3x3, Kernel, Part, Schedule, Unlowered, Windows, WinogradPlan};
use crate::passes::Fusion;
use std::collections::{BTreeSet, HashMap};

/// Entry shapes at three larger batch sizes, to generalize kernels over the batch size.
pub(super) struct BatchShapes {
    pub batch: i64,
    /// Inferred at `batch + 1`, `batch + 2` and `batch + 3`.
    pub next: [Inferred; 3],
}

fn node_outputs(id: NodeId, inferred: &Inferred) -> Vec<Entry> {
    (0..inferred.shapes[id.index()].len())
        .map(|index| Entry { node: id, index })
        .collect()
}

/// A node on its native kernel where the target runs them and it has one for this
/// configuration (every input and output f32), else on its reference kernel.
fn node_step(
    g: &Graph,
    inferred: &Inferred,
    id: NodeId,
    forward_nodes: usize,
    target: &Target,
) -> Step {
    let n = g.node(id);
    let native = target.native && kir::runs_native(g, inferred, id);
    let outputs = node_outputs(id, inferred);
    Step {
        name: n.name.clone(),
        kind: if native {
            StepKind::Native
        } else {
            StepKind::Reference
        },
        nodes: vec![id],
        inputs: n.inputs.clone(),
        outputs,
        forward: id.index() < forward_nodes,
    }
}

/// The part's kernels lowered at the batch size plus one, two and three, for
/// [`over_batch`]; `None` where a lowering fails or gives another number of kernels.
fn at_larger_batches(
    g: &Graph,
    nodes: &[NodeId],
    name: &str,
    count: usize,
    batch: &BatchShapes,
) -> Option<Vec<[Kernel; 3]>> {
    let mut sizes = batch.next.iter().map(|inferred| {
        kir::from_group(g, inferred, nodes, name)
            .ok()
            .filter(|ls| ls.len() == count)
            .map(|ls| ls.into_iter().map(|l| l.kernel))
    });
    let (a, b, c) = (sizes.next()??, sizes.next()??, sizes.next()??);
    Some(a.zip(b).zip(c).map(|((a, b), c)| [a, b, c]).collect())
}

/// The kernel over a symbolic batch size, with the dimensions to run it with: the
/// lowerings at the batch size plus one and plus two generalized, and checked against the
/// lowering at plus three. Larger sizes than the bound one, because the simplifier
/// specializes a batch of 1 (its coordinate is 0); a kernel exact at larger sizes is exact
/// at smaller ones, whose index ranges only shrink.
fn over_batch(larger: &[Kernel; 3], batch: i64) -> Option<(Kernel, Vec<i64>)> {
    let general = kir::generalize(&larger[0], batch + 1, &larger[1], batch + 2)?;
    if general.symbolic_dims() == 0 || kir::instantiate(&general, &[batch + 3]) != larger[2] {
        return None;
    }
    Some((general, vec![batch]))
}

/// The steps of `g`'s operator nodes for `target`, in the order of their parts, and the
/// parts that did not lower (their nodes' steps run on node kernels).
pub(super) fn steps(
    g: &Graph,
    inferred: &Inferred,
    fusion: &Fusion,
    forward_nodes: usize,
    target: &Target,
    batch: Option<&BatchShapes>,
) -> (Vec<Step>, Vec<Unlowered>) {
    if !target.kernels {
        let steps = g
            .node_ids()
            .filter(|&id| !g.node(id).is_variable())
            .map(|id| node_step(g, inferred, id, forward_nodes, target))
            .collect();
        return (steps, vec![]);
    }
    let mut steps = Vec::new();
    let mut unlowered = Vec::new();
    for part in kir::parts(g, inferred, fusion, forward_nodes, target.native) {
        let (name, nodes, lowered) = match part {
            Part::Node(id) => {
                steps.push(node_step(g, inferred, id, forward_nodes, target));
                continue;
            }
            Part::Unlowered(u) => {
                steps.extend(
                    (u.nodes.iter()).map(|&id| node_step(g, inferred, id, forward_nodes, target)),
                );
                unlowered.push(u);
                continue;
            }
            Part::Fused {
                name,
                nodes,
                kernels,
            } => (name, nodes, kernels),
        };
        let forward = nodes.iter().all(|id| id.index() < forward_nodes);
        let larger = (batch.filter(|_| target.symbolic_batch))
            .and_then(|b| at_larger_batches(g, &nodes, &name, lowered.len(), b));
        // The kernel (or a transform of it) over a symbolic batch size where the
        // lowerings at larger sizes generalize.
        let general = |index: usize, ir: Kernel, f: &dyn Fn(&Kernel) -> Option<Kernel>| {
            larger
                .as_ref()
                .zip(batch)
                .and_then(|(ks, b)| {
                    let [x, y, z] = &ks[index];
                    over_batch(&[f(x)?, f(y)?, f(z)?], b.batch)
                })
                .unwrap_or((ir, vec![]))
        };
        let kernels = lowered.len();
        let recognize = match target.blas {
            true => matmul::recognize_blas,
            false => matmul::recognize,
        };
        for (index, l) in lowered.into_iter().enumerate() {
            let product = target
                .least_product
                .and_then(|least| recognize(&l.kernel).filter(|mm| mm.m * mm.n * mm.k >= least));
            let kind = match product {
                Some(mut product) => {
                    let eligible = product.dtype == kiln_ops::DType::F32 && target.winograd;
                    // A convolution as its part's one kernel; a data or weight gradient
                    // beside the other gradients its operator also computes (a weight
                    // gradient stored as it is: Winograd writes the whole gradient).
                    let winograd = eligible
                        .then(|| kir::winograd_plan(g, inferred, &nodes, &l))
                        .flatten()
                        .filter(|w| {
                            kernels == 1
                                || w.conv.data_gradient
                                || (w.conv.weight_gradient
                                    && target.winograd_weight_gradients
                                    && product.epilogue.is_none())
                        })
                        .map(|mut w| {
                            let large = target.winograd_large_tiles && w.conv.large_tiles_pay();
                            w.conv.output_tile = if large { 4 } else { 2 };
                            w
                        });
                    if winograd.is_some() {
                        product.packs.clear();
                    }
                    // Streamed, a product packing its whole reduction (a weight gradient)
                    // sums over its outermost reduction axis instead, one index at a time,
                    // where an index's product is deep enough to pay for adding into the
                    // output, and large enough to split over the threads (smaller ones
                    // would run one after another on one: LeNet's first convolution's
                    // weight gradient, 20 × 25 × 576 an image).
                    let summing = target.streams.is_some()
                        && winograd.is_none()
                        && product.split_loop().is_none()
                        && product.sums.is_empty()
                        && !product.packs.is_empty();
                    if let Some(summed) = summing
                        .then(|| matmul::recognize_summing(&l.kernel))
                        .flatten()
                        .filter(|s| {
                            s.k >= matmul::LEAST_SUMMED_DEPTH
                                && s.m * s.n * s.k >= matmul::PARALLEL_FLOPS
                                && s.packs_by_index(Along::Sum)
                                    .is_some_and(|b| b.contains(&true))
                        })
                    {
                        product = summed;
                    }
                    let epilogue = product.epilogue.clone().map(|e| {
                        let (ir, dims) = general(index, e, &matmul::epilogue_of);
                        // Blocks of the split axis run the epilogue's outermost loop
                        // only if that loop is the split axis (a kernel generalized
                        // over the batch loops over it first, even at a batch of 1).
                        let outer = Schedule::cpu(&ir).order.first().map(|&(a, _)| a);
                        product.split_aligned &=
                            target.fused_epilogues && outer == product.split_axis;
                        (ir, dims)
                    });
                    let stream = by_block(&product, winograd.as_ref(), epilogue.as_ref(), target);
                    let (packs, epilogue, stream) = match stream {
                        Some((packs, epilogue, stream)) => (packs, epilogue, Some(stream)),
                        None => {
                            let packs = (product.packs.iter().enumerate())
                                .map(|(j, p)| {
                                    // Packs generalize only where the larger lowerings
                                    // pack the same operands the same way.
                                    let pack_of = |k: &Kernel| {
                                        let m = recognize(k)?;
                                        m.packs_like(&product).then(|| m.packs[j].clone())
                                    };
                                    general(index, p.clone(), &pack_of)
                                })
                                .collect();
                            (packs, epilogue, None)
                        }
                    };
                    // Bands for the images a run takes, on the threads the products stream on.
                    let winograd = winograd.map(|w| {
                        if w.conv.weight_gradient {
                            let threads = target.streams.unwrap_or(1);
                            let rows = w.conv.tile_dims()[0];
                            let bands = Some(kir::Bands { rows, threads });
                            return WinogradPlan { bands, ..w };
                        }
                        let images = stream.as_ref().map_or(w.conv.batch, |s| s.block);
                        let run = Conv3x3 {
                            batch: images,
                            ..w.conv
                        };
                        let bands = (target.pack_bytes.zip(target.streams))
                            .filter(|_| target.winograd_bands)
                            .and_then(|(l2, threads)| {
                                let rows = run.band_rows(l2, threads)?;
                                Some(kir::Bands { rows, threads })
                            });
                        WinogradPlan { bands, ..w }
                    });
                    // Without a stream, packs the product can read from their input are
                    // gathered into gemm's panels (a stream packs an index or a chunk at a
                    // time already, into a slot its gemm reads while in cache).
                    let windows = (product.packs.iter().enumerate())
                        .map(|(j, p)| {
                            let inputs = p.inputs.len();
                            let bytes = pack_bytes(p, product.dtype);
                            Windows::of(p).filter(|w| {
                                target.implicit_gemm
                                    && stream.is_none()
                                    && winograd.is_none()
                                    && w.fit(&product, inputs + j)
                                    && w.pays(bytes, target.pack_bytes)
                            })
                        })
                        .collect::<Vec<_>>();
                    // gemm gathers one operand into its panels: the largest pack if several fit.
                    let largest = (windows.iter().enumerate())
                        .filter_map(|(j, w)| Some((w.as_ref()?.elements(), j)))
                        .max()
                        .map(|(_, j)| j);
                    let windows = (windows.into_iter().enumerate())
                        .map(|(j, w)| w.filter(|_| Some(j) == largest))
                        .collect();
                    StepKind::Product(Box::new(Product {
                        matmul: product,
                        packs,
                        windows,
                        epilogue,
                        winograd,
                        stream,
                    }))
                }
                None => {
                    let (ir, dims) = general(index, l.kernel.clone(), &|k| Some(k.clone()));
                    StepKind::Kernel { ir, dims }
                }
            };
            steps.push(Step {
                name: l.kernel.name.clone(),
                kind,
                nodes: nodes.clone(),
                inputs: l.inputs,
                outputs: l.outputs,
                forward,
            });
        }
    }
    (steps, unlowered)
}

/// Bytes of the pack `p` writes in `dtype`.
pub(super) fn pack_bytes(p: &Kernel, dtype: kiln_ops::DType) -> usize {
    let len = kir::interp::extent(&p.outputs[0].len, &[]).unwrap_or(0);
    len.max(0) as usize * dtype.size()
}

/// A kernel and the symbolic dimensions to run it with.
type WithDims = (Kernel, Vec<i64>);

/// How `product` runs its split loop in blocks under `target` ([`Stream`]): the stream,
/// the packs of one index and the epilogue reading a block's product; `None` where it
/// runs whole (no threads to stream on, fewer indices than threads, no split loop, an
/// epilogue that does not follow the loop, or nothing a block would save).
fn by_block(
    product: &MatMul,
    winograd: Option<&WinogradPlan>,
    epilogue: Option<&WithDims>,
    target: &Target,
) -> Option<(Vec<WithDims>, Option<WithDims>, Stream)> {
    let threads = target.streams?.max(1);
    if winograd.is_none() && product.split_loop().is_none() {
        return by_sum(product, epilogue, target);
    }
    let (outer, axis) = (product.split_loop()?, product.split_axis?);
    let extent = outer.extent as usize;
    if epilogue.is_some() && !product.split_aligned {
        return None;
    }
    let (packs, stream) = match winograd {
        Some(w) => {
            // Blocks of images, one after another: the split loop is the batch.
            let image = Conv3x3 { batch: 1, ..w.conv };
            let outputs = image.tiles() * image.output_tile.pow(2);
            let block = threads.max(WINOGRAD_OUTPUTS.div_ceil(outputs));
            if axis != 0 || extent != w.conv.batch || block >= extent {
                return None;
            }
            let stream = Stream {
                along: Along::Split,
                tasks: 1,
                block,
                packs_by_index: vec![],
                chunks: None,
                depth_rows: None,
            };
            (vec![], stream)
        }
        None => {
            // Fewer indices than threads would leave threads idle (each index runs on one):
            // the product runs whole, its gemm split over the pool.
            if extent < threads {
                return None;
            }
            let by_index = product.packs_by_index(Along::Split)?;
            if !by_index.contains(&true) && epilogue.is_none() {
                return None;
            }
            let tasks = match product.flops() < matmul::PARALLEL_FLOPS {
                true => 1,
                false => threads,
            };
            let chunks =
                (target.pack_bytes).and_then(|bytes| Chunks::find(product, &by_index, bytes));
            let mut packs = packs_for(product, &by_index)?;
            if let Some(c) = chunks {
                packs[c.pack] = (c.pack(&product.packs[c.pack])?, vec![]);
            }
            (
                packs,
                Stream {
                    along: Along::Split,
                    tasks,
                    block: 1,
                    packs_by_index: by_index,
                    chunks,
                    depth_rows: None,
                },
            )
        }
    };
    let epilogue = match epilogue {
        Some((e, dims)) => {
            let e = matmul::epilogue_by_block(e, axis, stream.block as i64);
            // A block's epilogue runs its outermost loop over the block's indices.
            if Schedule::cpu(&e).order.first().map(|&(a, _)| a) != Some(axis) {
                return None;
            }
            Some((e, dims.clone()))
        }
        None => None,
    };
    Some((packs, epilogue, stream))
}

/// A product that splits along no outer loop streams along its first summed loop where
/// its packs follow it; its epilogue then runs once, after every index.
///
/// The indices run one after another, each packed and multiplied on every thread, or —
/// where there are enough of them and an index's product (`m × n`) is no larger than its
/// packed operands — shared out among the target's threads (where
/// [`Target::shared_sums`]), each packing its indices and summing their products on its
/// own core into a partial product of its own (the first task's is the product), the
/// partials added into the product at the end: each image's packs and products stay on
/// one core (split, a 64-filter product has few register tiles to share), for a partial
/// product's working space more a thread.
fn by_sum(
    product: &MatMul,
    epilogue: Option<&WithDims>,
    target: &Target,
) -> Option<(Vec<WithDims>, Option<WithDims>, Stream)> {
    let by_index = product.packs_by_index(Along::Sum)?;
    if !by_index.contains(&true) {
        return None;
    }
    let packs = packs_for(product, &by_index)?;
    let packed: i64 = (packs.iter().zip(&by_index))
        .filter(|(_, &one)| one)
        .map(|((k, _), _)| crate::kir::interp::extent(&k.outputs[0].len, &[]).unwrap_or(0))
        .sum();
    let images = product.loop_along(Along::Sum)?.extent;
    let threads = target.streams.filter(|_| target.shared_sums).unwrap_or(1);
    let shared = threads > 1
        && images >= threads as i64
        && product.loops.is_empty()
        && product.sums.len() == 1
        && product.m * product.n <= packed;
    // Chunks of depth, where every per-index pack runs its rows outermost.
    let outermost = |(k, _): &WithDims| Schedule::cpu(k).order.first().map(|&(a, _)| a) == Some(0);
    let depth_rows = (target.pack_bytes.filter(|_| shared))
        .and_then(|bytes| Chunks::depth_rows(product, &by_index, bytes))
        .filter(|_| (packs.iter().zip(&by_index)).all(|(p, &one)| !one || outermost(p)));
    let stream = Stream {
        along: Along::Sum,
        tasks: if shared { threads } else { 1 },
        block: 1,
        packs_by_index: by_index,
        chunks: None,
        depth_rows,
    };
    Some((packs, epilogue.cloned(), stream))
}

/// The packs of a streamed product: of one index where `by_index`, else whole.
fn packs_for(product: &MatMul, by_index: &[bool]) -> Option<Vec<WithDims>> {
    (product.packs.iter().zip(by_index))
        .map(|(p, &one)| match one {
            true => Some((matmul::pack_per_index(p)?, vec![])),
            false => Some((p.clone(), vec![])),
        })
        .collect()
}

/// How the next step is picked among the ready ones.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Policy {
    /// The one holding the earliest graph node.
    Earliest,
    /// The one that grows live memory least (bytes it writes minus bytes of inputs it is
    /// the last to read), the earliest among equals.
    LeastGrowth,
}

/// `steps` in an order where each runs after the steps writing what it reads, forward
/// steps before backward ones (a forward pass runs alone). `bytes` sizes the values the
/// memory-aware policy weighs (0 for values living elsewhere).
pub(super) fn order(
    g: &Graph,
    steps: Vec<Step>,
    policy: Policy,
    bytes: &dyn Fn(Entry) -> usize,
) -> Result<Vec<Step>> {
    let mut writer: HashMap<Entry, usize> = HashMap::new();
    for (s, step) in steps.iter().enumerate() {
        for &e in &step.outputs {
            writer.insert(e, s);
        }
    }
    let mut waiting = vec![0usize; steps.len()];
    let mut readers: Vec<Vec<usize>> = vec![vec![]; steps.len()];
    // For each value read: how many steps still have to read it.
    let mut pending: HashMap<Entry, usize> = HashMap::new();
    for (s, step) in steps.iter().enumerate() {
        let mut deps: Vec<usize> = Vec::new();
        for &e in &step.inputs {
            match writer.get(&e) {
                Some(&w) if w != s => deps.push(w),
                Some(_) => {}
                None if g.node(e.node).is_variable() => {}
                None => {
                    return Err(Error::Input(format!(
                        "no step writes output {} of `{}`, which step `{}` reads",
                        e.index,
                        g.node(e.node).name,
                        step.name
                    )))
                }
            }
        }
        let mut distinct = step.inputs.clone();
        distinct.sort_unstable();
        distinct.dedup();
        for e in distinct {
            *pending.entry(e).or_default() += 1;
        }
        deps.sort_unstable();
        deps.dedup();
        waiting[s] = deps.len();
        for w in deps {
            readers[w].push(s);
        }
    }
    let first = |s: usize| steps[s].nodes.iter().min().copied();
    let growth = |s: usize, pending: &HashMap<Entry, usize>| -> i64 {
        let step = &steps[s];
        let writes: usize = step.outputs.iter().map(|&e| bytes(e)).sum();
        let mut frees = 0;
        let mut distinct = step.inputs.clone();
        distinct.sort_unstable();
        distinct.dedup();
        for e in distinct {
            if pending.get(&e) == Some(&1) {
                frees += bytes(e);
            }
        }
        writes as i64 - frees as i64
    };
    // Ready steps, forward ones first.
    let mut ready: BTreeSet<(bool, Option<NodeId>, usize)> = (0..steps.len())
        .filter(|&s| waiting[s] == 0)
        .map(|s| (!steps[s].forward, first(s), s))
        .collect();
    let mut sequence = Vec::with_capacity(steps.len());
    while let Some(&head) = ready.first() {
        let next = match policy {
            Policy::Earliest => head,
            Policy::LeastGrowth => *ready
                .iter()
                .take_while(|r| r.0 == head.0)
                .min_by_key(|r| growth(r.2, &pending))
                .unwrap_or(&head),
        };
        ready.remove(&next);
        let s = next.2;
        sequence.push(s);
        let mut distinct = steps[s].inputs.clone();
        distinct.sort_unstable();
        distinct.dedup();
        for e in distinct {
            if let Some(c) = pending.get_mut(&e) {
                *c -= 1;
            }
        }
        for &r in &readers[s] {
            waiting[r] -= 1;
            if waiting[r] == 0 {
                ready.insert((!steps[r].forward, first(r), r));
            }
        }
    }
    if sequence.len() != steps.len() {
        return Err(Error::Input(
            "the program's steps depend on each other in a cycle".into(),
        ));
    }
    let mut slots: Vec<Option<Step>> = steps.into_iter().map(Some).collect();
    Ok(sequence
        .into_iter()
        .filter_map(|s| slots[s].take())
        .collect())
}
