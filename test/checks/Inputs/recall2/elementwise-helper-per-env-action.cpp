// Recall round 2 reproducer (miss), from cemlyn007/ale-libtorch-ppo (src/ai/rollout.cc 312-313,
// Rollout::step, called for each environment index by the worker loop at 292-293), reduced. The action
// of each environment is read from the device tensor of the whole batch of actions one element at a
// time, 'actions[environment_index].item<int64_t>()', in a helper called once per environment (512 per
// step): a select and a device-to-host read per environment, where one copy of the batch to the host
// would do.
// Expected: a [torch-elementwise-access-in-loop] warning for the access at line 20, reported at the
// calls in the loops (line 27, the project's range-for over the indices; the same with an
// integer counter, line 29); today: none (the page's limitation: accesses in a helper called from the loop are
// not followed).
#include <torch/torch.h>
#include <vector>

struct Rollout {
  torch::Tensor actions_;
  std::vector<int> action_set_;
  int act(int action);

  int step(size_t environment_index) {
    size_t action_index = actions_[environment_index].item<int64_t>();
    return act(action_set_[action_index]);
  }

  float worker(const std::vector<size_t> &inputs) {
    float total = 0;
    for (const auto &input : inputs)
      total += step(input);
    for (size_t i = 0; i < inputs.size(); ++i)
      total += step(i);
    return total;
  }
};
