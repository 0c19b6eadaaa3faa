// RUN: %check_torch_tidy %s torch-unneeded-retain-graph %t
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

// A module whose forward pass is defined here and keeps nothing between calls.
struct LayerImpl : torch::nn::Module {
  LayerImpl() : fc(register_module("fc", torch::nn::Linear(4, 4))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x).relu(); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Layer);

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

// A GAN step whose discriminator loss reads the fake batch through detach():
// the generator's backward pass starts from a graph of its own.
void gan_detached(Layer &generator, Layer &discriminator, torch::optim::Adam &d_opt,
                  torch::optim::Adam &g_opt, Loader &loader) {
  for (auto &batch : *loader) {
    auto real = batch.front().data;
    auto noise = torch::randn({real.size(0), 4});
    auto fake = generator(noise);
    d_opt.zero_grad();
    auto d_loss = discriminator(real).mean() - discriminator(fake.detach()).mean();
    d_loss.backward({}, /*retain_graph=*/true);
    // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'retain_graph' is true but no later backward pass in this loop iteration
    d_opt.step();
    g_opt.zero_grad();
    auto g_loss = -discriminator(fake).mean();
    g_loss.backward();
    g_opt.step();
  }
}
// CHECK-FIXES: {{^}}    d_loss.backward();{{$}}

void gan_detached_free_function(torch::nn::Linear &generator, torch::nn::Sequential &discriminator,
                                torch::optim::Adam &d_opt, torch::optim::Adam &g_opt) {
  for (int step = 0; step < 100; ++step) {
    auto fake = generator(torch::randn({8, 4}));
    auto d_loss = discriminator(fake.detach()).mean();
    torch::autograd::backward({d_loss}, {}, true);
    // CHECK-MESSAGES: :[[@LINE-1]]:45: warning: 'retain_graph' is true
    d_opt.step();
    torch::autograd::backward({-discriminator(fake).mean()});
    g_opt.step();
  }
}
// CHECK-FIXES: {{^}}    torch::autograd::backward({d_loss});{{$}}

// One backward pass per iteration on a loss summed from parts.
void summed_from_parts(Net &model, Net &aux, torch::optim::SGD &opt, Loader &loader) {
  torch::nn::CrossEntropyLoss criterion;
  for (auto &batch : *loader) {
    auto out = model(batch.front().data);
    auto loss = criterion(out, batch.front().target) + 0.1 * aux(out).pow(2).mean();
    opt.zero_grad();
    loss.backward({}, true);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'retain_graph' is true
    opt.step();
  }
}
// CHECK-FIXES: {{^}}    loss.backward();{{$}}

// The loss lives outside the loop; each iteration starts it afresh and adds
// the parts to it.
void parts_added_to_outer_loss(std::vector<Net> &heads, Net &trunk, torch::optim::SGD &opt) {
  torch::Tensor loss;
  for (int step = 0; step < 100; ++step) {
    auto features = trunk(torch::randn({8, 4}));
    loss = torch::zeros({});
    for (auto &head : heads)
      loss += head(features).sum();
    loss.backward(torch::Tensor(), true);
    // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'retain_graph' is true
    opt.step();
  }
}
// CHECK-FIXES: {{^}}    loss.backward();{{$}}

// torch::autograd::grad follows the same rules.
void grad_retained(Net &model, torch::Tensor w) {
  auto loss = model(torch::randn({8, 4})).sum();
  auto grads = torch::autograd::grad({loss}, {w}, {}, /*retain_graph=*/true);
  // CHECK-MESSAGES: :[[@LINE-1]]:72: warning: 'retain_graph' is true but no later backward pass in this function
  w.sub_(grads[0]);
}
// CHECK-FIXES: {{^}}  auto grads = torch::autograd::grad({loss}, {w});{{$}}

void grad_retained_in_loop(Net &model, torch::Tensor w) {
  for (int i = 0; i < 10; ++i) {
    auto loss = model(torch::randn({8, 4})).sum();
    auto grads = torch::autograd::grad({loss}, {w}, {torch::ones_like(loss)}, true, false);
    // CHECK-MESSAGES: :[[@LINE-1]]:79: warning: 'retain_graph' is true
  }
}
// CHECK-FIXES: {{^}}    auto grads = torch::autograd::grad({loss}, {w}, {torch::ones_like(loss)}, false, false);{{$}}

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

