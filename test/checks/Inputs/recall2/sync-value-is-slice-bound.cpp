// Recall-2 reproducer (false positive), from fa0635/Tracking_GNN_Libtorch-3 (train_2.cc, the training loop of
// main, lines 200-219), reduced.
// Expected: no torch-sync-in-loop warning at line 33. The value read by item() is the host-side bound that the
// step needs: it is an argument of the forward pass (which slices by it and builds a
// torch::ones({new_edge_start, 1}) block) and the bound of the slices the loss is computed on; no tensor can
// stand in for it, so the host has to read it on every iteration (a sync whose value the host needs is not
// a defect by the labelling policy). In the project it is moreover a field of a batch that the project's own
// graph loader assembles on the host. The running-loss sum of line 39 is a finding of its own (debatable in
// the project, which runs on the CPU only at this commit) and stays.
//   torch-sync-in-loop warns today at line 33.
#include <torch/torch.h>

struct GraphBatch {
  torch::Tensor node_attr, answer, new_edge_start;
};

struct GNNImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor node_attr, int new_edge_start) {
    auto rest = mlp->forward(node_attr.index({torch::indexing::Slice(new_edge_start, torch::indexing::None)}));
    return torch::cat({torch::ones({new_edge_start, 1}), rest}, 0);
  }
  torch::nn::Linear mlp{nullptr};
};
TORCH_MODULE(GNN);

float train_epoch(GNN &model, std::vector<GraphBatch> &loader, torch::optim::Optimizer &optimizer) {
  using torch::indexing::None;
  using torch::indexing::Slice;
  float train_epoch_loss = 0.0;
  model->train();
  optimizer.zero_grad();
  for (auto batch : loader) {
    int new_edge_start = batch.new_edge_start.item<int>();
    auto answer_pred = model->forward(batch.node_attr, new_edge_start);
    auto loss = torch::binary_cross_entropy(answer_pred.index({Slice(new_edge_start, None)}),
                                            batch.answer.index({Slice(new_edge_start, None)}));
    loss.backward();
    optimizer.step();
    train_epoch_loss += loss.item<float>();
    optimizer.zero_grad();
  }
  return train_epoch_loss;
}
