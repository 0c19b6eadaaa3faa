// RUN: %check_torch_tidy %s torch-unneeded-retain-graph %t
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

using Loader = std::unique_ptr<
    torch::data::StatelessDataLoader<torch::data::datasets::MNIST, torch::data::samplers::RandomSampler>>;

void train(Net &model, torch::optim::SGD &opt, Loader &loader) {
  for (auto &batch : *loader) {
    opt.zero_grad();
    auto output = model->forward(batch.front().data);
    auto loss = torch::nll_loss(output, batch.front().target);
    loss.backward({}, /*retain_graph=*/true);
    // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: 'retain_graph' is true but no later backward pass in this loop iteration can reach the graph: the whole graph and its saved tensors stay in memory until the root tensor dies [torch-unneeded-retain-graph]
    opt.step();
  }
}
// CHECK-FIXES: {{^}}    loss.backward();{{$}}

void counted(Net &model, torch::optim::Adam &opt) {
  auto x = torch::randn({8, 4});
  auto y = torch::randn({8, 2});
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward(torch::ones_like(loss), true);
    // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: 'retain_graph' is true but no later backward pass in this loop iteration
    opt.step();
  }
}
// CHECK-FIXES: {{^}}    loss.backward(torch::ones_like(loss));{{$}}

void while_loop(Net &model, torch::optim::SGD &opt) {
  int step = 0;
  while (step++ < 10) {
    auto x = torch::randn({8, 4});
    auto loss = model(x).sum();
    torch::autograd::backward({loss}, {}, true);
    // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: 'retain_graph' is true
    opt.step();
  }
}
// CHECK-FIXES: {{^}}    torch::autograd::backward({loss});{{$}}

void do_loop(Net &model, torch::optim::SGD &opt) {
  int step = 0;
  do {
    auto loss = model(torch::randn({8, 4})).mean();
    torch::autograd::backward({loss}, {torch::ones_like(loss)}, c10::optional<bool>(true));
    // CHECK-MESSAGES: :[[@LINE-1]]:65: warning: 'retain_graph' is true
    opt.step();
  } while (++step < 10);
}
// CHECK-FIXES: {{^}}    torch::autograd::backward({loss}, {torch::ones_like(loss)});{{$}}

void create_graph_written(Net &model) {
  auto loss = model(torch::randn({8, 4})).sum();
  loss.backward({}, true, false);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'retain_graph' is true but no later backward pass in this function can reach
}
// CHECK-FIXES: {{^}}  loss.backward({}, false, false);{{$}}

struct Trainer {
  Net model;
  torch::optim::SGD opt{model->parameters(), torch::optim::SGDOptions(0.1)};
  Loader loader;
  void epoch() {
    for (auto &batch : *loader) {
      auto loss = model(batch.front().data).sum();
      loss.backward(torch::Tensor(), true);
      // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'retain_graph' is true
      opt.step();
    }
  }
  void warmup() {
    auto run = [&] {
      for (int i = 0; i < 3; ++i) {
        auto loss = model(torch::randn({2, 4})).sum();
        loss.backward({}, true);
        // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'retain_graph' is true
      }
    };
    run();
  }
  void epoch_with_lambda() {
    for (auto &batch : *loader) {
      auto loss = model(batch.front().data).sum();
      loss.backward();
    }
    auto run = [&] { // another backward in the function: the lambda is not judged
      auto loss = model(torch::randn({2, 4})).sum();
      loss.backward({}, true);
    };
    run();
  }
};
// CHECK-FIXES: {{^}}      loss.backward();{{$}}
// CHECK-FIXES: {{^}}        loss.backward();{{$}}

void commented_arguments(Net &model) {
  auto loss = model(torch::randn({8, 4})).sum();
  loss.backward(/*gradient=*/{}, /*retain_graph=*/true);
  // CHECK-MESSAGES: :[[@LINE-1]]:51: warning: 'retain_graph' is true
}
// CHECK-FIXES: {{^}}  loss.backward();{{$}}

#define RETAIN true
void in_macro(Net &model) {
  auto loss = model(torch::randn({8, 4})).sum();
  loss.backward({}, RETAIN);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'retain_graph' is true
}
// CHECK-FIXES: {{^}}  loss.backward({}, RETAIN);{{$}}

