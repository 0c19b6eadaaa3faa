// Recall-2 reproducer (false positive), from Edamame0011/SchNet_LibTorch_CUDA (src/schnet/app/app.cpp, the
// evaluation loop of schnet::app::train, line 139, and src/schnet/module/SchNetModel.cu, whose forward computes
// the forces as the gradient of the energy with torch::autograd::grad), reduced.
// Expected: no warning. The model's forward needs autograd on: it differentiates the energy with respect to
// the edge vectors to get the forces (a force-field model). A NoGradGuard over the evaluation loop would make
// autograd::grad throw ("element 0 of tensors does not require grad"), and nothing outlives an iteration
// (the losses are summed as floats). In the project the forward is defined in another unit (which, at this
// commit, does not compile), so even --cross-tu cannot see the autograd::grad; here it is in the same file.
//   torch-eval-without-no-grad warns today at line 42 (the forward pass after model->eval()), although the
//   forward of the same file calls autograd::grad.
#include <torch/torch.h>

struct Graph {
  torch::Tensor x, edge_weight;
};

struct SchNetImpl : torch::nn::Module {
  std::tuple<torch::Tensor, torch::Tensor> forward(Graph &graph) {
    graph.edge_weight.set_requires_grad(true);
    auto energy = output->forward(embedding->forward(graph.x) * graph.edge_weight);
    auto diff_E = torch::autograd::grad({energy.sum()}, {graph.edge_weight}, {}, true, true)[0];
    return std::make_tuple(energy.sum(), -diff_E);
  }
  torch::nn::Linear embedding{nullptr}, output{nullptr};
};
TORCH_MODULE(SchNet);

void train(SchNet &model, Graph *train_graph, torch::Tensor *train_energy, Graph *test_graph,
           torch::Tensor *test_energy, torch::Tensor *test_forces, int n_train, int n_test,
           torch::optim::Optimizer &optimizer) {
  model->train();
  for (int i = 0; i < n_train; i++) {
    optimizer.zero_grad();
    auto [pred_energy, pred_forces] = model->forward(train_graph[i]);
    auto l = torch::mse_loss(pred_energy, train_energy[i]);
    l.backward();
    optimizer.step();
  }
  float loss_total = 0.0f;
  model->eval();
  for (int i = 0; i < n_test; i++) {
    auto [pred_energy, pred_forces] = model->forward(test_graph[i]);
    auto l = torch::mse_loss(pred_energy, test_energy[i]) + torch::mse_loss(pred_forces, test_forces[i]);
    loss_total += l.item<float>();
  }
}
