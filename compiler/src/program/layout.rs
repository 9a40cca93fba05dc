//! The memory planner: where every value a program's steps write lives.
//!
//! Steps run in the program's order. A value lives from the step that writes it to the
//! last step that reads it (pinned values to the end). A step's workspace (packed gemm
//! operands, a product before its epilogue) lives during that step only. Strategies, for
//! ablations:
//! - `Naive`: every value its own buffer;
//! - `InPlace`: an output takes a dying input's buffer of the same size where its step
//!   may overwrite that input (MXNet's in-place);
//! - `CoShare`: buffers with disjoint lifetimes share storage blocks, best fit from a free
//!   list (MXNet's co-share);
//! - `Both`: MXNet's plan;
//! - `Arena`: in-place, then offsets in one arena chosen so that no two simultaneously
//!   live buffers overlap — what every program runs with.
//!
//! Concurrency: a plan is valid for its execution order. An executor keeps that order:
//! all arena values are one engine variable, so the engine runs the steps touching the
//! arena in push order.

use crate::graph::Entry;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Naive,
    InPlace,
    CoShare,
    Both,
    Arena,
}

/// The strategies by name, as `kiln plan` reports them (`kiln` is the arena).
pub const STRATEGIES: [(&str, Strategy); 5] = [
    ("naive", Strategy::Naive),
    ("inplace", Strategy::InPlace),
    ("coshare", Strategy::CoShare),
    ("both", Strategy::Both),
    ("kiln", Strategy::Arena),
];

/// One buffer: what it holds, its size and lifetime (steps, inclusive), and its place.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// The values stored here, in order (several when in-place reuse chains them).
    pub entries: Vec<Entry>,
    /// Workspace `(step, index)` of a step's workspace list, when not a value.
    pub workspace_of: Option<(usize, usize)>,
    pub bytes: usize,
    pub start: usize,
    pub end: usize,
    /// Byte offset in the arena (`Arena`) or the storage block index (other strategies).
    pub offset: usize,
}

/// What the planner needs of one step.
pub struct StepUse<'a> {
    pub inputs: &'a [Entry],
    pub outputs: &'a [Entry],
    /// Bytes of each workspace buffer the step needs while it runs.
    pub workspace: Vec<usize>,
    /// Whether output `o` (position in `outputs`) may be written over input `i`
    /// (position in `inputs`).
    pub overwrites: &'a dyn Fn(usize, usize) -> bool,
}

#[derive(Clone, Debug)]
pub struct MemoryPlan {
    pub strategy: Strategy,
    pub buffers: Vec<Buffer>,
    /// Bytes the strategy allocates in total.
    pub bytes: usize,
    /// The largest sum of bytes live at once for this order (no plan can do better).
    pub lower_bound: usize,
}

/// Plans the values `stored` says live in memory (the rest live elsewhere: variables,
/// arrays of their own), `bytes` each; `pinned` values live to the end.
pub fn plan(
    steps: &[StepUse],
    bytes: &dyn Fn(Entry) -> usize,
    stored: &dyn Fn(Entry) -> bool,
    pinned: &HashSet<Entry>,
    strategy: Strategy,
) -> MemoryPlan {
    let last = steps.len().saturating_sub(1);
    let mut end: HashMap<Entry, usize> = HashMap::new();
    for (s, step) in steps.iter().enumerate() {
        for &e in step.inputs {
            end.insert(e, s);
        }
    }
    for &e in pinned {
        end.insert(e, last);
    }
    let inplace = matches!(
        strategy,
        Strategy::InPlace | Strategy::Both | Strategy::Arena
    );
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut holder: HashMap<Entry, usize> = HashMap::new();
    for (s, step) in steps.iter().enumerate() {
        // A buffer taken over in this step cannot be taken twice.
        let mut taken: HashSet<usize> = HashSet::new();
        for (o, &out) in step.outputs.iter().enumerate() {
            if !stored(out) || holder.contains_key(&out) {
                continue;
            }
            let (size, until) = (bytes(out), end.get(&out).copied().unwrap_or(s));
            let reuse = inplace
                .then(|| {
                    step.inputs.iter().enumerate().find_map(|(i, input)| {
                        let b = *holder.get(input)?;
                        (buffers[b].end == s
                            && end.get(input) == Some(&s)
                            && buffers[b].bytes == size
                            && !taken.contains(&b)
                            && (step.overwrites)(i, o))
                        .then_some(b)
                    })
                })
                .flatten();
            let b = match reuse {
                Some(b) => {
                    buffers[b].entries.push(out);
                    buffers[b].end = until;
                    b
                }
                None => {
                    buffers.push(Buffer {
                        entries: vec![out],
                        workspace_of: None,
                        bytes: size,
                        start: s,
                        end: until,
                        offset: 0,
                    });
                    buffers.len() - 1
                }
            };
            taken.insert(b);
            holder.insert(out, b);
        }
        for (w, &size) in step.workspace.iter().enumerate() {
            buffers.push(Buffer {
                entries: vec![],
                workspace_of: Some((s, w)),
                bytes: size,
                start: s,
                end: s,
                offset: 0,
            });
        }
    }
    let lower_bound = lower_bound(&buffers);
    let bytes = match strategy {
        Strategy::Naive | Strategy::InPlace => {
            for (i, b) in buffers.iter_mut().enumerate() {
                b.offset = i;
            }
            buffers.iter().map(|b| b.bytes).sum()
        }
        Strategy::CoShare | Strategy::Both => coshare(&mut buffers),
        Strategy::Arena => assign_offsets(&mut buffers),
    };
    MemoryPlan {
        strategy,
        buffers,
        bytes,
        lower_bound,
    }
}

