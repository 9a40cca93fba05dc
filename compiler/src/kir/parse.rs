//! The kernel IR's textual form read back: [`parse_kernel`] reads what a [`Kernel`] prints,
//! [`parse_nest`] what a [`LoopNest`] prints, so `parse(print(x)) == x` and printing the
//! result again gives the same text (tested on random kernels and on every kernel of
//! small zoo-like graphs in `compiler/tests/kir_parse.rs`). The filetests
//! (`compiler/tests/filetests/`, run by `compiler/tests/kir_filetests.rs`) are written in
//! it.
//!
//! # The format
//!
//! Whitespace and line breaks only separate tokens; `;` starts a comment that runs to the
//! end of the line. A kernel:
//!
//! ```text
//! kernel k0(x: float32[12], w: float32[4]) -> (y: float32[3]) compute float32 {
//!   domain [3]
//!   t0 = reduce_sum(r0 < 4: mul(in0[(i0*4 + r0)], in1[r0]))
//!   out0 = max(t0, 0.0)
//! }
//! ```
//!
//! A loop nest has the same header and statements instead of the domain:
//!
//! ```text
//! kernel k0(x: float32[12], w: float32[4]) -> (y: float32[3]) compute float32 {
//!   for i0 in 0..3 (Parallel) {
//!     t0 = reduce_sum(r0 < 4: mul(in0[(i0*4 + r0)], in1[r0]))
//!     out0[i0] = max(t0, 0.0)
//!   }
//! }
//! ```
//!
//! The grammar (`N` a decimal number, `'x'` a token, `a % ','` a possibly empty list of
//! `a` separated by commas):
//!
//! ```text
//! kernel  := header 'domain' '[' idx % ',' ']' ('t'N '=' val)* ('out'N '=' val)* '}'
//! nest    := header stmt* '}'
//! header  := 'kernel' name '(' buffer % ',' ')' '->' '(' buffer % ',' ')'
//!            'compute' dtype '{'
//! buffer  := name ':' dtype '[' idx ']'
//! name    := identifier | "quoted"               ; Rust's string escapes
//! dtype   := float32 | float64 | float16 | bfloat16 | uint8 | int32 | int8 | int64 | bool
//! stmt    := 'for' 'i'N 'in' '0' '..' idx '(' kind ')' '{' stmt* '}'
//!          | 't'N '=' val
//!          | 'out'N '[' idx ']' '=' val
//! kind    := 'Serial' | 'Parallel' | 'Vectorized' '(' N ')'
//!          | 'GpuBlock' '(' N ')' | 'GpuThread' '(' N ')'
//! idx     := atom ('*' atom)*                    ; products associate to the left
//! atom    := integer | 'i'N | 'D'N | 'r'N
//!          | '(' idx ')' | '(' idx ('+' | '/' | '%') idx ')'
//! val     := float                               ; 1.0, -0.5, 1e-7, inf, -inf, NaN
//!          | 'in'N '[' idx ']' | 't'N | 'shared' '[' idx ']'
//!          | unary '(' val ')' | bits '(' val ')' | binary '(' val ',' val ')'
//!          | 'select' '(' val ',' val ',' val ')'
//!          | 'reduce_'combiner '(' ('r'N '<' idx) % ',' (',' 'l'N '=' val)* ':' val ')'
//!          | 'l'N                                ; a local of the enclosing reduction
//!          | idx                                 ; an index used as a value
//! ```
//!
//! `i`N is domain coordinate N ([`Idx::Coord`]), `D`N symbolic dimension N, `r`N
//! reduction coordinate N, `t`N temporary N, `l`N local N of the enclosing reduction
//! (computed at each of its points before its body), `in`N and `out`N the N-th input and
//! output buffer. `unary`, `binary`, `bits` and `combiner` are the lowercase names of
//! [`Unary`], [`Binary`], [`BitOp`] and [`Combiner`] variants (`exp`, `max`, `pow2i`,
//! `sum`). A value constant always has a point, an exponent, `inf` or `NaN` (`0.0`), an
//! integer in value position is an index (`lt(i0, 7)`: [`Val::Index`]).
//!
//! Beyond the syntax, a kernel is checked where its text can be wrong by hand: buffer
//! numbers exist, temporaries and a reduction's locals are numbered in order and read only
//! earlier ones, outputs
//! are numbered in order with one value per output buffer, coordinates name domain axes
//! (in a nest: enclosing loops), reduction coordinates appear only in a reduction's body
//! and name its axes (`r0 < e0, r1 < e1`, numbered in order). Errors ([`ParseError`])
//! name the line and column and what was expected there. No input panics: nesting deeper
//! than [`MAX_DEPTH`] is refused rather than overflowing the stack.

use super::ir::{BitOp, Buffer, Idx, Kernel, LoopKind, LoopNest, Stmt, Val};
use kiln_ops::expr::{Binary, Unary};
use kiln_ops::{Combiner, DType};

