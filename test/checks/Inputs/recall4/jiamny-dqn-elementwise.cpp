// Recall round 4 reproducer, from jiamny/Dive_into_deep_learning_with_libtorch
// (src/19_Reinforcement_Learning/Deep_Q_network.cpp 60-69: Env::display reads migong[y][x].data().item<int>() three
// times per cell of a 5x5 board on every environment step; 270-271: sample_index[i].item<int>() per minibatch
// row), reduced.
// (written with .data() as in the project). Expected: [torch-elementwise-access-in-loop] at line 17; today: none (without .data() it warns);
// line 30 is out of scope (the loop pushes tensors: tensor work).
#include <torch/torch.h>
#include <vector>

struct Env {
  torch::Tensor migong;
  Env() { migong = torch::zeros({5, 5}, torch::kInt); }
  int display() {
    int n = 0;
    for (int x = 0; x < 5; ++x) {
      for (int y = 0; y < 5; ++y) {
        if (migong[y][x].data().item<int>() == 1)
          n += 1;
        if (migong[y][x].data().item<int>() == 2)
          n += 2;
      }
    }
    return n;
  }
};

std::vector<torch::Tensor> sample(std::vector<torch::Tensor> &memory) {
  torch::Tensor sample_index = torch::randint(0, 2000, {8});
  std::vector<torch::Tensor> tb;
  for (int i = 0; i < 8; ++i) {
    int idx = sample_index[i].item<int>();
    tb.push_back(memory[idx]);
  }
  return tb;
}