// The earlier backward pass of the epoch loop starts from a graph it builds
// itself: it cannot reach the batch loop's graphs.
void earlier_in_epoch_loop_stateless(Layer &model, Loader &loader) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    auto warmup = model(torch::randn({8, 4})).sum();
    warmup.backward();
    for (auto &batch : *loader) {
      auto loss = model(batch.front().data).sum();
      loss.backward({}, true);
      // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'retain_graph' is true
    }
  }
}
// CHECK-FIXES: {{^}}      loss.backward();{{$}}

// Net's forward pass is defined elsewhere, but Net has no data member that
// could keep a tensor (a hidden state) between calls: flagged.
void earlier_in_epoch_loop(Net &model, Loader &loader) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    auto warmup = model(torch::randn({8, 4})).sum();
    warmup.backward();
    for (auto &batch : *loader) {
      auto loss = model(batch.front().data).sum();
      loss.backward({}, true);
      // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'retain_graph' is true but no later backward pass in this loop iteration
    }
  }
}
// CHECK-FIXES: {{^}}      loss.backward();{{$}}

// A module defined elsewhere with a tensor member: its forward pass may keep
// the last output there and link the two graphs.
struct MemoryNetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
  torch::Tensor memory_;
};
TORCH_MODULE(MemoryNet);
void earlier_in_epoch_loop_with_memory(MemoryNet &model, Loader &loader) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    auto warmup = model(torch::randn({8, 4})).sum();
    warmup.backward();
    for (auto &batch : *loader) {
      auto loss = model(batch.front().data).sum();
      loss.backward({}, true);
    }
  }
}

