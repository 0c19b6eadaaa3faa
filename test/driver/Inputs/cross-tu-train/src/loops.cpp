#include "train.h"

// Warned: backward and step in steps.cpp, no zero_grad anywhere.
void fit(Net &model, torch::optim::SGD &opt, const std::vector<torch::Tensor> &data) {
  for (const auto &x : data)
    train_step(model, opt, x);
}

// Silent look-alikes.
void fit_zeroing_helper(Net &model, torch::optim::SGD &opt, const std::vector<torch::Tensor> &data) {
  for (const auto &x : data)
    train_step_zeroing(model, opt, x);
}
void fit_zeroing_loop(Net &model, torch::optim::SGD &opt, const std::vector<torch::Tensor> &data) {
  for (const auto &x : data) {
    opt.zero_grad();
    train_step(model, opt, x);
  }
}
void fit_third_file(Net &model, torch::optim::SGD &opt, const std::vector<torch::Tensor> &data) {
  for (const auto &x : data) {
    prepare(opt);
    train_step(model, opt, x);
  }
}
void fit_conditional(Net &model, torch::optim::SGD &opt, const std::vector<torch::Tensor> &data) {
  for (size_t i = 0; i < data.size(); ++i)
    train_step_maybe(model, opt, data[i], i % 4 == 3);
}
void fit_broken(Net &model, torch::optim::SGD &opt, const std::vector<torch::Tensor> &data) {
  for (const auto &x : data)
    train_step_broken(model, opt, x);
}
void fit_virtual(Learner &learner, const std::vector<torch::Tensor> &data) {
  for (const auto &x : data)
    learner.learn(x);
}
void fit_pointer(void (*step)(Net &, torch::optim::SGD &, torch::Tensor), Net &model,
                 torch::optim::SGD &opt, const std::vector<torch::Tensor> &data) {
  for (const auto &x : data)
    step(model, opt, x);
}

// torch-accumulated-history: Meter::record (meter.cpp) adds its argument
// into a member; warned at the call, in this file.
void track(Net &model, Meter &meter, const std::vector<torch::Tensor> &data) {
  for (const auto &x : data) {
    auto loss = model->forward(x).sum();
    meter.record(loss);
    meter.record_detached(loss);
    meter.record(loss.detach());
  }
}
// Silent: Reporter::result (report.cpp) returns the member; Buffer::flush is
// in broken.cpp (no summary: unknown).
void track_others(Net &model, Reporter &reporter, Buffer &buffer,
                  const std::vector<torch::Tensor> &data) {
  for (const auto &x : data) {
    auto loss = model->forward(x).sum();
    reporter.add(loss);
    buffer.push(loss);
  }
}