/// Why a text is not a kernel or loop nest: at `line` and `column` (1-based, in
/// characters), `expected` was expected and `found` found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: expected {expected}, found {found}")]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub expected: String,
    pub found: String,
}

/// The deepest nesting of values and indices accepted (each operand, factor and
/// parenthesis one level), and separately of loops (so of a kernel's domain axes): the
/// parser, printers and destructors recurse, and this much fits a test thread's 2 MiB
/// stack unoptimized.
pub const MAX_DEPTH: usize = 200;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Int(i64),
    Float(f64),
    Str(String),
    Punct(&'static str),
    Eof,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    /// The source text of the token, for messages.
    text: String,
    line: usize,
    column: usize,
}

impl Token {
    fn describe(&self) -> String {
        match self.tok {
            Tok::Eof => "the end of the input".to_string(),
            _ => format!("`{}`", self.text),
        }
    }
}

const PUNCTS: [&str; 16] = [
    "->", "..", "(", ")", "[", "]", "{", "}", ",", ":", "=", "+", "*", "/", "%", "<",
];

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    line: usize,
    column: usize,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn looking_at(&self, s: &str) -> bool {
        s.chars().enumerate().all(|(i, c)| self.peek(i) == Some(c))
    }

    fn error(&self, line: usize, column: usize, expected: &str, found: String) -> ParseError {
        ParseError {
            line,
            column,
            expected: expected.to_string(),
            found,
        }
    }

    fn tokens(mut self) -> Result<(Vec<Token>, Token), ParseError> {
        let mut out = Vec::new();
        loop {
            // Whitespace and comments.
            while let Some(c) = self.peek(0) {
                if c.is_whitespace() {
                    self.bump();
                } else if c == ';' {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                } else {
                    break;
                }
            }
            let (line, column, start) = (self.line, self.column, self.pos);
            let Some(c) = self.peek(0) else {
                let eof = Token {
                    tok: Tok::Eof,
                    text: String::new(),
                    line,
                    column,
                };
                return Ok((out, eof));
            };
            let tok = if let Some(p) = PUNCTS.iter().find(|p| self.looking_at(p)) {
                for _ in 0..p.len() {
                    self.bump();
                }
                Tok::Punct(p)
            } else if c.is_ascii_digit() || c == '-' {
                self.number(line, column)?
            } else if c.is_ascii_alphabetic() || c == '_' {
                let mut s = String::new();
                while let Some(c) = self
                    .peek(0)
                    .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    s.push(c);
                    self.bump();
                }
                Tok::Ident(s)
            } else if c == '"' {
                self.string(line, column)?
            } else {
                return Err(self.error(line, column, "a token", format!("`{c}`")));
            };
            let text = self.chars.get(start..self.pos).unwrap_or_default();
            out.push(Token {
                tok,
                text: text.iter().collect(),
                line,
                column,
            });
        }
    }

    fn digits(&mut self, s: &mut String) {
        while let Some(c) = self.peek(0).filter(char::is_ascii_digit) {
            s.push(c);
            self.bump();
        }
    }

    /// An integer, or a float with a point, an exponent or `-inf`.
    fn number(&mut self, line: usize, column: usize) -> Result<Tok, ParseError> {
        let mut s = String::new();
        if self.peek(0) == Some('-') {
            s.push('-');
            self.bump();
            let ident = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            if self.looking_at("inf") && !ident(self.peek(3)) {
                for _ in 0..3 {
                    self.bump();
                }
                return Ok(Tok::Float(f64::NEG_INFINITY));
            }
            if !self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                let found = self
                    .peek(0)
                    .map_or("the end of the input".to_string(), |c| format!("`{c}`"));
                return Err(self.error(line, column, "a number after `-`", found));
            }
        }
        self.digits(&mut s);
        let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        let mut float = false;
        if self.peek(0) == Some('.') && digit(self.peek(1)) {
            float = true;
            s.push('.');
            self.bump();
            self.digits(&mut s);
        }
        if matches!(self.peek(0), Some('e' | 'E'))
            && (digit(self.peek(1))
                || (matches!(self.peek(1), Some('+' | '-')) && digit(self.peek(2))))
        {
            float = true;
            for _ in 0..2 {
                if let Some(c) = self.bump() {
                    s.push(c);
                }
            }
            self.digits(&mut s);
        }
        if float {
            s.parse()
                .map(Tok::Float)
                .map_err(|_| self.error(line, column, "a number", format!("`{s}`")))
        } else {
            s.parse().map(Tok::Int).map_err(|_| {
                self.error(
                    line,
                    column,
                    "an integer that fits in 64 bits",
                    format!("`{s}`"),
                )
            })
        }
    }

    /// A quoted name with Rust's escapes (what `{:?}` of a `str` writes).
    fn string(&mut self, line: usize, column: usize) -> Result<Tok, ParseError> {
        self.bump();
        let mut s = String::new();
        loop {
            let (l, c) = (self.line, self.column);
            match self.bump() {
                None => {
                    return Err(self.error(
                        line,
                        column,
                        "a closing `\"` for this name",
                        "the end of the input".to_string(),
                    ))
                }
                Some('"') => return Ok(Tok::Str(s)),
                Some('\\') => {
                    let e = self.bump();
                    let plain = match e {
                        Some('n') => Some('\n'),
                        Some('t') => Some('\t'),
                        Some('r') => Some('\r'),
                        Some('0') => Some('\0'),
                        Some(q @ ('\\' | '"' | '\'')) => Some(q),
                        _ => None,
                    };
                    match (plain, e) {
                        (Some(p), _) => s.push(p),
                        (None, Some('u')) => s.push(self.unicode(l, c)?),
                        (None, e) => {
                            let found = e
                                .map_or("the end of the input".to_string(), |e| format!("`\\{e}`"));
                            return Err(self.error(l, c, "an escape", found));
                        }
                    }
                }
                Some(ch) => s.push(ch),
            }
        }
    }

    /// The `{XXXX}` of a `\u{XXXX}` escape.
    fn unicode(&mut self, line: usize, column: usize) -> Result<char, ParseError> {
        let bad = |lx: &Lexer, found: String| {
            lx.error(line, column, "a unicode escape `\\u{XXXX}`", found)
        };
        if self.bump() != Some('{') {
            return Err(bad(self, "a malformed escape".to_string()));
        }
        let mut hex = String::new();
        while let Some(c) = self
            .peek(0)
            .filter(|c| c.is_ascii_hexdigit() && hex.len() < 6)
        {
            hex.push(c);
            self.bump();
        }
        if self.bump() != Some('}') {
            return Err(bad(self, "a malformed escape".to_string()));
        }
        u32::from_str_radix(&hex, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| bad(self, format!("`\\u{{{hex}}}`")))
    }
}

