// RUN: %check_torch_tidy %s torch-missing-eval %t
#include <torch/torch.h>
#include <torch/script.h>
#include <vector>

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl()
      : fc(register_module("fc", torch::nn::Linear(16, 4))),
        drop(register_module("drop", torch::nn::Dropout(0.5))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(drop(x)); }
  torch::nn::Linear fc;
  torch::nn::Dropout drop;
};
TORCH_MODULE(Classifier);

struct ConvNetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
};
TORCH_MODULE(ConvNet);

// A module that drives a functional dropout with its own mode.
struct PolicyImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return is_training() ? x * 0.5 : x; }
};
TORCH_MODULE(Policy);

// Nested: a backbone holding a batch norm.
struct BackboneImpl : torch::nn::Module {
  ConvNet body{nullptr};
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Backbone);

// Mode-free layers only.
struct MlpImpl : torch::nn::Module {
  torch::nn::Linear a{nullptr}, b{nullptr};
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Mlp);

// --- Positives ----------------------------------------------------------------

float evaluate(const std::vector<torch::Tensor> &batches) {
  Classifier model;
  torch::load(model, "classifier.pt");
  torch::NoGradGuard no_grad;
  float correct = 0;
  for (const auto &x : batches)
    correct += model->forward(x).argmax(1).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: forward pass in evaluation code of 'model' runs in training mode: its dropout and batch-norm layers drop activations and update running statistics; switch it to evaluation mode with 'eval()' first [torch-missing-eval]
  return correct;
}
// CHECK-FIXES: {{^}}  float correct = 0;{{$}}
// CHECK-FIXES-NEXT: {{^}}  model->eval();{{$}}
// CHECK-FIXES-NEXT: {{^}}  for (const auto &x : batches){{$}}

// Guarded inference in a serving function (no eval-like name).
torch::Tensor serve_request(torch::Tensor image) {
  Backbone net;
  torch::InferenceMode guard;
  auto y = net(image);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: forward pass in evaluation code of 'net' runs in training mode
  return y;
}
// CHECK-FIXES: {{^}}  torch::InferenceMode guard;{{$}}
// CHECK-FIXES-NEXT: {{^}}  net->eval();{{$}}
// CHECK-FIXES-NEXT: {{^}}  auto y = net(image);{{$}}

// A parameter: reported when the callers here never switch modes; no fix-it
// (it would change the caller's module for its training too).
torch::Tensor predict(Policy &policy, torch::Tensor obs) {
  torch::NoGradGuard g;
  return policy->forward(obs);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass in evaluation code of 'policy' runs in training mode
}
void act(Policy &policy, torch::Tensor obs) { predict(policy, obs); }

// eval() only on one path.
float validate(ConvNet &cnn, torch::Tensor x, bool fast) {
  ConvNet local;
  if (fast)
    local->eval();
  return local->forward(x).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass in evaluation code of 'local' runs in training mode
}
// CHECK-FIXES: {{^}}  if (fast){{$}}
// CHECK-FIXES-NEXT: {{^}}    local->eval();{{$}}
// CHECK-FIXES-NEXT: {{^}}  local->eval();{{$}}
// CHECK-FIXES-NEXT: {{^}}  return local->forward(x).sum().item<float>();{{$}}

// train() instead of eval() before a guarded forward pass, in evaluation code
// by its name that never backpropagates: the batch-norm layers normalise with
// the batch's own statistics.
void build_backbone(Backbone &net);
torch::Tensor inference(torch::Tensor image) {
  Backbone segnet;
  build_backbone(segnet);
  torch::load(segnet, "segnet.pt");
  segnet->train();
  torch::NoGradGuard no_grad;
  auto out = segnet->forward(image);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: forward pass in evaluation code of 'segnet' runs in training mode
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: 'segnet' is switched to training mode here, and the function never backpropagates
  return out.argmax(1);
}
// CHECK-FIXES: {{^}}  torch::NoGradGuard no_grad;{{$}}
// CHECK-FIXES-NEXT: {{^}}  segnet->eval();{{$}}
// CHECK-FIXES-NEXT: {{^}}  auto out = segnet->forward(image);{{$}}

// --- Look-alikes that must stay silent ----------------------------------------