/// The largest sum of bytes live during one step.
fn lower_bound(buffers: &[Buffer]) -> usize {
    crowding(buffers).into_iter().max().unwrap_or(0)
}

/// MXNet-style sharing: blocks freed by dead buffers are reused best-fit (the smallest
/// block at least as large, else the largest, grown); the total is the sum of blocks.
/// Free blocks are kept by size and busy ones by their last step, so each buffer costs a
/// logarithm, not a scan of every block.
fn coshare(buffers: &mut [Buffer]) -> usize {
    let mut blocks: Vec<usize> = Vec::new(); // size of each storage block
    let mut free: BTreeSet<(usize, usize)> = BTreeSet::new(); // (size, block)
    let mut busy: BinaryHeap<Reverse<(usize, usize)>> = BinaryHeap::new(); // (end, block)
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|&i| (buffers[i].start, i));
    for i in order {
        let (start, bytes) = (buffers[i].start, buffers[i].bytes);
        while let Some(&Reverse((end, k))) = busy.peek() {
            if end >= start {
                break;
            }
            busy.pop();
            free.insert((blocks[k], k));
        }
        let pick = free
            .range((bytes, 0)..)
            .next()
            .or_else(|| free.last())
            .copied();
        let k = match pick {
            Some((size, k)) => {
                free.remove(&(size, k));
                blocks[k] = size.max(bytes);
                k
            }
            None => {
                blocks.push(bytes);
                blocks.len() - 1
            }
        };
        busy.push(Reverse((buffers[i].end, k)));
        buffers[i].offset = k;
    }
    blocks.iter().sum()
}

/// Offsets in one arena: buffers are placed one by one, each in the smallest gap between
/// the buffers whose lifetimes meet its own (best fit), else above them. The placement
/// order matters, so several orders are tried (largest first, earliest first, longest-lived
/// first, largest in bytes × steps first, first in the most crowded steps) and the best
/// one improved by [`raise_top`]. Returns the arena size. Offsets are multiples of the
/// alignment every buffer's size is a multiple of.
///
/// Placing a buffer looks at every buffer placed before it, so past [`MANY_BUFFERS`] the
/// arena is planned by [`allocate_in_time`] instead, in `n log n`.
fn assign_offsets(buffers: &mut [Buffer]) -> usize {
    if buffers.len() > MANY_BUFFERS {
        return allocate_in_time(buffers);
    }
    let (placement, order) = best_order(buffers);
    let (size, offsets) = raise_top(buffers, order, placement, lower_bound(buffers));
    for (b, o) in buffers.iter_mut().zip(offsets) {
        b.offset = o;
    }
    size
}