/// Which domain coordinates may appear.
enum Coords {
    /// `i0..iN` (a kernel's values), none in buffer lengths and extents.
    Rank(usize),
    /// The axes of the enclosing loops (a loop nest).
    Loops(Vec<usize>),
}

/// What a value starts with, once its first token is read.
enum Head {
    Const(f64),
    /// An index expression, its first token not consumed.
    Index,
    Load(usize),
    Temp(usize),
    Local(usize),
    Shared,
    Select,
    Reduce(Combiner),
    Unary(Unary),
    Bits(BitOp),
    Binary(Binary),
}

/// Errors boxed inside the parser: the `?` of every step then moves a pointer, which
/// keeps the recursive functions' frames small.
type PResult<T> = Result<T, Box<ParseError>>;

struct Parser {
    toks: Vec<Token>,
    eof: Token,
    pos: usize,
    /// Nesting of values and indices.
    depth: usize,
    /// Nesting of loops.
    loops: usize,
    coords: Coords,
    /// The axis count of the innermost enclosing reduction.
    red: Option<usize>,
    /// The locals of the innermost enclosing reduction defined so far.
    locals: usize,
    inputs: usize,
    /// Temporaries a value may read (`None`: any, in loop nests).
    temps: Option<usize>,
}

/// The number `N` of an identifier `prefixN`.
fn numbered(s: &str, prefix: &str) -> Option<usize> {
    let rest = s.strip_prefix(prefix)?;
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    rest.parse().ok()
}

fn lower_name(d: &impl std::fmt::Debug) -> String {
    format!("{d:?}").to_lowercase()
}

const BIT_OPS: [BitOp; 3] = [BitOp::Pow2i, BitOp::Exponent, BitOp::Mantissa];
const COMBINERS: [Combiner; 4] = [Combiner::Sum, Combiner::Prod, Combiner::Max, Combiner::Min];

// The functions values and indices recurse through (`val`, `val_at`, `idx`, `product`,
// `atom`, `group`, `reduce`) keep their frames small, so MAX_DEPTH levels fit a thread's
// stack even unoptimized: messages are formatted and names looked up in functions of
// their own.
impl Parser {
    fn new(src: &str) -> Result<Parser, ParseError> {
        let lexer = Lexer {
            chars: src.chars().collect(),
            pos: 0,
            line: 1,
            column: 1,
        };
        let (toks, eof) = lexer.tokens()?;
        Ok(Parser {
            toks,
            eof,
            pos: 0,
            depth: 0,
            loops: 0,
            coords: Coords::Rank(0),
            red: None,
            locals: 0,
            inputs: 0,
            temps: None,
        })
    }

    fn token(&self, pos: usize) -> &Token {
        self.toks.get(pos).unwrap_or(&self.eof)
    }

    fn tok(&self) -> &Tok {
        &self.token(self.pos).tok
    }

    fn bump(&mut self) {
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
    }

    /// The error at token `pos`.
    #[cold]
    #[inline(never)]
    fn fail<T>(&self, pos: usize, expected: impl FnOnce() -> String) -> PResult<T> {
        let t = self.token(pos);
        Err(Box::new(ParseError {
            line: t.line,
            column: t.column,
            expected: expected(),
            found: t.describe(),
        }))
    }

