// A leaky recurrent model trained on one long synthetic sequence with
// truncated back-propagation through time: one chunk per iteration, backward
// every chunk. The mistake: the hidden state is carried into the next chunk
// with its graph, so every backward reaches back through all earlier chunks
// (retain_graph=true was added to silence "Trying to backward through the
// graph a second time"): memory and time per iteration grow with the sequence.
// torch-carried-history finds it; the fix is `hidden.detach()` at the forward
// call, which also makes the retained graph harmless.
// LIBTORCH_TIDY_ITERATION marks the training loop's iterations for the
// runtime companion (memory per iteration; see docs/runtime.md).
#include <libtorch_tidy/probe.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

// A leaky recurrent cell (echo-state style: the recurrence itself is fixed,
// the input projection and the read-out are trained).
struct SequenceModelImpl : torch::nn::Module {
  SequenceModelImpl()
      : input_proj(register_module("input_proj", torch::nn::Linear(8, 64))),
        head(register_module("head", torch::nn::Linear(64, 8))) {}
  // One time step: the next hidden state.
  torch::Tensor forward(torch::Tensor input, torch::Tensor hidden) {
    return torch::tanh(input_proj(input) + 0.9 * hidden);
  }
  torch::nn::Linear input_proj, head;
};
TORCH_MODULE(SequenceModel);

int main(int argc, char **argv) {
  torch::manual_seed(0);
  const int chunks = argc > 1 ? std::atoi(argv[1]) : 150;
  const int64_t batch = 16;
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  SequenceModel model;
  model->to(device);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));
  torch::Tensor hidden = torch::zeros({batch, 64}, device);
  double last = 0;
  for (int chunk = 0; chunk < chunks; ++chunk) {
    // A noisy sine per feature; the target is the next step.
    auto t = torch::full({batch, 8}, double(chunk) * 0.1, device) + torch::arange(8, device).to(torch::kFloat);
    auto input = torch::sin(t) + 0.05 * torch::randn({batch, 8}, device);
    auto target = torch::sin(t + 0.1);
    optimizer.zero_grad();
    hidden = model->forward(input, hidden);
    auto loss = torch::mse_loss(model->head(hidden), target);
    loss.backward({}, /*retain_graph=*/true);
    optimizer.step();
    last = loss.item<double>();
    LIBTORCH_TIDY_ITERATION(hidden);
  }
  std::printf("last chunk loss %.4f\n", last);
  return 0;
}
