kiln_macros::network! {
    Net(batch = 4) {
        input data: [batch, seq];
        output out = Activation(dat, act_type = "relu");
    }
}

fn main() {}
