kiln_macros::network! {
    Net(batch = 4) {
        input data: [batch, 8];
        input w: [3, 7];
        let fc = FullyConnected(data, weight = w, num_hidden = 3, no_bias = true);
        output out = Activation(fc, act_type = "relu");
    }
}

fn main() {}