// ... unless it goes through a tensor the batch loop keeps.
void earlier_in_epoch_loop_through_a_kept_loss(Net &model, Loader &loader) {
  torch::Tensor last;
  for (int epoch = 0; epoch < 3; ++epoch) {
    if (last.defined())
      last.backward();
    for (auto &batch : *loader) {
      auto loss = model(batch.front().data).sum();
      loss.backward({}, true);
      last = loss;
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

// The loss lives outside the loop (kept for a report after it) but is
// reassigned as a whole on every iteration before the backward pass: each
// graph is that iteration's own.
namespace libtorch_tidy {
template <class... Ts> void probe(const char *file, int line, const Ts &...tensors);
} // namespace libtorch_tidy
float kept_for_report(Net &model, torch::optim::SGD &opt) {
  torch::Tensor loss;
  for (int step = 0; step < 100; ++step) {
    auto x = torch::randn({8, 4});
    opt.zero_grad();
    loss = model(x).sum();
    loss.backward({}, /*retain_graph=*/true);
    // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: 'retain_graph' is true but no later backward pass in this loop iteration
    opt.step();
    libtorch_tidy::probe("train.cpp", 1, loss); // the runtime companion only reads it
  }
  return loss.item<float>();
}
// CHECK-FIXES: {{^}}    loss.backward();{{$}}

// Reassigned only on some iterations: an older graph may be backwarded again.
void reassigned_sometimes(Net &model, torch::optim::SGD &opt) {
  torch::Tensor loss = model(torch::randn({8, 4})).sum();
  for (int step = 0; step < 100; ++step) {
    if (step % 2 == 0)
      loss = model(torch::randn({8, 4})).sum();
    loss.backward({}, true);
    opt.step();
  }
}

// Reassigned from itself: the graph grows across iterations.
void reassigned_from_itself(Net &model) {
  torch::Tensor total = torch::zeros({});
  for (int step = 0; step < 100; ++step) {
    total = total + model(torch::randn({8, 4})).sum();
    total.backward({}, true);
  }
}

// Reassigned after the backward pass: the backward sees last iteration's graph.
void reassigned_after(Net &model) {
  torch::Tensor loss = model(torch::randn({8, 4})).sum();
  for (int step = 0; step < 100; ++step) {
    loss.backward({}, true);
    loss = model(torch::randn({8, 4})).sum();
  }
}

// The generator's loss goes through the same fake batch without detach().
void gan_not_detached(Net &generator, Net &discriminator, torch::optim::Adam &d_opt) {
  for (int step = 0; step < 100; ++step) {
    auto fake = generator(torch::randn({8, 4}));
    auto d_loss = discriminator(fake).mean();
    d_loss.backward({}, true);
    d_opt.step();
    auto g_loss = -d_loss + fake.pow(2).mean();
    g_loss.backward();
  }
}

// A later backward pass through a variable that holds the first graph.
void reached_through_a_copy(Net &model) {
  for (int step = 0; step < 100; ++step) {
    auto out = model(torch::randn({8, 4}));
    auto loss = out.sum();
    loss.backward({}, true);
    torch::Tensor kept;
    kept = out;
    kept.mean().backward();
  }
}

// A container outside the loop keeps every iteration's loss: a later
// iteration goes back through them all.
void history_kept_in_a_container(Net &model) {
  std::vector<torch::Tensor> history;
  for (int step = 0; step < 100; ++step) {
    auto loss = model(torch::randn({8, 4})).sum();
    history.push_back(loss);
    torch::stack(history).sum().backward({}, true);
  }
}

// Started afresh, then handed to a function that may add anything to it.
void add_regulariser(torch::Tensor &loss);
void modified_by_a_callee(Net &model) {
  torch::Tensor loss;
  for (int step = 0; step < 100; ++step) {
    loss = model(torch::randn({8, 4})).sum();
    add_regulariser(loss);
    loss.backward({}, true);
  }
}

// Added to before it is started afresh: the old value may leak in.
void modified_before_the_reset(Net &model, torch::Tensor extra) {
  torch::Tensor loss = torch::zeros({});
  for (int step = 0; step < 100; ++step) {
    loss += extra;
    loss = model(torch::randn({8, 4})).sum();
    loss.backward({}, true);
  }
}

// grad() keeps the graph for the backward pass that follows on the same loss.
void grad_then_backward_same_loss(Net &model, torch::Tensor w) {
  auto loss = model(torch::randn({8, 4})).sum();
  auto grads = torch::autograd::grad({loss}, {w}, {}, true);
  loss.backward();
}

// Gradient penalty: create_graph keeps the graph anyway.
void gradient_penalty(Net &critic, torch::Tensor real, torch::optim::Adam &opt) {
  for (int step = 0; step < 100; ++step) {
    auto x = real.clone().requires_grad_(true);
    auto out = critic(x);
    auto g = torch::autograd::grad({out.sum()}, {x}, {}, true, true)[0];
    auto loss = out.mean() + (g.pow(2).sum() - 1).pow(2);
    loss.backward();
    opt.step();
  }
}

// A module that keeps its hidden state between calls: the generator's graph
// goes back through the discriminator's first call.
struct StatefulImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    hidden_ = hidden_.defined() ? (hidden_ + x).tanh() : x.tanh();
    return hidden_;
  }
  torch::Tensor hidden_;
};
TORCH_MODULE(Stateful);
void gan_stateful_discriminator(Layer &generator, Stateful &discriminator) {
  for (int step = 0; step < 100; ++step) {
    auto fake = generator(torch::randn({8, 4}));
    auto d_loss = discriminator(fake.detach()).mean();
    d_loss.backward({}, true);
    auto g_loss = -discriminator(fake).mean();
    g_loss.backward();
  }
}

// A module that holds such a module.
struct WrapperImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return inner(x); }
  Stateful inner;
};
TORCH_MODULE(Wrapper);
void gan_wrapped_stateful(Layer &generator, Wrapper &discriminator) {
  for (int step = 0; step < 100; ++step) {
    auto fake = generator(torch::randn({8, 4}));
    auto d_loss = discriminator(fake.detach()).mean();
    d_loss.backward({}, true);
    discriminator(fake).mean().backward();
  }
}

// Both losses come from the user's own helper, which may keep state.
torch::Tensor critic_score(Layer &critic, torch::Tensor x);
void gan_through_helper(Layer &generator, Layer &critic) {
  for (int step = 0; step < 100; ++step) {
    auto fake = generator(torch::randn({8, 4}));
    auto d_loss = critic_score(critic, fake.detach());
    d_loss.backward({}, true);
    critic_score(critic, fake).backward();
  }
}