    fn at_punct(&self, p: &str) -> bool {
        matches!(self.tok(), Tok::Punct(q) if *q == p)
    }

    fn ident(&self) -> Option<&str> {
        match self.tok() {
            Tok::Ident(s) => Some(s),
            _ => None,
        }
    }

    fn punct(&mut self, p: &'static str) -> PResult<()> {
        if self.at_punct(p) {
            self.bump();
            Ok(())
        } else {
            self.fail(self.pos, || format!("`{p}`"))
        }
    }

    fn keyword(&mut self, k: &'static str) -> PResult<()> {
        if self.ident() == Some(k) {
            self.bump();
            Ok(())
        } else {
            self.fail(self.pos, || format!("`{k}`"))
        }
    }

    /// One level deeper, refused past [`MAX_DEPTH`].
    fn deeper(&mut self) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            return self.fail(self.pos, || format!("nesting at most {MAX_DEPTH} deep"));
        }
        self.depth += 1;
        Ok(())
    }

    fn end(&self) -> PResult<()> {
        match self.tok() {
            Tok::Eof => Ok(()),
            _ => self.fail(self.pos, || "the end of the input".to_string()),
        }
    }

    fn name(&mut self) -> PResult<String> {
        let name = match self.tok() {
            Tok::Ident(s) | Tok::Str(s) => s.clone(),
            _ => return self.fail(self.pos, || "a name".to_string()),
        };
        self.bump();
        Ok(name)
    }

    fn dtype(&mut self) -> PResult<DType> {
        let d = self
            .ident()
            .and_then(|s| DType::ALL.into_iter().find(|d| d.name() == s));
        match d {
            Some(d) => {
                self.bump();
                Ok(d)
            }
            None => self.fail(self.pos, || {
                "a dtype (`float32`, `float64`, ...)".to_string()
            }),
        }
    }

    fn buffers(&mut self) -> PResult<Vec<Buffer>> {
        self.punct("(")?;
        let mut bs = Vec::new();
        if self.at_punct(")") {
            self.bump();
            return Ok(bs);
        }
        loop {
            let name = self.name()?;
            self.punct(":")?;
            let dtype = self.dtype()?;
            self.punct("[")?;
            let len = self.idx()?;
            self.punct("]")?;
            bs.push(Buffer { name, dtype, len });
            if self.at_punct(",") {
                self.bump();
            } else {
                self.punct(")")?;
                return Ok(bs);
            }
        }
    }

    fn header(&mut self) -> PResult<(String, Vec<Buffer>, Vec<Buffer>, DType)> {
        self.coords = Coords::Rank(0);
        self.keyword("kernel")?;
        let name = self.name()?;
        let inputs = self.buffers()?;
        self.punct("->")?;
        let outputs = self.buffers()?;
        self.keyword("compute")?;
        let compute = self.dtype()?;
        self.punct("{")?;
        self.inputs = inputs.len();
        Ok((name, inputs, outputs, compute))
    }

    fn kernel(&mut self) -> PResult<Kernel> {
        let (name, inputs, outputs, compute) = self.header()?;
        self.keyword("domain")?;
        self.punct("[")?;
        let mut domain = Vec::new();
        while !self.at_punct("]") {
            if !domain.is_empty() {
                self.punct(",")?;
            }
            if domain.len() >= MAX_DEPTH {
                // Its loop nest would nest loops deeper than a nest may.
                return self.fail(self.pos, || format!("at most {MAX_DEPTH} domain axes"));
            }
            domain.push(self.idx()?);
        }
        self.bump();
        self.coords = Coords::Rank(domain.len());
        let (mut temps, mut values) = (Vec::new(), Vec::<Val>::new());
        loop {
            let (t, o) = match self.ident() {
                Some(s) => (numbered(s, "t"), numbered(s, "out")),
                None => (None, None),
            };
            let (nt, nv, no) = (temps.len(), values.len(), outputs.len());
            if t.is_some() && t == Some(nt) && nv == 0 {
                self.bump();
                self.punct("=")?;
                self.temps = Some(nt);
                temps.push(self.val()?);
            } else if o.is_some() && o == Some(nv) && nv < no {
                self.bump();
                self.punct("=")?;
                self.temps = Some(nt);
                values.push(self.val()?);
            } else if self.at_punct("}") && nv == no {
                self.bump();
                break;
            } else {
                return self.fail(self.pos, || match (nv < no, nv == 0) {
                    (true, true) => format!("`t{nt}` or `out{nv}`"),
                    (true, false) => format!("`out{nv}`"),
                    (false, true) => format!("`t{nt}` or `}}`"),
                    (false, false) => "`}`".to_string(),
                });
            }
        }
        Ok(Kernel {
            name,
            domain,
            inputs,
            outputs,
            temps,
            values,
            compute,
        })
    }

    fn nest(&mut self) -> PResult<LoopNest> {
        let (name, inputs, outputs, compute) = self.header()?;
        self.coords = Coords::Loops(vec![]);
        self.temps = None;
        let body = self.stmts(outputs.len())?;
        Ok(LoopNest {
            name,
            inputs,
            outputs,
            compute,
            body,
        })
    }

    /// Statements up to and including the closing `}`.
    fn stmts(&mut self, outputs: usize) -> PResult<Vec<Stmt>> {
        let mut body = Vec::new();
        loop {
            if self.at_punct("}") {
                self.bump();
                return Ok(body);
            }
            let (is_for, temp, output) = match self.ident() {
                Some(s) => (s == "for", numbered(s, "t"), numbered(s, "out")),
                None => (false, None, None),
            };
            let at = self.pos;
            self.bump();
            if is_for {
                body.push(self.for_loop(outputs)?);
            } else if let Some(temp) = temp {
                self.punct("=")?;
                let value = self.val()?;
                body.push(Stmt::Let { temp, value });
            } else if let Some(output) = output {
                if output >= outputs {
                    return self.fail(at, || format!("an output below out{outputs}"));
                }
                self.punct("[")?;
                let index = self.idx()?;
                self.punct("]")?;
                self.punct("=")?;
                let value = self.val()?;
                body.push(Stmt::Store {
                    output,
                    index,
                    value,
                });
            } else {
                return self.fail(at, || {
                    "`for`, `tN = ...`, `outN[...] = ...` or `}`".to_string()
                });
            }
        }
    }

    /// After `for`: the loop, its body up to its `}`.
    fn for_loop(&mut self, outputs: usize) -> PResult<Stmt> {
        if self.loops >= MAX_DEPTH {
            return self.fail(self.pos, || {
                format!("loops nested at most {MAX_DEPTH} deep")
            });
        }
        let Some(axis) = self.ident().and_then(|s| numbered(s, "i")) else {
            return self.fail(self.pos, || "a loop coordinate `iN`".to_string());
        };
        self.bump();
        self.keyword("in")?;
        if *self.tok() != Tok::Int(0) {
            return self.fail(self.pos, || "`0`".to_string());
        }
        self.bump();
        self.punct("..")?;
        let extent = self.idx()?;
        self.punct("(")?;
        let kind = self.kind()?;
        self.punct(")")?;
        self.punct("{")?;
        if let Coords::Loops(l) = &mut self.coords {
            l.push(axis);
        }
        self.loops += 1;
        let body = self.stmts(outputs);
        self.loops -= 1;
        if let Coords::Loops(l) = &mut self.coords {
            l.pop();
        }
        Ok(Stmt::Loop {
            axis,
            extent,
            kind,
            body: body?,
        })
    }

    fn kind(&mut self) -> PResult<LoopKind> {
        let what = || {
            "a loop kind (`Serial`, `Parallel`, `Vectorized(N)`, `GpuBlock(N)`, `GpuThread(N)`)"
                .to_string()
        };
        let Some(name) = self.ident().map(str::to_string) else {
            return self.fail(self.pos, what);
        };
        match name.as_str() {
            "Serial" | "Parallel" | "Vectorized" | "GpuBlock" | "GpuThread" => {}
            _ => return self.fail(self.pos, what),
        }
        self.bump();
        match name.as_str() {
            "Serial" => return Ok(LoopKind::Serial),
            "Parallel" => return Ok(LoopKind::Parallel),
            _ => {}
        }
        self.punct("(")?;
        let v = match self.tok() {
            Tok::Int(v) => Some(*v),
            _ => None,
        };
        let kind = match name.as_str() {
            "Vectorized" => v
                .and_then(|v| u32::try_from(v).ok())
                .map(LoopKind::Vectorized),
            "GpuBlock" => v.and_then(|v| u8::try_from(v).ok()).map(LoopKind::GpuBlock),
            _ => v
                .and_then(|v| u8::try_from(v).ok())
                .map(LoopKind::GpuThread),
        };
        let Some(kind) = kind else {
            return self.fail(self.pos, || format!("the width or dimension of {name}"));
        };
        self.bump();
        self.punct(")")?;
        Ok(kind)
    }

    /// An index expression: factors multiplied left to right, each one level deeper.
    fn idx(&mut self) -> PResult<Idx> {
        let depth = self.depth;
        let r = self.product();
        self.depth = depth;
        r
    }

    fn product(&mut self) -> PResult<Idx> {
        let mut acc = self.atom()?;
        while self.at_punct("*") {
            self.bump();
            self.deeper()?;
            let rhs = self.atom()?;
            acc = Idx::Mul(Box::new(acc), Box::new(rhs));
        }
        Ok(acc)
    }

    fn atom(&mut self) -> PResult<Idx> {
        match self.tok() {
            Tok::Int(c) => {
                let c = *c;
                self.bump();
                Ok(Idx::Const(c))
            }
            Tok::Punct("(") => {
                self.bump();
                self.deeper()?;
                let r = self.group();
                self.depth -= 1;
                r
            }
            _ => self.coordinate(),
        }
    }

    /// After `(`: `a)` or `a op b)`.
    fn group(&mut self) -> PResult<Idx> {
        let a = self.idx()?;
        let build: fn(Box<Idx>, Box<Idx>) -> Idx = match self.tok() {
            Tok::Punct(")") => {
                self.bump();
                return Ok(a);
            }
            Tok::Punct("+") => Idx::Add,
            Tok::Punct("/") => Idx::Div,
            Tok::Punct("%") => Idx::Mod,
            _ => return self.fail(self.pos, || "`+`, `/`, `%`, `*` or `)`".to_string()),
        };
        self.bump();
        let b = self.idx()?;
        self.punct(")")?;
        Ok(build(Box::new(a), Box::new(b)))
    }

    /// `iN`, `DN` or `rN`, checked against the coordinates in scope.
    #[inline(never)]
    fn coordinate(&mut self) -> PResult<Idx> {
        let (at, s) = match self.tok() {
            Tok::Ident(s) => (self.pos, s.as_str()),
            _ => return self.fail(self.pos, || "an index expression".to_string()),
        };
        let idx = if let Some(a) = numbered(s, "i") {
            let ok = match &self.coords {
                Coords::Rank(r) => a < *r,
                Coords::Loops(l) => l.contains(&a),
            };
            if !ok {
                return self.fail(at, || match &self.coords {
                    Coords::Rank(0) => {
                        "an index without coordinates (a length or an extent)".to_string()
                    }
                    Coords::Rank(r) => format!("a domain coordinate below i{r}"),
                    Coords::Loops(_) => "the coordinate of an enclosing loop".to_string(),
                });
            }
            Idx::Coord(a)
        } else if let Some(d) = numbered(s, "D") {
            Idx::Dim(d)
        } else if let Some(k) = numbered(s, "r") {
            match self.red {
                Some(n) if k < n => Idx::Red(k),
                Some(n) => return self.fail(at, || format!("a reduction coordinate below r{n}")),
                None => {
                    return self.fail(at, || {
                        "an index expression (reduction coordinates only inside a reduction)"
                            .to_string()
                    })
                }
            }
        } else {
            return self.fail(at, || "an index expression".to_string());
        };
        self.bump();
        Ok(idx)
    }

    fn val(&mut self) -> PResult<Val> {
        self.deeper()?;
        let r = self.val_at();
        self.depth -= 1;
        r
    }

    fn val_at(&mut self) -> PResult<Val> {
        match self.head()? {
            Head::Const(c) => Ok(Val::Const(c)),
            Head::Index => self.idx().map(Val::Index),
            Head::Temp(t) => Ok(Val::Temp(t)),
            Head::Local(l) => Ok(Val::Local(l)),
            Head::Load(buffer) => {
                let index = self.bracketed()?;
                Ok(Val::Load { buffer, index })
            }
            Head::Shared => self.bracketed().map(Val::Shared),
            Head::Unary(op) => self.one().map(|a| Val::Unary(op, a)),
            Head::Bits(op) => self.one().map(|a| Val::Bits(op, a)),
            Head::Binary(op) => self.two().map(|(x, y)| Val::Binary(op, x, y)),
            Head::Select => self.three(),
            Head::Reduce(combiner) => self.reduce(combiner),
        }
    }

    /// `[idx]`.
    fn bracketed(&mut self) -> PResult<Idx> {
        self.punct("[")?;
        let index = self.idx()?;
        self.punct("]")?;
        Ok(index)
    }

    /// `(a)`.
    fn one(&mut self) -> PResult<Box<Val>> {
        self.punct("(")?;
        let a = self.val()?;
        self.punct(")")?;
        Ok(Box::new(a))
    }

    /// `(a, b)`.
    fn two(&mut self) -> PResult<(Box<Val>, Box<Val>)> {
        self.punct("(")?;
        let x = self.val()?;
        self.punct(",")?;
        let y = self.val()?;
        self.punct(")")?;
        Ok((Box::new(x), Box::new(y)))
    }

    /// `(c, a, b)` after `select`.
    fn three(&mut self) -> PResult<Val> {
        self.punct("(")?;
        let c = self.val()?;
        self.punct(",")?;
        let x = self.val()?;
        self.punct(",")?;
        let y = self.val()?;
        self.punct(")")?;
        Ok(Val::Select(Box::new(c), Box::new(x), Box::new(y)))
    }

    /// What the value starts with: its first token read and checked (buffer and
    /// temporary numbers), except an index expression's.
    #[inline(never)]
    fn head(&mut self) -> PResult<Head> {
        let at = self.pos;
        let s = match self.tok() {
            Tok::Float(c) => {
                let c = *c;
                self.bump();
                return Ok(Head::Const(c));
            }
            Tok::Int(_) | Tok::Punct("(") => return Ok(Head::Index),
            Tok::Ident(s) => s.as_str(),
            _ => return self.fail(at, || "a value".to_string()),
        };
        if ["i", "D", "r"].iter().any(|p| numbered(s, p).is_some()) {
            return Ok(Head::Index);
        }
        let head = if s == "inf" {
            Head::Const(f64::INFINITY)
        } else if s == "NaN" {
            Head::Const(f64::NAN)
        } else if let Some(buffer) = numbered(s, "in") {
            if buffer >= self.inputs {
                return self.fail(at, || format!("an input below in{}", self.inputs));
            }
            Head::Load(buffer)
        } else if let Some(u) = numbered(s, "t") {
            match self.temps {
                Some(0) => {
                    return self.fail(at, || {
                        "no temporary here (none is computed before)".to_string()
                    })
                }
                Some(n) if u >= n => return self.fail(at, || format!("a temporary below t{n}")),
                _ => Head::Temp(u),
            }
        } else if let Some(l) = numbered(s, "l") {
            if self.red.is_none() {
                return self.fail(at, || {
                    "a value (locals exist only in reductions)".to_string()
                });
            }
            if l >= self.locals {
                return self.fail(at, || format!("a local below l{}", self.locals));
            }
            Head::Local(l)
        } else if s == "shared" {
            Head::Shared
        } else if s == "select" {
            Head::Select
        } else if let Some(c) = s.strip_prefix("reduce_") {
            match COMBINERS.into_iter().find(|k| lower_name(k) == c) {
                Some(c) => Head::Reduce(c),
                None => {
                    return self.fail(at, || {
                        "a combiner (`reduce_sum`, `reduce_prod`, `reduce_max`, `reduce_min`)"
                            .to_string()
                    })
                }
            }
        } else if let Some(op) = Unary::ALL.into_iter().find(|u| lower_name(u) == s) {
            Head::Unary(op)
        } else if let Some(op) = BIT_OPS.into_iter().find(|u| lower_name(u) == s) {
            Head::Bits(op)
        } else if let Some(op) = Binary::ALL.into_iter().find(|u| lower_name(u) == s) {
            Head::Binary(op)
        } else {
            return self.fail(at, || "a value".to_string());
        };
        self.bump();
        Ok(head)
    }

    /// After `reduce_<combiner>`: `(r0 < e0, .., l0 = v0, ..: body)`.
    fn reduce(&mut self, combiner: Combiner) -> PResult<Val> {
        self.punct("(")?;
        let mut extents = Vec::new();
        while !self.at_punct(":") && !self.at_local() {
            if !extents.is_empty() {
                self.punct(",")?;
                if self.at_local() {
                    break;
                }
            }
            self.reduction_axis(extents.len())?;
            extents.push(self.idx()?);
        }
        let outer = (
            self.red.replace(extents.len()),
            std::mem::take(&mut self.locals),
        );
        let inside = self.reduce_inside();
        (self.red, self.locals) = outer;
        let (locals, body) = inside?;
        Ok(Val::Reduce {
            combiner,
            extents,
            locals,
            body: Box::new(body),
        })
    }

    /// A reduction's `l0 = v0, ..: body)`, after its axes.
    fn reduce_inside(&mut self) -> PResult<(Vec<Val>, Val)> {
        let mut locals = Vec::new();
        while !self.at_punct(":") {
            if !locals.is_empty() {
                self.punct(",")?;
            }
            self.local_name(locals.len())?;
            locals.push(self.val()?);
            self.locals = locals.len();
        }
        self.bump();
        let body = self.val()?;
        self.punct(")")?;
        Ok((locals, body))
    }

    /// Whether the next token names a local (`l`N).
    fn at_local(&self) -> bool {
        self.ident().and_then(|s| numbered(s, "l")).is_some()
    }

    /// `lK =`, for the `k`-th local of a reduction.
    #[inline(never)]
    fn local_name(&mut self, k: usize) -> PResult<()> {
        if self.ident().and_then(|s| numbered(s, "l")) != Some(k) {
            return self.fail(self.pos, || format!("`l{k}`"));
        }
        self.bump();
        self.punct("=")
    }

    /// `rK <`, for the `k`-th axis of a reduction.
    #[inline(never)]
    fn reduction_axis(&mut self, k: usize) -> PResult<()> {
        if self.ident().and_then(|s| numbered(s, "r")) != Some(k) {
            return self.fail(self.pos, || format!("`r{k}`"));
        }
        self.bump();
        self.punct("<")
    }
}

