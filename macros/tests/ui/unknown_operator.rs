kiln_macros::network! {
    Net(batch = 4) {
        input data: [batch, 8];
        output fc = FullyConected(data, num_hidden = 3);
    }
}

fn main() {}