// One backward pass per iteration, but the module carries its hidden state
// into the next iteration's graph.
void stateful_single_backward(Stateful &rnn, torch::optim::SGD &opt) {
  for (int step = 0; step < 100; ++step) {
    auto loss = rnn(torch::randn({8, 4})).sum();
    loss.backward({}, true);
    opt.step();
  }
}

// Pairs kept by the user may hold graphs: both losses read the same element.
void shared_buffer_element(Layer &generator, Layer &discriminator,
                           std::vector<std::pair<torch::Tensor, torch::Tensor>> &buffer) {
  for (auto &item : buffer) {
    auto d_loss = discriminator(item.first.detach()).mean() + item.second.mean();
    d_loss.backward({}, true);
    auto g_loss = discriminator(generator(item.second)).mean();
    g_loss.backward();
  }
}

// Order comes from the control-flow graph: a backward pass in the other
// branch of an `if` never runs after this one.
void one_branch_or_the_other(Layer &model, bool accumulate) {
  auto branch_loss = model(torch::randn({8, 4})).sum();
  if (accumulate)
    branch_loss.backward({}, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'retain_graph' is true but no later backward pass in this function can reach the graph
  else
    branch_loss.backward();
}
// CHECK-FIXES: {{^}}    branch_loss.backward();{{$}}

// Nor does a call of the user's code that a `return` skips.
void log_loss(torch::Tensor loss);
void retain_or_log(Layer &model, bool log) {
  auto logged_loss = model(torch::randn({8, 4})).sum();
  if (!log) {
    logged_loss.backward({}, true);
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'retain_graph' is true but no later backward pass in this function can reach the graph
    return;
  }
  log_loss(logged_loss);
}
// CHECK-FIXES: {{^}}    logged_loss.backward();{{$}}
// The same inside a lambda, from the order of its body; the look-alike hands
// the graph on.
void retain_or_log_in_lambda(Layer &model, bool log) {
  auto step = [&] {
    auto lambda_loss = model(torch::randn({8, 4})).sum();
    if (!log) {
      lambda_loss.backward({}, true);
      // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'retain_graph' is true but no later backward pass in this function can reach the graph
      return;
    }
    log_loss(lambda_loss);
  };
  step();
}
// CHECK-FIXES: {{^}}      lambda_loss.backward();{{$}}
void retain_then_log_in_lambda(Layer &model) {
  auto step = [&] {
    auto handed_loss = model(torch::randn({8, 4})).sum();
    handed_loss.backward({}, true);
    log_loss(handed_loss);
  };
  step();
}

// In a lambda, which values reach the backward pass comes from the order of
// the lambda's body, as in a function body: `out` is made anew before it on
// every iteration, so the state it started from is not in the graph. The
// look-alike makes it anew only from the second iteration on.
void overwritten_in_lambda(Layer &model) {
  auto run = [&] {
    torch::Tensor hidden = model(torch::randn({8, 4}));
    for (int i = 0; i < 3; ++i) {
      torch::Tensor out = hidden;
      out = model(torch::randn({8, 4}));
      out.sum().backward({}, true);
      // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'retain_graph' is true but no later backward pass in this loop iteration can reach the graph
    }
  };
  run();
}
// CHECK-FIXES: {{^}}      out.sum().backward();{{$}}
void kept_from_first_iteration_in_lambda(Layer &model) {
  auto run = [&] {
    torch::Tensor hidden = model(torch::randn({8, 4}));
    for (int i = 0; i < 3; ++i) {
      torch::Tensor first_out = hidden;
      if (i > 0)
        first_out = model(torch::randn({8, 4}));
      first_out.sum().backward({}, true);
    }
  };
  run();
}

// Look-alikes: a backward pass after the `if` may run after it; a helper
// called after it may run its own.
void retain_then_maybe(Layer &model, bool twice) {
  auto maybe_loss = model(torch::randn({8, 4})).sum();
  maybe_loss.backward({}, true);
  if (twice)
    maybe_loss.backward();
}
void retain_then_log(Layer &model, bool log) {
  auto kept_loss = model(torch::randn({8, 4})).sum();
  if (log)
    kept_loss.backward({}, true);
  log_loss(kept_loss);
}

// A loss declared before the loop and made anew only on some iterations: on
// the others the same graph is back-propagated again.
void reassigned_in_branch(Layer &model, torch::optim::SGD &opt, bool fresh) {
  torch::Tensor sometimes_loss = torch::zeros({});
  for (int step = 0; step < 10; ++step) {
    if (fresh)
      sometimes_loss = model(torch::randn({8, 4})).sum();
    sometimes_loss.backward({}, true);
    opt.step();
  }
}
// A loss declared before the loop and made anew on every iteration before the
// backward pass (then added to): the graph is this iteration's.
void reassigned_every_iteration(Layer &model, torch::optim::SGD &opt, bool extra) {
  torch::Tensor fresh_loss;
  for (int step = 0; step < 10; ++step) {
    fresh_loss = model(torch::randn({8, 4})).sum();
    if (extra)
      fresh_loss += torch::randn({});
    fresh_loss.backward({}, true);
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'retain_graph' is true but no later backward pass in this loop iteration can reach the graph
    opt.step();
  }
}
// CHECK-FIXES: {{^}}    fresh_loss.backward();{{$}}

// Look-alikes: the graph leaves the function after the backward pass, returned
// or stored where it outlives the call; the caller may back-propagate again.
torch::Tensor returns_root(Layer &model) {
  auto returned_loss = model(torch::randn({8, 4})).sum();
  returned_loss.backward({}, true);
  return returned_loss;
}
torch::Tensor returns_in_branch(Layer &model, bool keep) {
  auto branch_kept = model(torch::randn({8, 4})).sum();
  if (keep) {
    branch_kept.backward({}, true);
    return branch_kept;
  }
  branch_kept.backward();
  return torch::Tensor();
}
struct Keeper {
  torch::Tensor kept;
  std::vector<torch::Tensor> history;
  void store(Layer &model);
  void record(Layer &model);
};
void Keeper::store(Layer &model) {
  auto stored_loss = model(torch::randn({8, 4})).sum();
  stored_loss.backward({}, true);
  kept = stored_loss;
}
void Keeper::record(Layer &model) {
  auto output = model(torch::randn({8, 4}));
  auto recorded_loss = output.sum();
  recorded_loss.backward({}, true);
  auto scaled = output * 2;
  history.push_back(scaled);
}
void out_parameter(Layer &model, torch::Tensor &out) {
  auto out_loss = model(torch::randn({8, 4})).sum();
  out_loss.backward({}, true);
  out = out_loss;
}
// What leaves carries no graph: flagged.
torch::Tensor returns_detached(Layer &model) {
  auto detached_loss = model(torch::randn({8, 4})).sum();
  detached_loss.backward({}, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'retain_graph' is true but no later backward pass in this function can reach the graph
  return detached_loss.detach();
}
// CHECK-FIXES: {{^}}  detached_loss.backward();{{$}}

// ---- where each later backward pass's graph comes from ------------------------

// A PPO update (lolmanjo/LibTorch_PPO): every epoch runs a new forward pass on
// the detached rollout; only the last epoch passes false. The next epoch's
// backward pass, or the last one's, never reaches this epoch's graph.
struct PolicyImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Policy);
void ppo_epochs(Policy &model, torch::optim::Adam &optimizer, std::vector<torch::Tensor> &states,
                std::vector<torch::Tensor> &log_probs, torch::Tensor advantages, int epochs) {
  auto t_states = torch::cat(states).detach();
  auto t_old = torch::cat(log_probs).detach();
  auto t_adv = advantages.detach();
  for (int i = 0; i < epochs; i++) {
    auto new_log_prob = model(t_states);
    auto ratio = (new_log_prob - t_old).exp();
    auto ppo_loss = -(ratio * t_adv).mean();
    optimizer.zero_grad();
    if (i != epochs - 1) {
      ppo_loss.backward({}, true);
      // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'retain_graph' is true but no later backward pass in this loop iteration can reach the graph
    } else {
      ppo_loss.backward({}, false);
    }
    optimizer.step();
  }
}
// CHECK-FIXES: {{^}}      ppo_loss.backward();{{$}}

// A SAC update (QuentinVacher-rl/SoftActorCritic-in-Cpp-using-LibTorch): the
// actor loss comes from a second sampleNormal and new critic passes (the
// variables are reassigned first), the critic loss from the stored batch; the
// target network's output, computed before the first backward pass, is in
// the critic loss's graph only.
struct ActorImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor state);
  std::pair<torch::Tensor, torch::Tensor> sampleNormal(torch::Tensor state, bool reparameterize);
};
TORCH_MODULE(Actor);
struct CriticImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor state, torch::Tensor action);
};
TORCH_MODULE(Critic);
void sac_learn(Actor &actor, Critic &critic, Policy &value, Policy &target, torch::optim::Adam &opt,
               torch::Tensor batch, torch::Tensor batch_actions, torch::Tensor batch_rewards) {
  auto states = batch.detach();
  auto stored_actions = batch_actions.detach();
  auto rewards = batch_rewards.detach();
  auto v = value(states);
  auto next_v = target(states);
  auto out = actor->sampleNormal(states, false);
  auto criticValue = critic(states, out.first);
  auto valueLoss = torch::mse_loss(v, criticValue - out.second);
  valueLoss.backward({}, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'retain_graph' is true but no later backward pass in this function can reach the graph
  opt.step();

  out = actor->sampleNormal(states, true);
  criticValue = critic(states, out.first);
  auto actorLoss = (out.second - criticValue).mean();
  opt.zero_grad();
  actorLoss.backward({}, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'retain_graph' is true but no later backward pass in this function can reach the graph
  opt.step();

  auto q_hat = rewards + 0.99 * next_v;
  auto criticLoss = torch::mse_loss(critic(states, stored_actions), q_hat);
  opt.zero_grad();
  criticLoss.backward();
  opt.step();
}
// CHECK-FIXES: {{^}}  valueLoss.backward();{{$}}
// CHECK-FIXES: {{^}}  actorLoss.backward();{{$}}

// Look-alikes: the later graph does share a node with the retained one.

// The value computed before the first backward pass goes into the second loss.
void sac_value_reused(Critic &critic, Policy &value, torch::Tensor batch, torch::Tensor actions) {
  auto states = batch.detach();
  auto reused_v = value(states);
  auto first_loss = reused_v.pow(2).mean();
  first_loss.backward({}, true);
  auto second_loss = torch::mse_loss(critic(states, actions.detach()), reused_v);
  second_loss.backward();
}

// The variable is reassigned between the passes, but an intermediate computed
// from its first value is read by the second loss.
void reassigned_but_intermediate_kept(Actor &actor, Critic &critic, torch::Tensor batch) {
  auto states = batch.detach();
  auto sampled = actor->sampleNormal(states, true);
  auto q = critic(states, sampled.first);
  auto q_loss = q.mean();
  q_loss.backward({}, true);
  sampled = actor->sampleNormal(states, true);
  auto both_loss = (q + sampled.second).mean();
  both_loss.backward();
}

// Copies taken before the reassignment keep the first value.
void copy_before_reassignment(Layer &f, Layer &g) {
  auto a = f(torch::randn({8, 4}));
  auto b = a * 2;
  auto c = a * 3;
  a = g(torch::randn({8, 4}));
  b.sum().backward({}, true);
  c.sum().backward();
}

// A graph built by indexed assignment, backpropagated twice through k.
void indexed_assignment(Layer &f, Layer &g) {
  auto x = torch::randn({8, 4});
  auto k = torch::zeros({2});
  k[0] = f(x).sum();
  k[1] = g(x).sum();
  k.sum().backward({}, true);
  k.mean().backward();
}
void indexed_assignment_before_loop(Layer &f) {
  auto k = torch::zeros({2});
  k.index_put_({0}, f(torch::randn({8, 4})).sum());
  for (int i = 0; i < 3; ++i) {
    auto pass_loss = (k * i).sum();
    pass_loss.backward({}, true);
  }
}

// Iteration i + 1 goes back through a value kept from iteration i.
void kept_from_last_iteration(Layer &model) {
  torch::Tensor prev;
  for (int i = 0; i < 10; ++i) {
    auto cur = model(torch::randn({8, 4}));
    cur.sum().backward({}, true);
    if (prev.defined())
      (prev * cur).sum().backward();
    prev = cur;
  }
}

// The epoch loop's losses all read a forward pass run once before the loop.
void ppo_epochs_shared_old_values(Policy &model, torch::Tensor rollout, int epochs) {
  auto t_states = rollout.detach();
  auto old_values = model(t_states);
  for (int i = 0; i < epochs; i++) {
    auto value_loss = (model(t_states) - old_values).pow(2).mean();
    if (i != epochs - 1)
      value_loss.backward({}, true);
    else
      value_loss.backward({}, false);
  }
}

// A recurrent policy that visibly stores its output in a member: the next
// epoch's forward pass starts from this epoch's graph.
struct RecurrentPolicyImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    h_ = h_.defined() ? (h_ + x).tanh() : x.tanh();
    return h_;
  }
  torch::Tensor h_;
};
TORCH_MODULE(RecurrentPolicy);
void ppo_epochs_recurrent(RecurrentPolicy &model, torch::Tensor rollout, int epochs) {
  auto t_states = rollout.detach();
  for (int i = 0; i < epochs; i++) {
    auto rec_loss = model(t_states).mean();
    if (i != epochs - 1)
      rec_loss.backward({}, true);
    else
      rec_loss.backward({}, false);
  }
}

