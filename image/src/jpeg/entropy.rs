//! Huffman-coded scans into DCT coefficients: baseline and extended sequential, and the
//! four progressive scan kinds (DC first and refinement, AC first and refinement).
//!
//! Damaged data is read as libjpeg reads it, so that a damaged image decodes to the same
//! pixels: past the end of the data or at a marker inside a scan the bits are zeros, an
//! invalid Huffman code decodes as symbol 0, and a run of AC coefficients past the 64th
//! lands on the 64th (libjpeg's extra `jpeg_natural_order` entries).

use super::Frame;

/// Zig-zag position → natural (row-major) position, with libjpeg's 16 extra entries that
/// absorb a run past the last coefficient.
pub(super) const NATURAL_ORDER: [usize; 80] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
    13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
    52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63,
    63, 63, 63, 63, 63, 63,
];

/// Converts a table given in zig-zag order (as DQT stores it) to natural order.
pub fn natural_from_zigzag(zigzag: &[u16; 64]) -> [u16; 64] {
    let mut natural = [0; 64];
    for (k, &v) in zigzag.iter().enumerate() {
        natural[NATURAL_ORDER[k]] = v;
    }
    natural
}

/// Codes up to this many bits decode with one table lookup.
const LOOKAHEAD: u32 = 11;

/// A Huffman table (DHT) ready for decoding.
#[derive(Clone)]
pub struct Huffman {
    /// By the next `LOOKAHEAD` bits: the code's length (0: longer than `LOOKAHEAD`) and
    /// its symbol.
    fast: Vec<(u8, u8)>,
    /// By the next `LOOKAHEAD` bits, for an AC table (empty for a DC one): a whole
    /// coefficient when its code and value bits fit — (bits used, zero run before it,
    /// value); 0 bits used where not.
    fast_ac: Vec<(u8, u8, i16)>,
    /// By code length (index 1..=16): the largest code of that length (-1: none), and the
    /// index in `symbols` of its first code minus that code.
    max_code: [i32; 18],
    offset: [i32; 17],
    symbols: Vec<u8>,
}

impl Huffman {
    /// Builds the canonical code of `counts` (codes of each length 1..=16) and
    /// `symbols`, with the whole-coefficient table if it codes AC coefficients (`ac`);
    /// `None` if the counts overflow a 16-bit code space or disagree with the symbols.
    pub fn new(counts: &[u8; 16], symbols: &[u8], ac: bool) -> Option<Huffman> {
        let total: usize = counts.iter().map(|&c| usize::from(c)).sum();
        if total != symbols.len() || total > 256 {
            return None;
        }
        let mut fast = vec![(0u8, 0u8); 1 << LOOKAHEAD];
        let mut max_code = [-1i32; 18];
        let mut offset = [0i32; 17];
        let (mut code, mut index) = (0i32, 0usize);
        for len in 1..=16u32 {
            let count = usize::from(counts[len as usize - 1]);
            offset[len as usize] = index as i32 - code;
            for _ in 0..count {
                if code >= 1 << len {
                    return None;
                }
                if len <= LOOKAHEAD {
                    let shift = LOOKAHEAD - len;
                    let first = (code as usize) << shift;
                    for slot in &mut fast[first..first + (1 << shift)] {
                        *slot = (len as u8, symbols[index]);
                    }
                }
                code += 1;
                index += 1;
            }
            if count > 0 {
                max_code[len as usize] = code - 1;
            }
            code <<= 1;
        }
        // A sentinel that ends the search for codes longer than 16 bits.
        max_code[17] = i32::MAX;
        let fast_ac = (0..if ac { 1u32 << LOOKAHEAD } else { 0 })
            .map(|bits| {
                let (len, symbol) = fast[bits as usize];
                let (run, size) = (symbol >> 4, u32::from(symbol & 15));
                let used = u32::from(len) + size;
                if len == 0 || size == 0 || used > LOOKAHEAD {
                    return (0, 0, 0);
                }
                let raw = ((bits >> (LOOKAHEAD - used)) & ((1 << size) - 1)) as i32;
                (used as u8, run, extend(raw, size) as i16)
            })
            .collect();
        Some(Huffman {
            fast,
            fast_ac,
            max_code,
            offset,
            symbols: symbols.to_vec(),
        })
    }
}

/// The JPEG "EXTEND" of `n` raw bits: values below half the range are negative.
#[inline(always)]
fn extend(raw: i32, n: u32) -> i32 {
    if raw < 1 << (n - 1) {
        raw - (1 << n) + 1
    } else {
        raw
    }
}

