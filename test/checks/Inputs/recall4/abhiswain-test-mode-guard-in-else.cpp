// Recall round 4 reproducer (miss), from Abhiswain97/libtorch-example-codes (Mnist/Mnist.cpp 32-85, `train`),
// reduced. One loop runs both modes; for "Testing" the NoGradGuard is declared inside the `else { }` block
// next to fc->eval() and dies at its closing brace, so the test batches' forward passes (backbone and head)
// record a graph. backward() runs only on the "Training" branch (mode string test), which the eval region
// reaches path-insensitively.
// Expected: a [torch-eval-without-no-grad] warning at line 26 (the forward after fc->eval()); today: none.
#include <torch/torch.h>
#include <string>
#include <vector>

void train(torch::nn::Linear &fc, std::vector<torch::Tensor> &train_x, std::vector<torch::Tensor> &test_x,
           torch::Tensor target, torch::optim::Optimizer &optimizer, std::vector<std::string> &modes) {
  double avg_loss = 0;
  for (int epoch = 0; epoch < 5; ++epoch) {
    for (std::string &mode : modes) {
      auto &data = mode == std::string("Training") ? train_x : test_x;
      if (mode == std::string("Training"))
        fc->train();
      else {
        torch::NoGradGuard no_grad_guard;
        fc->eval();
      };
      for (auto &x : data) {
        if (mode == std::string("Training"))
          optimizer.zero_grad();
        auto output = fc->forward(x);
        auto loss = torch::mse_loss(output, target);
        if (mode == std::string("Training")) {
          loss.backward();
          optimizer.step();
        } else
          avg_loss += loss.item<float>();
      }
    }
  }
}
