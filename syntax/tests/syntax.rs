//! The parser and builder on inputs no one writes by hand: nesting past the limit is an
//! error that says so, long chains and long networks build, attributes pass through.

use kiln_syntax::{build, parse, MAX_NESTING};

fn parse_text(text: &str) -> syn::Result<kiln_syntax::Network> {
    parse(text.parse().expect("the test's text lexes"))
}

fn network(body: &str) -> String {
    format!("Net(batch = 2) {{ input x: [batch, 3]; {body} }}")
}

#[test]
fn nesting_past_the_limit_is_an_error_not_a_stack_overflow() {
    for (what, depth) in [("at the limit", MAX_NESTING), ("past it", 100_000)] {
        let parens = format!("let y = {}x{};", "(".repeat(depth), ")".repeat(depth));
        let minus = format!("let y = {}x;", "-".repeat(depth));
        let calls = format!("let y = {}x{};", "relu(".repeat(depth), ")".repeat(depth));
        for body in [parens, minus, calls] {
            let result = parse_text(&network(&format!("{body} output o = y;")));
            match depth > MAX_NESTING {
                true => {
                    let message = result.err().map(|e| e.to_string()).unwrap_or_default();
                    assert!(message.contains("nested more than"), "{what}: {message}");
                }
                false => assert!(result.is_ok(), "{what}: {:?}", result.err()),
            }
        }
    }
}

#[test]
fn a_long_sum_stays_flat_and_builds_left_to_right() {
    let terms = 20_000;
    let sum = vec!["x"; terms].join(" + ");
    let net = parse_text(&network(&format!("output o = {sum} - 1;"))).unwrap();
    let built = build(&net).unwrap();
    // One elemwise_add per `+`, then the scalar: the last operation carries the name.
    let json: serde_json::Value = serde_json::from_str(&built.json).unwrap();
    let nodes = json["nodes"].as_array().unwrap();
    let adds = nodes.iter().filter(|n| n["op"] == "elemwise_add").count();
    assert_eq!(adds, terms - 1);
    let last = nodes.last().unwrap();
    assert_eq!(
        (last["op"].as_str(), last["name"].as_str()),
        (Some("_minus_scalar"), Some("o"))
    );
    assert_eq!(built.outputs, vec![("o_output".to_string(), vec![2, 3])]);
}

#[test]
fn a_long_network_of_statements_builds() {
    let n = 5_000;
    let mut body = String::from("let h0 = relu(x);");
    for i in 1..n {
        body += &format!("let h{i} = relu(h{});", i - 1);
    }
    body += &format!("output o = h{};", n - 1);
    let built = build(&parse_text(&network(&body)).unwrap()).unwrap();
    assert_eq!(built.outputs[0].1, vec![2, 3]);
}

#[test]
fn outer_attributes_pass_through_and_inner_ones_are_refused() {
    let text = network("output o = x;");
    let net = parse_text(&format!("#[doc = \"d\"] #[derive(Clone, Copy)] pub {text}")).unwrap();
    assert_eq!(
        net.attrs.to_string(),
        "# [doc = \"d\"] # [derive (Clone , Copy)]"
    );
    assert!(parse_text(&format!("#![doc = \"d\"] {text}")).is_err());
}
