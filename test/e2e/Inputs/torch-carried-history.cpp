// A recurrent model trained with truncated back-propagation through time on a
// synthetic sequence. The mistake: the hidden state is carried from one chunk
// into the next without being detached, so the second backward() walks into
// the first chunk's (already freed) graph. torch-carried-history finds it; the
// fix-it detaches the state where it enters the forward pass.
#include <torch/torch.h>

#include <cstdio>

struct ModelImpl : torch::nn::Module {
  ModelImpl()
      : lstm(register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(4, 16)))),
        head(register_module("head", torch::nn::Linear(16, 4))) {}
  torch::nn::LSTM lstm;
  torch::nn::Linear head;
};
TORCH_MODULE(Model);

static void train(Model &model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05));
  auto sequence = torch::randn({8 * 10, 1, 4});
  std::tuple<torch::Tensor, torch::Tensor> state{torch::zeros({1, 1, 16}),
                                                 torch::zeros({1, 1, 16})};
  for (int chunk = 0; chunk < 8; ++chunk) {
    auto input = sequence.narrow(0, chunk * 10, 10);
    auto target = sequence.narrow(0, chunk * 10 + 1, 9);
    auto out = model->lstm->forward(input, state);
    state = std::get<1>(out);
    auto prediction = model->head->forward(std::get<0>(out)).narrow(0, 0, 9);
    auto loss = torch::mse_loss(prediction, target);
    opt.zero_grad();
    loss.backward();
    opt.step();
    std::printf("chunk %d: loss %.4f\n", chunk, loss.item<double>());
  }
}

int main() try {
  torch::manual_seed(0);
  Model model;
  train(model);
  return 0;
} catch (const c10::Error &e) {
  std::printf("error: %s\n", e.what_without_backtrace());
  return 1;
}