/// Best-fit placement in each order [`assign_offsets`] tries: the smallest ((size,
/// offsets), order).
fn best_order(buffers: &[Buffer]) -> ((usize, Vec<usize>), Vec<usize>) {
    let crowd = crowding(buffers);
    let most_crowded = |b: &Buffer| crowd[b.start..=b.end].iter().max().copied();
    let mut orders: Vec<Vec<usize>> = vec![(0..buffers.len()).collect(); 5];
    orders[0].sort_by_key(|&i| (Reverse(buffers[i].bytes), buffers[i].start, i));
    orders[1].sort_by_key(|&i| (buffers[i].start, Reverse(buffers[i].bytes), i));
    orders[2].sort_by_key(|&i| {
        let b = &buffers[i];
        (Reverse(b.end - b.start), Reverse(b.bytes), i)
    });
    orders[3].sort_by_key(|&i| {
        let b = &buffers[i];
        (Reverse(b.bytes * (b.end - b.start + 1)), i)
    });
    orders[4].sort_by_key(|&i| {
        (
            Reverse(most_crowded(&buffers[i])),
            Reverse(buffers[i].bytes),
            i,
        )
    });
    (orders.into_iter())
        .map(|order| (place(buffers, &order), order))
        .min_by_key(|((size, _), _)| *size)
        .unwrap_or_default()
}

/// The bytes live during each step (a sweep over lifetime ends), up to the last step a
/// buffer lives in.
fn crowding(buffers: &[Buffer]) -> Vec<usize> {
    let steps = buffers.iter().map(|b| b.end + 1).max().unwrap_or(0);
    let mut delta = vec![0i64; steps + 1];
    for b in buffers {
        delta[b.start] += b.bytes as i64;
        delta[b.end + 1] -= b.bytes as i64;
    }
    let mut live = 0i64;
    (delta[..steps].iter())
        .map(|d| {
            live += d;
            live as usize
        })
        .collect()
}

/// Improves a placement order by moving the buffers that reach the arena's top halfway
/// to the front and placing again ("squeaky wheel"): what ends up on top was placed too
/// late to find room below. Stops within 1/[`CLOSE_ENOUGH`] of the lower `bound`, when
/// the top buffers are first already, or after [`RAISE_ROUNDS`] placements or
/// [`RAISE_WORK`] buffer pairs compared. Returns the best (size, offsets) seen.
fn raise_top(
    buffers: &[Buffer],
    mut order: Vec<usize>,
    mut best: (usize, Vec<usize>),
    bound: usize,
) -> (usize, Vec<usize>) {
    let rounds = RAISE_ROUNDS.min(RAISE_WORK / buffers.len().pow(2).max(1));
    let mut current = best.clone();
    for _ in 0..rounds {
        if best.0 <= bound + bound / CLOSE_ENOUGH {
            break;
        }
        let (size, offsets) = &current;
        let mut moved = false;
        for p in 0..order.len() {
            let i = order[p];
            if p > 0 && offsets[i] + buffers[i].bytes == *size {
                order.remove(p);
                order.insert(p / 2, i);
                moved = true;
            }
        }
        if !moved {
            break;
        }
        current = place(buffers, &order);
        if current.0 < best.0 {
            best = current.clone();
        }
    }
    best
}

/// [`raise_top`] stops within `1 / CLOSE_ENOUGH` of the bound (0.4%): a placement's
/// round costs as much as the whole greedy one, for nothing a user would see.
const CLOSE_ENOUGH: usize = 256;

/// Placements [`raise_top`] may try: the networks of the memory report reach their
/// bound, or end within 0.2% of it, in fewer.
const RAISE_ROUNDS: usize = 64;

/// Buffer pairs [`raise_top`] may compare in all its placements: all its rounds for a
/// network's thousand buffers, a few past four thousand.
const RAISE_WORK: usize = 1 << 26;

/// Buffers past which trying placement orders (quadratic) gives way to an allocator run
/// over time.
const MANY_BUFFERS: usize = 4096;

