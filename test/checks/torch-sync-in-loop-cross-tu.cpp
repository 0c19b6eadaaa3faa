// RUN: %check_torch_tidy %s torch-sync-in-loop %t -config="{CheckOptions: {TorchSummaries: '%S/Inputs/summaries/sync-in-loop.json'}}"
// RUN: %check_torch_tidy -check-suffix=DEPTH1 %s torch-sync-in-loop %t -config="{CheckOptions: {TorchSummaries: '%S/Inputs/summaries/sync-in-loop.json', torch-sync-in-loop.CallDepth: 1}}"
// RUN: %check_torch_tidy -check-suffix=ALONE %s torch-sync-in-loop %t
// Helpers defined in other files (docs/cross-function.md): their linked
// summaries (Inputs/summaries/sync-in-loop.json, field "syncEveryCall") say
// whether a call synchronises on every call. Without the summaries (ALONE)
// nothing here is known to synchronise: no warning.
#include <torch/torch.h>

void log_every(int step, const torch::Tensor &loss); // item() under `if (step % 100 == 0)`: "sync" only
void report_loss(const torch::Tensor &loss);         // item() on every call: "syncEveryCall": 0
void report_deep(const torch::Tensor &loss);         // through one more call: "syncEveryCall": 1

void train(torch::nn::Linear &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  for (int step = 0; step < 100; ++step) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    log_every(step, loss);
    report_loss(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'report_loss' synchronizes the host with the device on every call, and the training loop calls it on every iteration: the CPU waits until all queued GPU work is done before it can enqueue the next batch [torch-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-2]]:5: note: 'report_loss' is defined in another file (linked summaries, option TorchSummaries)
    // CHECK-MESSAGES: :[[@LINE-9]]:3: note: training loop here; synchronize only under a logging condition
    // CHECK-MESSAGES-DEPTH1: :[[@LINE-4]]:5: warning: 'report_loss' synchronizes the host with the device on every call
    // CHECK-MESSAGES-DEPTH1: :[[@LINE-5]]:5: note: 'report_loss' is defined in another file
    // CHECK-MESSAGES-DEPTH1: :[[@LINE-12]]:3: note: training loop here
    report_deep(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'report_deep' synchronizes the host with the device on every call
    // CHECK-MESSAGES: :[[@LINE-2]]:5: note: 'report_deep' is defined in another file
    // CHECK-MESSAGES: :[[@LINE-16]]:3: note: training loop here
    if (step % 10 == 0)
      report_loss(loss); // under a logging condition
  }
}