// The same with a module defined elsewhere that has a tensor member.
void ppo_epochs_memory(MemoryNet &model, torch::Tensor rollout, int epochs) {
  auto t_states = rollout.detach();
  for (int i = 0; i < epochs; i++) {
    auto mem_loss = model(t_states).mean();
    if (i != epochs - 1)
      mem_loss.backward({}, true);
    else
      mem_loss.backward({}, false);
  }
}

// A method of the module defined elsewhere, on a module with a tensor member.
struct SamplerImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor state);
  std::pair<torch::Tensor, torch::Tensor> sampleNormal(torch::Tensor state, bool reparameterize);
  torch::Tensor last_mu_;
};
TORCH_MODULE(Sampler);
void sac_stateful_sampler(Sampler &actor, Critic &critic, torch::Tensor batch) {
  auto states = batch.detach();
  auto s1 = actor->sampleNormal(states, false);
  auto l1 = critic(states, s1.first).mean();
  l1.backward({}, true);
  auto s2 = actor->sampleNormal(states, true);
  auto l2 = critic(states, s2.first).mean();
  l2.backward();
}

// Within one epoch, a second backward pass through the same loss.
void ppo_epoch_twice(Policy &model, torch::Tensor rollout, int epochs) {
  auto t_states = rollout.detach();
  for (int i = 0; i < epochs; i++) {
    auto twice_loss = model(t_states).mean();
    twice_loss.backward({}, true);
    (twice_loss * 2).backward();
  }
}

