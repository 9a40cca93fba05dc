//! Graphviz output in the spirit of `mx.viz.plot_network`: one box per operator, colored
//! by kind, labelled with its key parameters; weights hidden; edges labelled with shapes.

use crate::graph::{Entry, Graph};
use kiln_ops::shape::is_known;
use kiln_ops::Shape;
use std::fmt::Write;

// Colours and labels match operator names on purpose: they are a picture of particular
// operators' parameters, as MXNet's plot draws them, that nothing compiled depends on (an
// operator not listed gets the plain box), so they are no property of the operators.
fn color(op: &str) -> &'static str {
    match op {
        "Convolution" | "Deconvolution" => "#fb8072",
        "FullyConnected" => "#fb8072",
        "BatchNorm" | "LRN" => "#bebada",
        "Activation" | "LeakyReLU" | "relu" | "sigmoid" | "tanh" => "#ffffb3",
        "Pooling" => "#80b1d3",
        "Concat" | "Flatten" | "Reshape" | "SliceChannel" => "#fdb462",
        "SoftmaxOutput" | "softmax" | "log_softmax" => "#b3de69",
        _ => "#fccde5",
    }
}

fn label(g: &Graph, id: crate::graph::NodeId) -> String {
    let n = g.node(id);
    let p = n.params.as_ref();
    let get = |k: &str| p.map(|p| p.get(k).to_mxnet_string()).unwrap_or_default();
    let detail = match n.op_name() {
        "Convolution" => format!(
            "\\n{}/{}, {}",
            get("kernel"),
            get("stride"),
            get("num_filter")
        ),
        "FullyConnected" => format!("\\n{}", get("num_hidden")),
        "Pooling" => format!(
            "\\n{}, {}/{}",
            get("pool_type"),
            get("kernel"),
            get("stride")
        ),
        "Activation" | "LeakyReLU" => format!("\\n{}", get("act_type")),
        _ => String::new(),
    };
    format!("{}{}\\n{}", n.op_name(), detail, n.name)
}

fn is_weight(g: &Graph, e: Entry) -> bool {
    let n = g.node(e.node);
    n.is_variable()
        && !g.heads.contains(&e)
        && (n.name.ends_with("_weight")
            || n.name.ends_with("_bias")
            || n.name.ends_with("_gamma")
            || n.name.ends_with("_beta")
            || n.name.ends_with("_moving_mean")
            || n.name.ends_with("_moving_var"))
}

/// The graph as Graphviz dot; `shapes` (from inference) labels the edges.
pub fn to_dot(g: &Graph, shapes: Option<&[Vec<Shape>]>) -> String {
    let mut s = String::from("digraph plot {\n  node [shape=box, style=\"rounded,filled\", fixedsize=false, fontsize=10];\n");
    for id in g.node_ids() {
        let e = Entry { node: id, index: 0 };
        if is_weight(g, e) {
            continue;
        }
        let n = g.node(id);
        let (shape, fill) = if n.is_variable() {
            ("oval", "#8dd3c7")
        } else {
            ("box", color(n.op_name()))
        };
        let _ = writeln!(
            s,
            "  n{} [label=\"{}\", shape={shape}, fillcolor=\"{fill}\"];",
            id.index(),
            label(g, id).replace('"', "'")
        );
    }
    for id in g.node_ids() {
        for &e in &g.node(id).inputs {
            if is_weight(g, e) {
                continue;
            }
            let attr = match shapes.map(|s| &s[e.node.index()][e.index]) {
                Some(sh) if is_known(sh) => {
                    let dims: Vec<String> = sh.iter().skip(1).map(|d| d.to_string()).collect();
                    format!(" [label=\"{}\"]", dims.join("x"))
                }
                _ => String::new(),
            };
            // Arrows point from consumer to producer, as MXNet's plots do.
            let _ = writeln!(s, "  n{} -> n{}{attr};", id.index(), e.node.index());
        }
    }
    s.push_str("}\n");
    s
}
