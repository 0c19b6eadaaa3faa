// Recall round 2 reproducer (miss), from cemlyn007/ale-libtorch-ppo (src/ai/ppo/train.h 98 (Metrics::set),
// called at 154 from the mini-batch loop of train(), the loss made at 118-129 by mini_batch_update),
// reduced. Every mini-batch copies the PPO loss, which carries autograd history, into a slot of the
// data member 'Metrics::loss' with index_put_: an in-place copy recorded by autograd, so 'loss' gets a
// grad_fn chaining every mini-batch's graph. 'metrics' lives for the whole run (made once in main) and
// is never reset: the chain grows by one graph per mini-batch for all 7000 rollouts (backward() has
// freed the saved activations; the nodes stay).
// Expected: a [torch-accumulated-history] warning at line 27 (the index_put_ in the member called from
// the mini-batch loop), or at the call at line 48; today: none.
#include <torch/torch.h>

struct Result {
  torch::Tensor loss;
  torch::Tensor clipped_gradient;
};

struct Metrics {
  torch::Tensor loss;
  torch::Tensor clipped_gradients;

  Metrics(int64_t epochs, int64_t mini_batches) {
    loss = torch::empty({epochs, mini_batches});
    clipped_gradients = torch::empty({epochs, mini_batches});
  }

  void set(int64_t epoch, int64_t mini_batch, const Result &result) {
    loss.index_put_({epoch, mini_batch}, result.loss.reshape({1}));
    clipped_gradients.index_put_({epoch, mini_batch}, result.clipped_gradient);
  }
};

Result mini_batch_update(torch::nn::Linear &net, torch::optim::Optimizer &optimizer, const torch::Tensor &x) {
  auto out = net->forward(x);
  auto loss = out.pow(2).mean();
  optimizer.zero_grad();
  loss.backward();
  auto norm = torch::zeros({1});
  optimizer.step();
  return Result{loss, norm};
}

void train(torch::nn::Linear &net, torch::optim::Optimizer &optimizer, Metrics &metrics,
           const torch::Tensor &batch, int64_t epochs, int64_t mini_batches) {
  net->train();
  for (int64_t e = 0; e < epochs; ++e) {
    for (int64_t m = 0; m < mini_batches; ++m) {
      Result result = mini_batch_update(net, optimizer, batch);
      metrics.set(e, m, result);
    }
  }
}