/// Offsets from an allocator run over the steps: buffers taken in order of their first
/// step (larger first among equals), each in the smallest free gap that holds it, else
/// at the top of the arena; a buffer's bytes become free after its last step, merged
/// with the gaps beside them. Returns the arena size.
fn allocate_in_time(buffers: &mut [Buffer]) -> usize {
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|&i| (buffers[i].start, Reverse(buffers[i].bytes), i));
    // Free gaps below the top, by offset and by (size, offset).
    let mut by_offset: BTreeMap<usize, usize> = BTreeMap::new();
    let mut by_size: BTreeSet<(usize, usize)> = BTreeSet::new();
    // Placed buffers still live, by their last step.
    let mut live: BinaryHeap<Reverse<(usize, usize)>> = BinaryHeap::new();
    let (mut top, mut size) = (0usize, 0usize);
    for i in order {
        while let Some(&Reverse((end, j))) = live.peek() {
            if end >= buffers[i].start {
                break;
            }
            live.pop();
            let (mut offset, mut bytes) = (buffers[j].offset, buffers[j].bytes);
            if let Some((&o, &b)) = by_offset.range(..offset).next_back() {
                if o + b == offset {
                    by_offset.remove(&o);
                    by_size.remove(&(b, o));
                    (offset, bytes) = (o, b + bytes);
                }
            }
            if let Some(b) = by_offset.remove(&(offset + bytes)) {
                by_size.remove(&(b, offset + bytes));
                bytes += b;
            }
            if offset + bytes == top {
                top = offset;
            } else {
                by_offset.insert(offset, bytes);
                by_size.insert((bytes, offset));
            }
        }
        let bytes = buffers[i].bytes;
        buffers[i].offset = match by_size.range((bytes, 0)..).next().copied() {
            Some((gap, offset)) => {
                by_size.remove(&(gap, offset));
                by_offset.remove(&offset);
                if gap > bytes {
                    by_offset.insert(offset + bytes, gap - bytes);
                    by_size.insert((gap - bytes, offset + bytes));
                }
                offset
            }
            None => {
                top += bytes;
                top - bytes
            }
        };
        size = size.max(top);
        live.push(Reverse((buffers[i].end, i)));
    }
    size
}

/// Best-fit placement of `buffers` in `order`: the arena's size and each buffer's offset.
fn place(buffers: &[Buffer], order: &[usize]) -> (usize, Vec<usize>) {
    let mut offsets = vec![0; buffers.len()];
    let mut placed: Vec<usize> = Vec::new();
    let mut size = 0;
    for &i in order {
        let b = &buffers[i];
        let mut busy: Vec<(usize, usize)> = placed
            .iter()
            .filter(|&&j| buffers[j].start <= b.end && b.start <= buffers[j].end)
            .map(|&j| (offsets[j], offsets[j] + buffers[j].bytes))
            .collect();
        busy.sort_unstable();
        let (mut best, mut top) = (None::<(usize, usize)>, 0);
        for (lo, hi) in busy {
            if lo > top && lo - top >= b.bytes && best.is_none_or(|(_, gap)| lo - top < gap) {
                best = Some((top, lo - top));
            }
            top = top.max(hi);
        }
        offsets[i] = best.map_or(top, |(offset, _)| offset);
        size = size.max(offsets[i] + b.bytes);
        placed.push(i);
    }
    (size, offsets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffers(spans: &[(usize, usize, usize)]) -> Vec<Buffer> {
        (spans.iter())
            .map(|&(bytes, start, end)| Buffer {
                entries: vec![],
                workspace_of: None,
                bytes,
                start,
                end,
                offset: 0,
            })
            .collect()
    }

    /// Six buffers (bytes, first step, last step) that best fit packs into 10 bytes in
    /// every one of its orders; raising the top ones reaches the bound, 9.
    #[test]
    fn raising_the_top_buffers_reaches_the_bound() {
        let spans = [
            (3, 4, 4),
            (1, 3, 4),
            (3, 3, 4),
            (4, 1, 3),
            (4, 0, 0),
            (2, 4, 5),
        ];
        let mut bufs = buffers(&spans);
        assert_eq!(lower_bound(&bufs), 9);
        assert_eq!(best_order(&bufs).0 .0, 10);
        assert_eq!(assign_offsets(&mut bufs), 9);
        for (i, a) in bufs.iter().enumerate() {
            assert!(a.offset + a.bytes <= 9);
            for b in &bufs[i + 1..] {
                let together = a.start <= b.end && b.start <= a.end;
                let apart = a.offset + a.bytes <= b.offset || b.offset + b.bytes <= a.offset;
                assert!(!together || apart, "{a:?} and {b:?} overlap");
            }
        }
    }
}
