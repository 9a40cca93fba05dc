// LeNet-5 declared in Rust, as MXNet's example (and kiln's zoo `lenet`) builds it: two 5×5
// convolutions with tanh and 2×2 max pooling, a 500-unit tanh layer and a 10-way softmax.
// Included (`include!`) by the main-job example, the `kiln bench --aot` tool and the tests,
// so the network is declared once.
kiln::network! {
    /// LeNet-5 (MXNet's example): two 5×5 convolutions with tanh and max pooling, a
    /// 500-unit tanh layer and a 10-way softmax.
    pub LeNet(batch = 64) {
        input data: [batch, 1, 28, 28];
        input softmax_label: [batch];
        let conv1 = Convolution(data, kernel = (5, 5), num_filter = 20);
        let tanh1 = Activation(conv1, act_type = "tanh");
        let pool1 = Pooling(tanh1, pool_type = "max", kernel = (2, 2), stride = (2, 2));
        let conv2 = Convolution(pool1, kernel = (5, 5), num_filter = 50);
        let tanh2 = Activation(conv2, act_type = "tanh");
        let pool2 = Pooling(tanh2, pool_type = "max", kernel = (2, 2), stride = (2, 2));
        let flatten = Flatten(pool2);
        let fc1 = FullyConnected(flatten, num_hidden = 500);
        let tanh3 = Activation(fc1, act_type = "tanh");
        let fc2 = FullyConnected(tanh3, num_hidden = 10);
        output softmax = SoftmaxOutput(fc2, softmax_label);
    }
}
