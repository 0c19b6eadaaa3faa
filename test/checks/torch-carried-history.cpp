// RUN: %check_torch_tidy %s torch-carried-history %t
#include <torch/torch.h>

namespace F = torch::nn::functional;
using Loader = torch::data::StatelessDataLoader<torch::data::datasets::MNIST,
                                                torch::data::samplers::RandomSampler>;

struct CellImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x, torch::Tensor h) { return (x + h).tanh(); }
};
TORCH_MODULE(Cell);

// ---- positives: every kind of loop ----------------------------------------

void for_loop(torch::nn::GRUCell &cell, torch::optim::SGD &opt, torch::Tensor x) {
  torch::Tensor h = torch::zeros({1, 8});
  for (int t = 0; t < 100; ++t) {
    h = cell(x, h);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'h' carries the autograd graph of every earlier iteration into this forward pass: with a backward pass in the same loop, memory and backward time grow every iteration; detach it [torch-carried-history]
    auto loss = h.sum();
    opt.zero_grad();
    loss.backward({}, /*retain_graph=*/true);
    opt.step();
  }
}
// CHECK-FIXES: {{^}}    h = cell(x, h.detach());{{$}}

void range_for_over_loader(torch::nn::GRU &gru, torch::optim::SGD &opt, Loader &loader) {
  torch::Tensor hidden = torch::zeros({1, 1, 8});
  for (auto &batch : loader) {
    torch::Tensor out;
    std::tie(out, hidden) = gru->forward(batch[0].data, hidden);
    // CHECK-MESSAGES: :[[@LINE-1]]:57: warning: 'hidden' carries the autograd graph
    auto loss = F::mse_loss(out, batch[0].target);
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}
// CHECK-FIXES: {{^}}    std::tie(out, hidden) = gru->forward(batch[0].data, hidden.detach());{{$}}

void while_loop_structured_binding(torch::nn::GRU &gru, torch::optim::SGD &opt, torch::Tensor x) {
  torch::Tensor h = torch::zeros({1, 1, 8});
  int step = 0;
  while (step++ < 100) {
    auto [out, new_h] = gru(x, h);
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'h' carries the autograd graph
    h = new_h;
    out.sum().backward();
    opt.step();
  }
}
// CHECK-FIXES: {{^}}    auto [out, new_h] = gru(x, h.detach());{{$}}

void do_loop_lstm_tuple_state(torch::nn::LSTM &lstm, torch::optim::SGD &opt, torch::Tensor x) {
  std::tuple<torch::Tensor, torch::Tensor> state{torch::zeros({1, 1, 8}), torch::zeros({1, 1, 8})};
  int step = 0;
  do {
    auto result = lstm->forward(x, state);
    // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'state' carries the autograd graph
    state = std::get<1>(result);
    std::get<0>(result).sum().backward();
    opt.step();
  } while (++step < 100);
}
// CHECK-FIXES: {{^}}    auto result = lstm->forward(x, std::make_tuple(std::get<0>(state).detach(), std::get<1>(state).detach()));{{$}}

void lstm_separate_tensors(torch::nn::LSTM &lstm, torch::optim::SGD &opt, torch::Tensor x) {
  torch::Tensor h = torch::zeros({1, 1, 8}), c = torch::zeros({1, 1, 8});
  for (int t = 0; t < 10; ++t) {
    auto [out, hc] = lstm(x, std::make_tuple(h, c));
    // CHECK-MESSAGES: :[[@LINE-1]]:46: warning: 'h' carries the autograd graph
    // CHECK-MESSAGES: :[[@LINE-2]]:49: warning: 'c' carries the autograd graph
    h = std::get<0>(hc);
    c = std::get<1>(hc);
    out.mean().backward();
  }
}
// CHECK-FIXES: {{^}}    auto [out, hc] = lstm(x, std::make_tuple(h.detach(), c.detach()));{{$}}

struct Trainer {
  Cell cell;
  torch::Tensor hidden_;
  torch::optim::Adam *opt;
  void train_epoch(const std::vector<torch::Tensor> &xs) {
    for (const auto &x : xs) {
      auto next = cell->forward(x, hidden_);
      // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'hidden_' carries the autograd graph
      hidden_ = next;
      opt->zero_grad();
      next.sum().backward();
      opt->step();
    }
  }
};
// CHECK-FIXES: {{^}}      auto next = cell->forward(x, hidden_.detach());{{$}}

void in_lambda(Cell &cell, torch::Tensor x) {
  torch::Tensor h = torch::zeros({1, 8});
  auto run = [&](int steps) {
    for (int t = 0; t < steps; ++t) {
      h = cell(x, h) * 0.5;
      // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'h' carries the autograd graph
      h.sum().backward();
    }
  };
  run(10);
}
// CHECK-FIXES: {{^}}      h = cell(x, h.detach()) * 0.5;{{$}}

void carried_across_outer_loop(Cell &cell, torch::Tensor x) {
  torch::Tensor h = torch::zeros({1, 8});
  for (int chunk = 0; chunk < 10; ++chunk) {
    torch::Tensor loss = torch::zeros({});
    for (int t = 0; t < 35; ++t) {
      h = cell(x, h);
      // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'h' carries the autograd graph
      loss += h.sum();
    }
    loss.backward();
  }
}
// CHECK-FIXES: {{^}}      h = cell(x, h.detach());{{$}}

// ---- negatives -------------------------------------------------------------

void detached_in_place(Cell &cell, torch::Tensor x) {
  torch::Tensor h = torch::zeros({1, 8});
  for (int t = 0; t < 100; ++t) {
    h.detach_();
    h = cell(x, h);
    h.sum().backward();
  }
}

void detached_on_assignment(Cell &cell, torch::Tensor x) {
  torch::Tensor h = torch::zeros({1, 8});
  for (int t = 0; t < 100; ++t) {
    auto out = cell(x, h);
    h = out.detach();
    out.sum().backward();
  }
}

void detached_at_the_call(Cell &cell, torch::Tensor x) {
  torch::Tensor h = torch::zeros({1, 8});
  for (int t = 0; t < 100; ++t) {
    h = cell(x, h.detach());
    h.sum().backward();
  }
}

void tuple_state_detached(torch::nn::LSTM &lstm, torch::Tensor x) {
  std::tuple<torch::Tensor, torch::Tensor> state;
  for (int t = 0; t < 10; ++t) {
    auto result = lstm(x, state);
    state = std::make_tuple(std::get<0>(std::get<1>(result)).detach(),
                            std::get<1>(std::get<1>(result)).detach());
    std::get<0>(result).sum().backward();
  }
}

void full_bptt(Cell &cell, torch::Tensor x) {
  torch::Tensor h = torch::zeros({1, 8});
  torch::Tensor loss = torch::zeros({});
  for (int t = 0; t < 35; ++t) {
    h = cell(x, h);
    loss += h.sum();
  }
  loss.backward(); // after the loop: full back-propagation through time
}

void reset_every_sequence(Cell &cell, std::vector<torch::Tensor> sequences) {
  torch::Tensor h;
  for (auto &seq : sequences) {
    h = torch::zeros({1, 8});
    torch::Tensor loss = torch::zeros({});
    for (int t = 0; t < 35; ++t) {
      h = cell(seq, h);
      loss += h.sum();
    }
    loss.backward();
  }
}

void guarded(Cell &cell, torch::Tensor x) {
  torch::Tensor h = torch::zeros({1, 8});
  for (int t = 0; t < 100; ++t) {
    {
      torch::NoGradGuard no_grad;
      h = cell(x, h);
    }
    x.sum().backward();
  }
}

void declared_in_loop(Cell &cell, torch::Tensor x) {
  for (int t = 0; t < 100; ++t) {
    torch::Tensor h = torch::zeros({1, 8});
    h = cell(x, h);
    h.sum().backward();
  }
}

void not_reassigned_from_forward(Cell &cell, torch::Tensor x, torch::Tensor bias) {
  torch::Tensor h = torch::zeros({1, 8});
  for (int t = 0; t < 100; ++t) {
    auto out = cell(x, bias);
    out.sum().backward();
  }
}

void recomputed_each_sequence(Cell &encoder, Cell &decoder, std::vector<torch::Tensor> xs) {
  torch::Tensor h;
  for (auto &x : xs) {
    h = encoder(x, x);
    torch::Tensor loss = torch::zeros({});
    for (int t = 0; t < 10; ++t) {
      h = decoder(x, h);
      loss += h.sum();
    }
    loss.backward();
  }
}