// The module reached through a call (lolmanjo/LibTorch_PPO reaches it as
// agent->model->get()): which instance is unknown, but its class keeps
// nothing between calls.
struct Agent {
  Policy *model;
  MemoryNet *memory_model;
};
void ppo_epochs_through_agent(Agent *agent, torch::Tensor rollout, int epochs) {
  auto t_states = rollout.detach();
  for (int i = 0; i < epochs; i++) {
    auto agent_loss = agent->model->get()->forward(t_states).mean();
    if (i != epochs - 1)
      agent_loss.backward({}, true);
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'retain_graph' is true but no later backward pass in this loop iteration can reach the graph
    else
      agent_loss.backward({}, false);
  }
}
// CHECK-FIXES: {{^}}      agent_loss.backward();{{$}}
// ... and one whose class has a tensor member may keep one.
void ppo_epochs_through_agent_memory(Agent *agent, torch::Tensor rollout, int epochs) {
  auto t_states = rollout.detach();
  for (int i = 0; i < epochs; i++) {
    auto agent_mem_loss = agent->memory_model->get()->forward(t_states).mean();
    if (i != epochs - 1)
      agent_mem_loss.backward({}, true);
    else
      agent_mem_loss.backward({}, false);
  }
}

// The module class itself (not its TORCH_MODULE holder) keeps a hidden state.
void stateful_impl_reference(StatefulImpl &rnn) {
  for (int step = 0; step < 100; ++step) {
    auto impl_loss = rnn.forward(torch::randn({8, 4})).sum();
    impl_loss.backward({}, true);
  }
}