/// Whether a byte of `word` is FF (`!word` then has a zero byte: the carry trick).
#[inline(always)]
pub(super) fn has_ff_byte(word: u64) -> bool {
    (!word).wrapping_sub(0x0101_0101_0101_0101) & word & 0x8080_8080_8080_8080 != 0
}

/// The entropy-coded bytes of a scan, read MSB first, with `FF 00` unstuffed.
pub struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    /// Buffered bits, left-aligned.
    acc: u64,
    count: u32,
    /// A marker (or the end of the data) was reached: zeros follow.
    at_marker: bool,
}

impl<'a> Bits<'a> {
    pub fn new(data: &'a [u8], pos: usize) -> Bits<'a> {
        Bits {
            data,
            pos,
            acc: 0,
            count: 0,
            at_marker: false,
        }
    }

    /// Where reading stopped: at the marker that ended the scan, or past the last byte
    /// read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Tops the buffer up to at least 56 bits: eight bytes at once where none of them is
    /// FF (the common case), else a byte at a time.
    #[inline(always)]
    fn fill(&mut self) {
        if let (false, Some(next)) = (self.at_marker, self.data.get(self.pos..self.pos + 8)) {
            let word = u64::from_be_bytes(next.try_into().expect("eight bytes"));
            if !has_ff_byte(word) {
                // Callers fill below 16 bits, so that 6 or 7 whole bytes fit.
                debug_assert!(self.count < 16);
                let take = (63 - self.count) / 8;
                self.acc |= (word >> (64 - 8 * take)) << (64 - self.count - 8 * take);
                self.count += 8 * take;
                self.pos += take as usize;
                return;
            }
        }
        (self.acc, self.count, self.pos, self.at_marker) =
            fill_bytes(self.data, self.pos, self.acc, self.count, self.at_marker);
    }

    #[inline(always)]
    fn peek(&mut self, n: u32) -> u32 {
        if self.count < n {
            self.fill();
        }
        (self.acc >> (64 - n)) as u32
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        self.acc <<= n;
        self.count -= n;
    }

    #[inline(always)]
    fn bits(&mut self, n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        let v = self.peek(n);
        self.consume(n);
        v
    }

    #[inline(always)]
    fn bit(&mut self) -> bool {
        self.bits(1) == 1
    }

    /// `n` bits as a signed value.
    #[inline(always)]
    fn signed(&mut self, n: u32) -> i32 {
        if n == 0 {
            return 0;
        }
        extend(self.bits(n) as i32, n)
    }

    #[inline(always)]
    fn decode(&mut self, table: &Huffman) -> u8 {
        let (len, symbol) = table.fast[self.peek(LOOKAHEAD) as usize];
        if len > 0 {
            self.consume(u32::from(len));
            return symbol;
        }
        let code16 = self.peek(16) as i32;
        let mut len = LOOKAHEAD as usize + 1;
        while (code16 >> (16 - len.min(16))) > table.max_code[len] {
            len += 1;
        }
        if len > 16 {
            // libjpeg's answer to a code no table has: symbol 0, 16 bits gone.
            self.consume(16);
            return 0;
        }
        self.consume(len as u32);
        let code = code16 >> (16 - len);
        table.symbols[(code + table.offset[len]) as usize]
    }

    /// At a restart interval's end: drops the padding bits and steps over the `RSTn`
    /// marker if it is there (if not, reading goes on from where it is, as libjpeg
    /// does when it cannot resynchronize).
    #[inline(always)]
    fn restart(&mut self) {
        self.acc = 0;
        self.count = 0;
        self.at_marker = false;
        let mut p = self.pos;
        while self.data.get(p) == Some(&0xFF) && self.data.get(p + 1) == Some(&0xFF) {
            p += 1;
        }
        if self.data.get(p) == Some(&0xFF) && matches!(self.data.get(p + 1), Some(0xD0..=0xD7)) {
            self.pos = p + 2;
        }
    }
}

/// [`Bits::fill`] a byte at a time: `FF 00` unstuffed, zeros from a marker (or the end of
/// the data) on. Takes and returns the reader's state by value, so that the reader
/// itself never escapes into a call and stays in registers.
#[cold]
#[inline(never)]
fn fill_bytes(
    data: &[u8],
    mut pos: usize,
    mut acc: u64,
    mut count: u32,
    mut at_marker: bool,
) -> (u64, u32, usize, bool) {
    while count <= 56 {
        let byte = if at_marker {
            0
        } else {
            match data.get(pos) {
                None => {
                    at_marker = true;
                    0
                }
                Some(&0xFF) => {
                    let mut next = pos + 1;
                    while data.get(next) == Some(&0xFF) {
                        next += 1;
                    }
                    if data.get(next) == Some(&0) {
                        pos = next + 1;
                        0xFF
                    } else {
                        pos = next - 1;
                        at_marker = true;
                        0
                    }
                }
                Some(&b) => {
                    pos += 1;
                    b
                }
            }
        };
        acc |= u64::from(byte) << (56 - count);
        count += 8;
    }
    (acc, count, pos, at_marker)
}

/// One component's part in a scan.
pub struct ScanComponent {
    /// Index into the frame's components.
    pub index: usize,
    pub dc_table: usize,
    pub ac_table: usize,
}

/// A scan header (SOS): which components, the spectral band and the successive
/// approximation bits.
pub struct Scan {
    pub components: Vec<ScanComponent>,
    pub spectral_start: usize,
    pub spectral_end: usize,
    pub approx_high: u32,
    pub approx_low: u32,
}

/// Why a scan cannot be decoded.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error("the scan uses {class} Huffman table {id} before a DHT defines it")]
    MissingTable { class: &'static str, id: usize },
    #[error("a DC difference of magnitude category {0}")]
    DcCategory(u32),
}

/// The Huffman tables of one component of a scan, `None` where no DHT defined them.
struct Tables<'t> {
    dc: (usize, Option<&'t Huffman>),
    ac: (usize, Option<&'t Huffman>),
}

impl<'t> Tables<'t> {
    fn dc(&self) -> Result<&'t Huffman, ScanError> {
        (self.dc.1).ok_or(ScanError::MissingTable {
            class: "DC",
            id: self.dc.0,
        })
    }

    fn ac(&self) -> Result<&'t Huffman, ScanError> {
        (self.ac.1).ok_or(ScanError::MissingTable {
            class: "AC",
            id: self.ac.0,
        })
    }
}

