#include <torch/torch.h>
struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x).relu(); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);
struct Loop {
  Net net;
  torch::optim::SGD opt{net->parameters(), torch::optim::SGDOptions(0.1)};
  std::vector<torch::Tensor> history;
  void epoch(torch::Tensor x) {
    for (int i = 0; i < 10; ++i) {
      net->to(torch::kCUDA);
      auto loss = net->forward(x).sum();
      loss.backward(/*gradient=*/{}, /*retain_graph=*/true);
      opt.step();
      history.push_back(loss);
    }
  }
};
