#include <torch/torch.h>
template <typename Model, typename Opt, typename Data>
void fit(Model &model, Opt &opt, Data &loader) {
  typename Data::value_type total{};
  for (auto &batch : loader) {
    opt.zero_grad();
    auto out = model->forward(batch.data);
    auto loss = out.template sum<int>();
    loss.backward();
    opt.step();
    total += loss;
  }
  model->eval();
  for (auto &batch : loader)
    model->forward(batch.data);
}