/// Decoding state that lives across the blocks of one scan.
struct State<'t> {
    sequential: bool,
    dc_pred: Vec<i32>,
    eob_run: u32,
    /// By the scan's component slot.
    tables: Vec<Tables<'t>>,
}

/// Decodes one scan starting at `data[pos]` into the frame's coefficient blocks; returns
/// where reading stopped. Inlined, so that it is compiled for the decoder's instruction
/// set.
#[inline(always)]
pub fn decode_scan(
    data: &[u8],
    pos: usize,
    frame: &Frame,
    coefficients: &mut [Vec<[i16; 64]>],
    scan: &Scan,
    (dc_tables, ac_tables): (&[Option<Huffman>; 4], &[Option<Huffman>; 4]),
    restart_interval: usize,
) -> Result<usize, ScanError> {
    let mut bits = Bits::new(data, pos);
    let mut state = State {
        sequential: !frame.progressive,
        dc_pred: vec![0; scan.components.len()],
        eob_run: 0,
        tables: (scan.components.iter())
            .map(|c| Tables {
                dc: (c.dc_table, dc_tables[c.dc_table].as_ref()),
                ac: (c.ac_table, ac_tables[c.ac_table].as_ref()),
            })
            .collect(),
    };
    let mut units = 0usize;
    let mut next_unit = |bits: &mut Bits, state: &mut State| {
        if restart_interval > 0 && units > 0 && units.is_multiple_of(restart_interval) {
            bits.restart();
            state.dc_pred.iter_mut().for_each(|p| *p = 0);
            state.eob_run = 0;
        }
        units += 1;
    };
    if let [c] = &scan.components[..] {
        // One component: its blocks that hold image data, row by row.
        let comp = &frame.components[c.index];
        let (bw, bh) = comp.blocks_with_data(frame);
        for by in 0..bh {
            for bx in 0..bw {
                next_unit(&mut bits, &mut state);
                let block = &mut coefficients[c.index][by * comp.blocks_wide + bx];
                decode_block(&mut bits, &mut state, scan, 0, block)?;
            }
        }
    } else {
        // Several components interleave: whole MCUs, each its components' blocks.
        let (mx, my) = frame.mcus();
        for y in 0..my {
            for x in 0..mx {
                next_unit(&mut bits, &mut state);
                for (slot, c) in scan.components.iter().enumerate() {
                    let comp = &frame.components[c.index];
                    for v in 0..comp.v {
                        for h in 0..comp.h {
                            let (bx, by) = (x * comp.h + h, y * comp.v + v);
                            let block = &mut coefficients[c.index][by * comp.blocks_wide + bx];
                            decode_block(&mut bits, &mut state, scan, slot, block)?;
                        }
                    }
                }
            }
        }
    }
    Ok(bits.position())
}

