//! A parsed `network!` built into a kiln Symbol at expansion, with kiln's own Symbol API,
//! and checked by shape inference at the declared input shapes. Every error becomes a
//! `syn::Error` at the span of the call it is about.

use crate::parse::{Arg, Dim, Expr, Network, Stmt};
use kiln_compiler::infer::infer;
use kiln_compiler::{Provenance, Symbol};
use kiln_ops::param::py_float;
use proc_macro2::Span;
use std::collections::HashMap;

/// What the macro emits about a checked network.
pub struct Built {
    /// The symbol's MXNet JSON.
    pub json: String,
    /// Inputs in declaration order, with their declared shapes (dimension names kept).
    pub inputs: Vec<(String, Vec<DimValue>)>,
    /// Arguments other than the inputs (parameters) and auxiliary states, with the shapes
    /// inference gave them at the declared dimensions.
    pub params: Vec<(String, Vec<usize>)>,
    pub aux: Vec<(String, Vec<usize>)>,
    pub outputs: Vec<(String, Vec<usize>)>,
}

/// One input dimension: a number, or a named dimension of the header (with its value).
#[derive(Clone)]
pub enum DimValue {
    Fixed(usize),
    Named(String, usize),
}

impl DimValue {
    pub fn value(&self) -> usize {
        match self {
            DimValue::Fixed(v) | DimValue::Named(_, v) => *v,
        }
    }
}

/// A value while building: a symbol, or a number (folded at expansion).
enum Value {
    Sym(Symbol),
    Num(f64),
}

struct Builder {
    dims: HashMap<String, usize>,
    symbols: HashMap<String, Symbol>,
    /// Every node created, by name, with the span of the call that created it.
    spans: Vec<(String, Span)>,
    /// Per-hint counters of automatic names (`fullyconnected0`, `_plus1`), as MXNet's
    /// NameManager but per network, so expansion is deterministic.
    counters: HashMap<String, usize>,
}

fn error(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg.to_string())
}

pub fn build(net: &Network) -> syn::Result<Built> {
    let mut b = Builder {
        dims: net.dims.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        symbols: HashMap::new(),
        spans: Vec::new(),
        counters: HashMap::new(),
    };
    let (mut inputs, mut outputs) = (Vec::new(), Vec::new());
    for stmt in &net.stmts {
        match stmt {
            Stmt::Input { name, shape } => {
                b.fresh(name)?;
                let shape = (shape.iter())
                    .map(|d| match d {
                        Dim::Lit(v) => Ok(DimValue::Fixed(*v)),
                        Dim::Named(n) => b
                            .dims
                            .get(&n.to_string())
                            .map(|&v| DimValue::Named(n.to_string(), v))
                            .ok_or_else(|| {
                                error(n.span(), format!("unknown dimension `{n}`: declare it in the header, `{}({n} = ...)`", net.name))
                            }),
                    })
                    .collect::<syn::Result<Vec<_>>>()?;
                let sym = Symbol::var(&name.to_string());
                b.symbols.insert(name.to_string(), sym);
                b.spans.push((name.to_string(), name.span()));
                inputs.push((name.to_string(), shape));
            }
            Stmt::Let { name, expr } | Stmt::Output { name, expr } => {
                b.fresh(name)?;
                let sym = match b.eval(expr, Some(&name.to_string()))? {
                    Value::Sym(s) => s,
                    Value::Num(_) => {
                        return Err(error(
                            expr.span(),
                            "a number is not a symbol: `let` and `output` bind symbols",
                        ))
                    }
                };
                if matches!(stmt, Stmt::Output { .. }) {
                    outputs.push(sym.clone());
                }
                b.symbols.insert(name.to_string(), sym);
            }
        }
    }
    let symbol = match outputs.len() {
        0 => {
            return Err(error(
                net.name.span(),
                "a network needs at least one `output`",
            ))
        }
        1 => outputs.remove(0),
        _ => Symbol::group(&outputs),
    };
    let span_of = |msg: &str| {
        // Errors name their node first, in backquotes.
        msg.split('`')
            .skip(1)
            .step_by(2)
            .find_map(|name| b.spans.iter().find(|(n, _)| n == name).map(|(_, s)| *s))
            .unwrap_or(net.name.span())
    };
    check(&symbol, inputs).map_err(|e| {
        let msg = e.to_string();
        error(span_of(&msg), msg)
    })
}

