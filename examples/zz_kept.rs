use kiln::compiler::program::{compile, Mode};
use kiln::runtime::Config;
use kiln::Symbol;
use std::collections::HashMap;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sym = Symbol::load(&args[1]).unwrap();
    let side: usize = args[2].parse().unwrap();
    let shapes = HashMap::from([("data".to_string(), vec![32, 3, side, side])]);
    let spec = Config::global().spec(shapes, Mode::train_parameters(&sym));
    let p = compile(&sym, &spec).unwrap();
    let g = p.graph();
    let steps = &p.steps;
    // first backward step
    let fb = steps.iter().position(|s| !s.forward).unwrap();
    let mut live_at: HashMap<String, (usize, usize)> = HashMap::new();
    let mut total = 0;
    for b in &p.layout.plan.buffers {
        if b.start < fb && b.end >= fb && b.workspace_of.is_none() {
            let e = b.entries[0];
            let n = g.node(e.node);
            let key = format!("{}:{}", n.op_name(), e.index);
            let ent = live_at.entry(key).or_default();
            ent.0 += b.bytes;
            ent.1 += 1;
            total += b.bytes;
        }
    }
    let mut v: Vec<_> = live_at.into_iter().collect();
    v.sort_by_key(|(_, (b, _))| std::cmp::Reverse(*b));
    for (k, (b, c)) in v {
        println!("{k:40} {:8.1} MB  {c}", b as f64 / 1048576.0);
    }
    println!(
        "kept across forward/backward: {:.1} MB; arena {:.1}",
        total as f64 / 1048576.0,
        p.layout.arena_bytes as f64 / 1048576.0
    );
    // peak step
    let mut best = (0, 0);
    for s in 0..steps.len() {
        let live: usize = p
            .layout
            .plan
            .buffers
            .iter()
            .filter(|b| b.start <= s && b.end >= s)
            .map(|b| b.bytes)
            .sum();
        if live > best.0 {
            best = (live, s);
        }
    }
    println!(
        "peak {:.1} MB at step {} {} forward={}",
        best.0 as f64 / 1048576.0,
        best.1,
        steps[best.1].name,
        steps[best.1].forward
    );
    let s = best.1;
    let mut v: Vec<_> = p
        .layout
        .plan
        .buffers
        .iter()
        .filter(|b| b.start <= s && b.end >= s)
        .collect();
    v.sort_by_key(|b| std::cmp::Reverse(b.bytes));
    for b in v.iter().take(12) {
        let d = b
            .entries
            .first()
            .map(|e| format!("{} {}", g.node(e.node).op_name(), g.node(e.node).name))
            .unwrap_or(format!("ws {:?}", b.workspace_of));
        println!(
            "   {:8.1} MB {d} [{}..{}]",
            b.bytes as f64 / 1048576.0,
            b.start,
            b.end
        );
    }
}
