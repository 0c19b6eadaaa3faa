// Evaluation code with the two fix-its that insert code: eval() before the
// forward pass of a module with dropout (torch-missing-eval), and the guard at
// the start of a thread body (torch-eval-without-no-grad: grad mode is
// thread-local). The fixed program compiles against real LibTorch and runs.
#include <torch/torch.h>

#include <cstdio>
#include <thread>

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl()
      : fc(register_module("fc", torch::nn::Linear(8, 2))),
        drop(register_module("drop", torch::nn::Dropout(0.5))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(drop(x)); }
  torch::nn::Linear fc;
  torch::nn::Dropout drop;
};
TORCH_MODULE(Classifier);

float evaluate(torch::Tensor x) {
  Classifier model;
  torch::NoGradGuard no_grad;
  float total = 0;
  std::thread worker([&] {
    total += model->forward(x).sum().item<float>();
  });
  worker.join();
  return total;
}

int main() {
  torch::manual_seed(0);
  torch::Tensor x = torch::ones({4, 8});
  float a = evaluate(x), b = evaluate(x);
  std::printf("evaluated %d\n", int(a == a && b == b));
  return 0;
}
