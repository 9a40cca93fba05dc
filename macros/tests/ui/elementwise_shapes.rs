kiln_macros::network! {
    Net {
        input a: [2, 3];
        input b: [3, 2];
        let c = a * 2.0;
        output d = c + b;
    }
}

fn main() {}
