// Recall round 4 reproducer (miss), from austinvhuang/libtorch-experiments (nca/nca.cpp 151-221, `train`;
// write_ppm in nca/ppm.hpp 24-54), reduced. Every 10/50 iterations the training function re-runs the cellular
// automaton for tmax steps only to write each state to an image file, with autograd on: `img` is assigned the
// forward pass's result on every step (not initialised from it), so the whole tmax-step graph with its saved
// activations is recorded for a backward pass that never comes.
// Expected: a [torch-eval-without-no-grad] warning at line 39 (rule 5, forward nothing trains through);
// today: none.
#include <torch/torch.h>
#include <string>

struct NCA : torch::nn::Module {
  NCA() : fc1(torch::nn::Conv2d(48, 128, 1)) { register_module("fc1", fc1); }
  torch::Tensor forward(torch::Tensor &state) { return state + fc1->forward(state); }
  torch::nn::Conv2d fc1;
};

void write_ppm(const torch::Tensor img, const std::string &filename) {
  std::printf("%s %f\n", filename.c_str(), img.sum().item<float>());
}

void train(NCA &nca, const torch::Tensor &target, const torch::Tensor &init, int tmax) {
  torch::optim::Adam optimizer(nca.parameters(), torch::optim::AdamOptions(1e-5));
  nca.train();
  for (int i = 0; i < 500; ++i) {
    optimizer.zero_grad();
    torch::Tensor state = init;
    for (int t = 0; t < tmax; ++t)
      state = nca.forward(state);
    auto loss = torch::mse_loss(state, target);
    loss.backward();
    optimizer.step();
    if (i % 10 == 0)
      std::printf("loss %f\n", loss.item<float>());
    if (i % 10 == 0) {
      torch::Tensor img = init;
      for (int t = 0; t < tmax; ++t) {
        auto state_img = img.index({0});
        write_ppm(state_img, "state.ppm");
        img = nca.forward(img);
      }
    }
  }
}