// ---- must not flag ----------------------------------------------------------

void multi_task(Net &trunk, Net &head_a, Net &head_b, torch::Tensor x) {
  auto features = trunk(torch::randn({8, 4}));
  auto loss_a = head_a(features).sum();
  auto loss_b = head_b(features).sum();
  loss_a.backward({}, true); // loss_b's backward goes through the trunk again
  loss_b.backward();
}

void gan(Net &generator, Net &discriminator, torch::optim::Adam &d_opt, torch::optim::Adam &g_opt,
         Loader &loader) {
  for (auto &batch : *loader) {
    auto fake = generator(torch::randn({8, 4}));
    auto d_loss = discriminator(fake).mean() - discriminator(batch.front().data).mean();
    d_loss.backward({}, true);
    d_opt.step();
    auto g_loss = -discriminator(fake).mean();
    g_loss.backward();
    g_opt.step();
  }
}

void graph_built_outside_the_loop(Net &model) {
  auto features = model(torch::randn({8, 4}));
  for (int i = 0; i < 3; ++i) {
    auto loss = (features * i).sum();
    loss.backward({}, true);
  }
}

void built_in_the_for_init(Net &model) {
  for (auto out = model(torch::randn({8, 4})); out.dim() > 0;)
    out.sum().backward({}, true); // the same graph on every iteration
}

void carried_state(Net &model) {
  torch::Tensor h = torch::zeros({8, 4});
  for (int i = 0; i < 3; ++i) {
    h = model(h);
    auto loss = h.sum();
    loss.backward({}, true);
  }
}

struct LSTMNetImpl : torch::nn::Module {
  std::tuple<torch::Tensor, torch::Tensor> forward(torch::Tensor x, torch::Tensor h);
};
TORCH_MODULE(LSTMNet);
void carried_through_tie(LSTMNet &rnn, torch::Tensor x) {
  torch::Tensor h = torch::zeros({8, 4});
  for (int i = 0; i < 3; ++i) {
    torch::Tensor out;
    std::tie(out, h) = rnn(x, h);
    out.sum().backward({}, true);
  }
}

void advance(Net &model, torch::Tensor &state);
void carried_through_reference(Net &model) {
  torch::Tensor state = torch::zeros({8, 4});
  for (int i = 0; i < 3; ++i) {
    advance(model, state);
    auto loss = state.sum();
    loss.backward({}, true);
  }
}

void root_from_caller(torch::Tensor loss) { loss.backward({}, true); }

struct Recurrent {
  Net model;
  torch::Tensor hidden;
  void step() {
    auto loss = model(hidden).sum();
    loss.backward({}, true);
  }
};

void earlier_in_epoch_loop(Net &model, Loader &loader) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    auto warmup = model(torch::randn({8, 4})).sum();
    warmup.backward();
    for (auto &batch : *loader) {
      auto loss = model(batch.front().data).sum();
      loss.backward({}, true);
    }
  }
}

void backward_in_a_lambda(Net &model) {
  auto finish = [](torch::Tensor t) { t.backward(); };
  auto loss = model(torch::randn({8, 4})).sum();
  loss.backward({}, true);
  finish(loss);
}

void second_pass(torch::Tensor loss);
void handed_on(Net &model) {
  auto loss = model(torch::randn({8, 4})).sum();
  loss.backward({}, true);
  second_pass(loss);
}

void not_retaining(Net &model, bool keep) {
  auto a = model(torch::randn({8, 4})).sum();
  a.backward({}, false);
  auto b = model(torch::randn({8, 4})).sum();
  b.backward({}, c10::nullopt);
  auto c = model(torch::randn({8, 4})).sum();
  c.backward({}, keep);
}

void higher_order(Net &model) {
  auto loss = model(torch::randn({8, 4})).sum();
  loss.backward({}, true, /*create_graph=*/true);
}

void grad_then_backward(Net &model, torch::Tensor w) {
  auto loss = model(torch::randn({8, 4})).sum();
  auto grads = torch::autograd::grad({loss}, {w}, {}, true, true);
  (loss + grads[0].sum()).backward();
}