// lolmanjo/LibTorch_PPO's shape: the mini-batches are declared before the
// epoch loop, started afresh with torch::zeros on every epoch and filled from
// the rollout; the advantages are computed before the loop from detached
// tensors. Every epoch's graph is its own.
void ppo_minibatches(Agent *agent, std::vector<torch::Tensor> &values,
                     std::vector<torch::Tensor> &states, int epochs, int mb) {
  torch::Tensor t_values = torch::cat(values).detach();
  torch::Tensor t_states = torch::cat(states).detach();
  torch::Tensor t_advantages = (t_values - t_values.mean()) * 2;
  torch::Tensor mini_states;
  torch::Tensor mini_advantages;
  for (int i = 0; i < epochs; i++) {
    mini_states = torch::zeros({mb, 4});
    mini_advantages = torch::zeros({mb, 1});
    for (int b = 0; b < mb; b++) {
      mini_states[b] = t_states[i * mb + b];
      mini_advantages[b] = t_advantages[i * mb + b];
    }
    torch::Tensor total_loss = -(agent->model->get()->forward(mini_states) * mini_advantages).mean();
    if (i != epochs - 1)
      total_loss.backward({}, true);
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'retain_graph' is true but no later backward pass in this loop iteration can reach the graph
    else
      total_loss.backward({}, false);
  }
}
// CHECK-FIXES: {{^}}      total_loss.backward();{{$}}

