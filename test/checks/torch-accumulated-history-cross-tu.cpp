// RUN: %check_torch_tidy %s torch-accumulated-history %t -config="{CheckOptions: {TorchSummaries: '%S/Inputs/summaries/accumulated-history.json'}}"
// RUN: %check_torch_tidy -check-suffix=ALONE %s torch-accumulated-history %t
// Methods defined in other files (docs/cross-function.md, "Across translation
// units"): their linked summaries (Inputs/summaries/accumulated-history.json,
// fields "memberAccumulations" and "membersLeaving") say which data member
// each accumulates history into, and which members other methods hand on.
// Without the summaries (ALONE) nothing here is known: no warning.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

struct Meter {
  void record(torch::Tensor loss);          // total_ += loss
  void record_detached(torch::Tensor loss); // total_ += loss.detach()
  void observe(Net &model, torch::Tensor x); // kept_ += model->forward(x).sum()
  torch::Tensor total_, kept_;
};
// Another method, defined in a third file, returns the member.
struct Reporter {
  void record(torch::Tensor loss); // sum_ += loss
  torch::Tensor result();          // return sum_;
  torch::Tensor sum_;
};
// Another method has no summary (its file did not compile): unknown.
struct Unknown {
  void record(torch::Tensor loss); // acc_ += loss
  void flush();
  torch::Tensor acc_;
};
// Another method, defined here, returns the member.
struct Local {
  void record(torch::Tensor loss); // s_ += loss
  torch::Tensor value() { return s_; }
  torch::Tensor s_;
};

// ---- positives -------------------------------------------------------------

void train(Net &model, const std::vector<torch::Tensor> &batches) {
  Meter meter;
  for (const auto &x : batches) {
    auto loss = model(x).sum();
    meter.record(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'record' accumulates this argument, which carries autograd history, into the data member 'total_' on each call: the graph of every iteration stays alive as long as 'meter' does; pass a detached value [torch-accumulated-history]
    // CHECK-MESSAGES: :[[@LINE-2]]:18: note: this argument carries the history
    // CHECK-MESSAGES: :18:8: note: 'record' is defined in another file and accumulates into 'total_' there (linked summaries, option TorchSummaries)
    // CHECK-FIXES: meter.record(loss.detach());
  }
}

void observe_all(Net &model, Meter &meter, const std::vector<torch::Tensor> &batches) {
  for (const auto &x : batches)
    meter.observe(model, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'observe' accumulates a tensor that carries autograd history into the data member 'kept_' on each call: the graph of every iteration stays alive as long as 'meter' does; accumulate a detached value there [torch-accumulated-history]
  // CHECK-MESSAGES: :20:8: note: 'observe' is defined in another file and accumulates into 'kept_' there
}

// ---- look-alikes that stay silent ---------------------------------------------

void silent(Net &model, Meter &meter, Reporter &reporter, Unknown &unknown, Local &local,
            const std::vector<torch::Tensor> &batches) {
  for (const auto &x : batches) {
    auto loss = model(x).sum();
    meter.record(loss.detach());     // a detached value
    meter.record_detached(loss);     // the method detaches
    reporter.record(loss);           // result() hands sum_ on
    unknown.record(loss);            // flush() is unknown
    local.record(loss);              // value() hands s_ on
    Meter fresh;
    fresh.record(loss);              // a new object each iteration
    {
      torch::NoGradGuard guard;
      meter.observe(model, x);       // autograd off
    }
  }
  auto loss = model(batches[0]).sum();
  meter.record(loss);                // not in a loop
}
