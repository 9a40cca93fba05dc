kiln_macros::network! {
    Net(batch = 4) {
        input data: [batch, 8];
        let fc = FullyConnected(data, num_hiden = 3);
        output out = Activation(fc, act_type = "relu");
    }
}

fn main() {}