/// A kernel from its textual form (what `Display` of [`Kernel`] writes).
pub fn parse_kernel(src: &str) -> Result<Kernel, ParseError> {
    let mut p = Parser::new(src)?;
    let k = p.kernel().map_err(|e| *e)?;
    p.end().map_err(|e| *e)?;
    Ok(k)
}

/// Kernels written one after another (the inputs of a filetest that takes several).
pub fn parse_kernels(src: &str) -> Result<Vec<Kernel>, ParseError> {
    let mut p = Parser::new(src)?;
    let mut ks = Vec::new();
    while *p.tok() != Tok::Eof {
        ks.push(p.kernel().map_err(|e| *e)?);
    }
    Ok(ks)
}

/// A loop nest from its textual form (what `Display` of [`LoopNest`] writes).
pub fn parse_nest(src: &str) -> Result<LoopNest, ParseError> {
    let mut p = Parser::new(src)?;
    let n = p.nest().map_err(|e| *e)?;
    p.end().map_err(|e| *e)?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RELU: &str = "kernel relu(x: float32[6]) -> (relu_output: float32[6]) compute float32 {
  domain [2, 3]
  out0 = max(in0[(i0*3 + i1)], 0.0)
}
";

    #[test]
    fn a_kernel_reads_back_and_prints_the_same() {
        let k = parse_kernel(RELU).unwrap();
        assert_eq!(k.domain, vec![Idx::Const(2), Idx::Const(3)]);
        assert_eq!(k.to_string(), RELU);
    }

    #[test]
    fn errors_name_the_line_column_and_what_was_expected() {
        let err = |src: &str| parse_kernel(src).unwrap_err().to_string();
        assert_eq!(
            err(&RELU.replace("max(", "maxi(")),
            "line 3, column 10: expected a value, found `maxi`"
        );
        assert_eq!(
            err(&RELU.replace("in0[", "in1[")),
            "line 3, column 14: expected an input below in1, found `in1`"
        );
        assert_eq!(
            err(&RELU.replace("i1)]", "i2)]")),
            "line 3, column 26: expected a domain coordinate below i2, found `i2`"
        );
        assert_eq!(
            err(&RELU.replace("0.0)\n", "0.0\n")),
            "line 4, column 1: expected `)`, found `}`"
        );
        assert_eq!(
            err(&RELU.replace("  out0", "  t1 = 1.0\n  out0")),
            "line 3, column 3: expected `t0` or `out0`, found `t1`"
        );
        assert_eq!(
            err(&RELU.replace("0.0)", "r0)")),
            "line 3, column 32: expected an index expression (reduction coordinates only inside a reduction), found `r0`"
        );
        assert_eq!(
            err("kernel \"a"),
            "line 1, column 8: expected a closing `\"` for this name, found the end of the input"
        );
        assert_eq!(
            err(&RELU.replace("[6]", "[99999999999999999999]")),
            "line 1, column 24: expected an integer that fits in 64 bits, found `99999999999999999999`"
        );
        assert_eq!(
            err(&format!("{RELU}kernel")),
            "line 5, column 1: expected the end of the input, found `kernel`"
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        for (open, close) in [("neg(", ")"), ("(", ")")] {
            let deep = format!("{}i0{}", open.repeat(100_000), close.repeat(100_000));
            let src = RELU.replace("max(in0[(i0*3 + i1)], 0.0)", &deep);
            let e = parse_kernel(&src).unwrap_err();
            assert!(e.expected.contains("nesting at most"), "{e}");
        }
        let long = format!("i0{}", "*2".repeat(100_000));
        let e = parse_kernel(&RELU.replace("(i0*3 + i1)", &long)).unwrap_err();
        assert!(e.expected.contains("nesting at most"), "{e}");
        // Just inside the limit parses, prints, parses again, lowers to a nest that parses
        // too (loops are counted apart), and drops, on a test thread's stack, unoptimized.
        for (open, close) in [("neg(", ")"), ("select(1.0, 2.0, ", ")"), ("(1 + ", ")")] {
            let n = MAX_DEPTH - 1;
            let ok = format!("{}i0{}", open.repeat(n), close.repeat(n));
            let k = parse_kernel(&RELU.replace("max(in0[(i0*3 + i1)], 0.0)", &ok)).unwrap();
            assert_eq!(parse_kernel(&k.to_string()).unwrap(), k);
            let nest = super::super::lower(&k, &super::super::Schedule::cpu(&k)).unwrap();
            assert_eq!(parse_nest(&nest.to_string()).unwrap(), nest);
        }
    }

    #[test]
    fn loop_nests_read_back() {
        let src = "kernel \"odd name\"(x: float32[(D0*4 + 0)]) -> (\"y\\n\": float64[D0]) compute float64 {
  for i0 in 0..D0 (Parallel) {
    t0 = reduce_sum(r0 < 4: in0[(i0*4 + r0)])
    for i1 in 0..1 (Vectorized(8)) {
      out0[i0] = div(t0, 4.0)
    }
  }
}
";
        let n = parse_nest(src).unwrap();
        assert_eq!(n.name, "odd name");
        assert_eq!(n.outputs[0].name, "y\n");
        assert_eq!(n.to_string(), src);
        let e = parse_nest(&src.replace("out0[i0]", "out0[i2]")).unwrap_err();
        assert_eq!(e.expected, "the coordinate of an enclosing loop");
    }
}
