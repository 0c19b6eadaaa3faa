// Recall round 2 reproducer (miss), from cemlyn007/ale-libtorch-ppo (src/ai/rollout.cc 216-218 and
// 243-261, Rollout::rollout), reduced. On every step of a rollout, for each of the (512) environments,
// the step results are written one element at a time into device tensors that are data members
// ('rewards_[ale_index] = result.reward', 'is_terminated_[ale_index] = ...'): a select, a 0-dim
// tensor and a fill_ kernel per number. The loop is a range-for over the step results; the index is a
// field of the element (result.environment_index), not an integer induction variable. The loops do no
// other tensor work.
// Expected: [torch-elementwise-access-in-loop] warnings at lines 31, 32, 33 (first loop: rewards_,
// is_terminated_, is_truncated_) and 39 (second loop: is_episode_start_; is_terminated_ and
// is_truncated_ again at 40, 41); today: none.
#include <torch/torch.h>
#include <vector>

struct StepResult {
  size_t environment_index;
  float reward;
  bool terminated;
  bool truncated;
};

struct Rollout {
  torch::Tensor rewards_, is_terminated_, is_truncated_, is_episode_start_;
  std::vector<bool> is_episode_start_cpu_;
  std::vector<StepResult> step_all();

  void step() {
    const auto step_results = step_all();
    for (const auto &result : step_results) {
      int64_t ale_index = result.environment_index;
      if (!is_episode_start_cpu_[ale_index]) {
        rewards_[ale_index] = result.reward;
        is_terminated_[ale_index] = result.terminated;
        is_truncated_[ale_index] = result.truncated;
      }
    }
    for (const auto &result : step_results) {
      int64_t ale_index = result.environment_index;
      if (result.terminated || result.truncated) {
        is_episode_start_[ale_index] = true;
        is_terminated_[ale_index] = false;
        is_truncated_[ale_index] = false;
      } else if (is_episode_start_cpu_[ale_index]) {
        is_episode_start_[ale_index] = false;
      }
    }
  }
};