/// A saved MXNet symbol checked at the given input shapes (all fixed).
pub fn check_json(text: &str, inputs: &[(String, Vec<usize>)]) -> Result<Built, String> {
    let symbol = Symbol::from_json(text).map_err(|e| e.to_string())?;
    let arguments = symbol.list_arguments();
    if let Some((n, _)) = inputs.iter().find(|(n, _)| !arguments.contains(n)) {
        return Err(format!(
            "the symbol has no argument `{n}` (arguments: {})",
            arguments.join(", ")
        ));
    }
    let inputs = (inputs.iter())
        .map(|(n, s)| (n.clone(), s.iter().map(|&v| DimValue::Fixed(v)).collect()))
        .collect();
    check(&symbol, inputs).map_err(|e| e.to_string())
}

/// Infers `symbol`'s shapes at the inputs' declared shapes: what the macro emits.
fn check(
    symbol: &Symbol,
    inputs: Vec<(String, Vec<DimValue>)>,
) -> Result<Built, kiln_compiler::Error> {
    let g = symbol.to_graph()?;
    let shapes = (inputs.iter())
        .map(|(n, s)| (n.clone(), s.iter().map(DimValue::value).collect()))
        .collect();
    let inferred = infer(&g, &shapes, &HashMap::new())?;
    let shape_of = |name: &str| {
        let id = g.variable(name)?;
        Some(inferred.shapes[id.index()][0].clone())
    };
    let named = |names: Vec<String>| {
        (names.into_iter())
            .filter(|n| !inputs.iter().any(|(i, _)| i == n))
            .map(|n| {
                let s = shape_of(&n).unwrap_or_default();
                (n, s)
            })
            .collect()
    };
    let outputs = (symbol.list_outputs().into_iter())
        .zip(&g.heads)
        .map(|(n, e)| (n, inferred.shape(*e).clone()))
        .collect();
    Ok(Built {
        json: symbol.to_json()?,
        params: named(symbol.list_arguments()),
        aux: named(symbol.list_auxiliary_states()),
        inputs,
        outputs,
    })
}

impl Builder {
    /// Checks that `name` is not a symbol yet: names become node and parameter names.
    fn fresh(&self, name: &syn::Ident) -> syn::Result<()> {
        if self.symbols.contains_key(&name.to_string()) {
            return Err(error(
                name.span(),
                format!("`{name}` is already defined: node names (and their parameters' names) must be unique"),
            ));
        }
        Ok(())
    }

    /// The next automatic name for `hint`.
    fn auto_name(&mut self, hint: &str) -> String {
        let n = self.counters.entry(hint.to_string()).or_default();
        *n += 1;
        format!("{hint}{}", *n - 1)
    }

    fn eval(&mut self, expr: &Expr, name: Option<&str>) -> syn::Result<Value> {
        Ok(match expr {
            Expr::Var(id) => match self.symbols.get(&id.to_string()) {
                Some(s) => Value::Sym(s.clone()),
                None => {
                    return Err(error(
                        id.span(),
                        format!("unknown symbol `{id}`: declare it with `input` or `let` first"),
                    ))
                }
            },
            Expr::Num(v, _) => Value::Num(*v),
            Expr::Neg(e, span) => match self.eval(e, None)? {
                Value::Num(v) => Value::Num(-v),
                Value::Sym(s) => {
                    let attrs = [("scalar".to_string(), py_float(-1.0))];
                    self.call("_mul_scalar", "_mulscalar", name, *span, &[s], &[], &attrs)?
                }
            },
            Expr::Chain { first, rest } => {
                let mut value = self.eval(first, None)?;
                for (i, (op, span, operand)) in rest.iter().enumerate() {
                    let operand = self.eval(operand, None)?;
                    // The last operation is the node the statement names.
                    let node = if i + 1 == rest.len() { name } else { None };
                    value = self.binary(*op, *span, value, operand, node)?;
                }
                value
            }
            Expr::Call { op, args } => self.call_expr(op, args, name)?,
            Expr::Str(_) | Expr::Bool(_) | Expr::Tuple(..) => {
                return Err(error(expr.span(), "expected a symbol or a number here"))
            }
        })
    }