#[inline(always)]
fn decode_block(
    bits: &mut Bits,
    state: &mut State,
    scan: &Scan,
    slot: usize,
    block: &mut [i16; 64],
) -> Result<(), ScanError> {
    let (ss, se, al) = (scan.spectral_start, scan.spectral_end, scan.approx_low);
    if ss == 0 {
        if scan.approx_high == 0 {
            let magnitude = u32::from(bits.decode(state.tables[slot].dc()?));
            if magnitude > 16 {
                return Err(ScanError::DcCategory(magnitude));
            }
            state.dc_pred[slot] = state.dc_pred[slot].wrapping_add(bits.signed(magnitude));
            block[0] = (state.dc_pred[slot] << al) as i16;
        } else if bits.bit() {
            block[0] |= 1 << al;
        }
        if se == 0 {
            return Ok(());
        }
    }
    let table = state.tables[slot].ac()?;
    if state.sequential {
        ac_first(bits, None, table, block, 1, 63, 0);
    } else if scan.approx_high == 0 {
        ac_first(bits, Some(&mut state.eob_run), table, block, ss, se, al);
    } else {
        ac_refine(bits, &mut state.eob_run, table, block, ss, se, al);
    }
    Ok(())
}

/// AC coefficients `first..=last` coded for the first time, scaled by `2^al`: all of a
/// sequential block (`eob_run` `None`: an end of block ends it), or a progressive scan's
/// band (its end-of-band runs counted in `eob_run`).
#[inline(always)]
fn ac_first(
    bits: &mut Bits,
    mut eob_run: Option<&mut u32>,
    table: &Huffman,
    block: &mut [i16; 64],
    first: usize,
    last: usize,
    al: u32,
) {
    if let Some(run) = eob_run.as_deref_mut().filter(|run| **run > 0) {
        *run -= 1;
        return;
    }
    let mut k = first;
    while k <= last {
        let (used, run, value) = table.fast_ac[bits.peek(LOOKAHEAD) as usize];
        if used > 0 {
            bits.consume(u32::from(used));
            k += usize::from(run);
            block[NATURAL_ORDER[k]] = value << al;
            k += 1;
            continue;
        }
        let rs = bits.decode(table);
        let (run, size) = (usize::from(rs >> 4), u32::from(rs & 15));
        if size != 0 {
            k += run;
            block[NATURAL_ORDER[k]] = (bits.signed(size) << al) as i16;
        } else if run == 15 {
            k += 15;
        } else {
            if let Some(eob_run) = eob_run {
                *eob_run = (1 << run) - 1 + bits.bits(run as u32);
            }
            return;
        }
        k += 1;
    }
}

/// A later, one-bit refinement of AC coefficients `first..=last` (libjpeg's
/// `decode_mcu_AC_refine`).
#[inline(always)]
fn ac_refine(
    bits: &mut Bits,
    eob_run: &mut u32,
    table: &Huffman,
    block: &mut [i16; 64],
    first: usize,
    last: usize,
    al: u32,
) {
    let plus = 1i16 << al;
    let minus = (-1i16) << al;
    let refine = |bits: &mut Bits, coef: &mut i16| {
        if bits.bit() && *coef & plus == 0 {
            *coef = coef.wrapping_add(if *coef >= 0 { plus } else { minus });
        }
    };
    let mut k = first;
    if *eob_run == 0 {
        while k <= last {
            let rs = bits.decode(table);
            let (mut run, size) = (i32::from(rs >> 4), rs & 15);
            let mut value = 0i16;
            if size != 0 {
                value = if bits.bit() { plus } else { minus };
            } else if run != 15 {
                *eob_run = (1 << run) + bits.bits(run as u32);
                break;
            }
            while k <= last {
                let coef = &mut block[NATURAL_ORDER[k]];
                if *coef != 0 {
                    refine(bits, coef);
                } else {
                    run -= 1;
                    if run < 0 {
                        break;
                    }
                }
                k += 1;
            }
            if value != 0 {
                block[NATURAL_ORDER[k]] = value;
            }
            k += 1;
        }
    }
    if *eob_run > 0 {
        while k <= last {
            let coef = &mut block[NATURAL_ORDER[k]];
            if *coef != 0 {
                refine(bits, coef);
            }
            k += 1;
        }
        *eob_run -= 1;
    }
}
