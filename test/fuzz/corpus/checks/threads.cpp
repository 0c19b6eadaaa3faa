#include <torch/torch.h>
#include <functional>
#include <thread>
void serve(torch::nn::Linear model, torch::Tensor x) {
  model->eval();
  std::thread t([&] {
    for (int i = 0; i < 5; ++i)
      model->forward(x);
  });
  t.join();
  std::function<void()> f = [model, x]() mutable { model->forward(x); };
  f();
}