    fn binary(
        &mut self,
        op: char,
        span: Span,
        l: Value,
        r: Value,
        name: Option<&str>,
    ) -> syn::Result<Value> {
        // MXNet's operators for `+ - * /` (as the Symbol API's), and the scalar forms.
        let (same, scalar, rscalar) = match op {
            '+' => (
                ("elemwise_add", "_plus"),
                ("_plus_scalar", "_plusscalar"),
                ("_plus_scalar", "_plusscalar"),
            ),
            '-' => (
                ("elemwise_sub", "_minus"),
                ("_minus_scalar", "_minusscalar"),
                ("_rminus_scalar", "_rminusscalar"),
            ),
            '*' => (
                ("elemwise_mul", "_mul"),
                ("_mul_scalar", "_mulscalar"),
                ("_mul_scalar", "_mulscalar"),
            ),
            _ => (
                ("elemwise_div", "_div"),
                ("_div_scalar", "_divscalar"),
                ("_rdiv_scalar", "_rdivscalar"),
            ),
        };
        let scalar_attr = |v: f64| [("scalar".to_string(), py_float(v))];
        match (l, r) {
            (Value::Num(a), Value::Num(b)) => Ok(Value::Num(match op {
                '+' => a + b,
                '-' => a - b,
                '*' => a * b,
                _ => a / b,
            })),
            (Value::Sym(a), Value::Sym(b)) => {
                self.call(same.0, same.1, name, span, &[a, b], &[], &[])
            }
            (Value::Sym(a), Value::Num(v)) => {
                self.call(scalar.0, scalar.1, name, span, &[a], &[], &scalar_attr(v))
            }
            (Value::Num(v), Value::Sym(b)) => {
                self.call(rscalar.0, rscalar.1, name, span, &[b], &[], &scalar_attr(v))
            }
        }
    }

    fn call_expr(
        &mut self,
        op: &syn::Ident,
        args: &[Arg],
        name: Option<&str>,
    ) -> syn::Result<Value> {
        let (mut positional, mut named, mut attrs) = (Vec::new(), Vec::new(), Vec::new());
        for arg in args {
            match arg {
                Arg::Positional(e) => match self.eval(e, None)? {
                    Value::Sym(s) => positional.push(s),
                    Value::Num(_) => {
                        return Err(error(e.span(), format!("`{op}` takes symbols in order, then parameters by name (`key = value`)")))
                    }
                },
                Arg::Named(key, e) => match literal(e) {
                    Some(text) => attrs.push((key.to_string(), text)),
                    None => match self.eval(e, None)? {
                        Value::Sym(s) => named.push((key.to_string(), s)),
                        Value::Num(v) => attrs.push((key.to_string(), py_float(v))),
                    },
                },
            }
        }
        let op_name = op.to_string();
        let hint = op_name.to_lowercase();
        self.call(
            &op_name,
            &hint,
            name,
            op.span(),
            &positional,
            &named,
            &attrs,
        )
    }

    /// Applies operator `op` through the Symbol API (its errors at `span`), naming the node
    /// `name` or automatically after `hint`.
    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        op: &str,
        hint: &str,
        name: Option<&str>,
        span: Span,
        positional: &[Symbol],
        named: &[(String, Symbol)],
        attrs: &[(String, String)],
    ) -> syn::Result<Value> {
        let node = name.map_or_else(|| self.auto_name(hint), str::to_string);
        let mut call = Symbol::op(op)
            .name(node.clone())
            .provenance(Provenance::Macro);
        for s in positional {
            call = call.arg(s);
        }
        for (k, s) in named {
            call = call.input(k, s);
        }
        for (k, v) in attrs {
            call = call.attr(k, v);
        }
        let sym = call.build().map_err(|e| error(span, e))?;
        sym.check().map_err(|e| error(span, e))?;
        self.spans.push((node, span));
        Ok(Value::Sym(sym))
    }
}

/// A parameter's value as MXNet writes it (`3`, `0.5`, `"relu"` → `relu`, `true` →
/// `True`, `(3, 3)`), or `None` for an expression that is not a literal.
fn literal(e: &Expr) -> Option<String> {
    Some(match e {
        Expr::Num(v, _) if v.fract() == 0.0 && v.abs() < 1e15 => format!("{}", *v as i64),
        Expr::Num(v, _) => py_float(*v),
        Expr::Neg(inner, _) => match literal(inner)? {
            text if text.starts_with('-') => text[1..].to_string(),
            text => format!("-{text}"),
        },
        Expr::Str(s) => s.value(),
        Expr::Bool(b) => if b.value { "True" } else { "False" }.to_string(),
        Expr::Tuple(items, _) => {
            let parts: Vec<String> = items.iter().map(literal).collect::<Option<_>>()?;
            match parts.len() {
                1 => format!("({},)", parts[0]),
                _ => format!("({})", parts.join(", ")),
            }
        }
        _ => return None,
    })
}