// eval() before the forward pass, train(false), a caller that calls eval().
float evaluate_ok(const std::vector<torch::Tensor> &batches) {
  Classifier model;
  model->eval();
  torch::NoGradGuard no_grad;
  float correct = 0;
  for (const auto &x : batches)
    correct += model->forward(x).sum().item<float>();
  return correct;
}
float test_epoch(ConvNet &net, torch::Tensor x) {
  net->train(false);
  return net->forward(x).sum().item<float>();
}
float run_test(Classifier &model, torch::Tensor x) {
  torch::NoGradGuard g;
  return model->forward(x).sum().item<float>();
}
void epoch_loop(Classifier &model, torch::Tensor x) {
  model->eval();
  run_test(model, x);
  model->train();
}

// eval() on every path to the forward pass, one per branch (the control-flow
// graph says so; neither call alone precedes it on every path).
float validate_either_way(ConvNet &cnn, torch::Tensor x, bool half) {
  ConvNet both;
  if (half) {
    both->eval();
    x = x.to(torch::kHalf);
  } else {
    both->eval();
  }
  return both->forward(x).sum().item<float>();
}

// A member switched to evaluation mode in the constructor.
struct Server {
  Classifier model_;
  Server() { model_->eval(); }
  torch::Tensor infer(torch::Tensor x) {
    torch::InferenceMode guard;
    return model_->forward(x);
  }
};

// TorchScript: the mode comes from the file.
torch::Tensor evaluate_script(torch::Tensor x) {
  torch::jit::Module m = torch::jit::load("model.pt");
  torch::NoGradGuard g;
  return m.forward({x}).toTensor();
}

// No mode-dependent layers.
torch::Tensor evaluate_mlp(torch::Tensor x) {
  Mlp mlp;
  torch::NoGradGuard g;
  return mlp->forward(x);
}

// Training code: backward in the function, or train() called.
void train_step(Classifier &model, torch::Tensor x) {
  torch::Tensor y;
  {
    torch::NoGradGuard g;
    y = model->forward(x); // a target computed without graph, in training
  }
  model->forward(x).sub(y).sum().backward();
}

// Not evaluation code: no eval-like name, no guard (a rollout in training).
torch::Tensor rollout(Policy &policy, torch::Tensor obs) { return policy->forward(obs); }

// A helper that takes the module first may switch its mode.
void prepare(Classifier &m);
float evaluate_prepared(torch::Tensor x) {
  Classifier model;
  prepare(model);
  torch::NoGradGuard g;
  return model->forward(x).sum().item<float>();
}

// A parameter with no caller in this translation unit: the caller is unknown.
float evaluate_external(Backbone &net, torch::Tensor x) {
  torch::NoGradGuard g;
  return net->forward(x).sum().item<float>();
}

// eval() through an alias of the module: a reference to it, or a copy of its
// holder (both name the same module).
torch::Tensor evaluate_through_reference(torch::Tensor x) {
  Classifier net;
  auto &m = *net;
  m.eval();
  torch::NoGradGuard no_grad;
  return net->forward(x);
}
torch::Tensor infer_through_holder_copy(torch::Tensor x) {
  Classifier net;
  Classifier alias = net;
  alias->eval();
  torch::NoGradGuard no_grad;
  return net->forward(x);
}

// train() in functions that are no evaluation code by their name: updating the
// batch-norm statistics under a guard on purpose (recalibration).
void recalibrate_batch_norm(Backbone &net, const std::vector<torch::Tensor> &batches) {
  net->train();
  torch::NoGradGuard no_grad;
  for (const auto &x : batches)
    net->forward(x);
}
// Evaluation code by its name, but the train() call's value is not known, it
// is on one path only, the forward pass is not guarded, it trains another
// module, or it backpropagates.
torch::Tensor predict_mode(Backbone &unused, torch::Tensor x, bool training) {
  Backbone net;
  net->train(training);
  torch::NoGradGuard no_grad;
  return net->forward(x);
}
torch::Tensor predict_branch(torch::Tensor x, bool calibrate) {
  Backbone net;
  if (calibrate)
    net->train();
  torch::NoGradGuard no_grad;
  return net->forward(x);
}
torch::Tensor predict_unguarded(torch::Tensor x) {
  Backbone net;
  net->train();
  return net->forward(x);
}
torch::Tensor predict_other(Backbone &teacher, torch::Tensor x) {
  Backbone net;
  net->eval();
  teacher->train();
  torch::NoGradGuard no_grad;
  return net->forward(x);
}
float test_finetune(Backbone &net, torch::Tensor x, torch::optim::SGD &opt) {
  net->train();
  torch::NoGradGuard no_grad;
  auto y = net->forward(x);
  opt.step();
  return y.sum().item<float>();
}
torch::Tensor predict_prepared(torch::Tensor x) {
  Backbone net;
  net->train();
  build_backbone(net);
  torch::NoGradGuard no_grad;
  return net->forward(x);
}