// ... but advantages computed before the loop from a forward pass that is not
// detached are in every epoch's graph.
void ppo_minibatches_shared_values(Agent *agent, torch::Tensor rollout, int epochs) {
  torch::Tensor t_states = rollout.detach();
  torch::Tensor t_values = agent->model->get()->forward(t_states);
  torch::Tensor t_adv = (t_values - t_values.mean()) * 2;
  for (int i = 0; i < epochs; i++) {
    torch::Tensor adv_loss = -(agent->model->get()->forward(t_states) * t_adv).mean();
    if (i != epochs - 1)
      adv_loss.backward({}, true);
    else
      adv_loss.backward({}, false);
  }
}

// ... and the rollout filled into the mini-batch without detach() carries the
// graph of the forward pass that made it.
void ppo_minibatches_from_graph(Agent *agent, torch::Tensor rollout, int epochs, int mb) {
  torch::Tensor t_states = rollout.detach();
  torch::Tensor t_logits = agent->model->get()->forward(t_states);
  torch::Tensor mini_logits;
  for (int i = 0; i < epochs; i++) {
    mini_logits = torch::zeros({mb, 4});
    for (int b = 0; b < mb; b++)
      mini_logits[b] = t_logits[i * mb + b];
    torch::Tensor logit_loss = mini_logits.pow(2).mean();
    if (i != epochs - 1)
      logit_loss.backward({}, true);
    else
      logit_loss.backward({}, false);
  }
}

// The mini-batch is made with options from the user's code
// (lolmanjo/LibTorch_PPO's TrainingController::getTensorOptions()): a call
// that yields no tensor brings no graph in.
const torch::TensorOptions &training_options();
void ppo_user_options(Policy &model, torch::Tensor rollout, int epochs) {
  auto t_states = rollout.detach();
  torch::Tensor mini;
  for (int i = 0; i < epochs; i++) {
    mini = torch::zeros({8, 4}, training_options()) + t_states;
    auto opt_loss = model(mini).mean();
    if (i != epochs - 1)
      opt_loss.backward({}, true);
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'retain_graph' is true but no later backward pass in this loop iteration can reach the graph
    else
      opt_loss.backward({}, false);
  }
}
// CHECK-FIXES: {{^}}      opt_loss.backward();{{$}}

// ... but one that yields a tensor may hand both epochs the same graph.
torch::Tensor cached_features(Policy &model);
void ppo_user_tensor(Policy &model, int epochs) {
  for (int i = 0; i < epochs; i++) {
    auto cached_loss = model(cached_features(model)).mean();
    if (i != epochs - 1)
      cached_loss.backward({}, true);
    else
      cached_loss.backward({}, false);
  }
}
