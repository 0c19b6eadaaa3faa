// Recall-2 reproducer (single-file limitation; not counted as a miss: the --cross-tu run reports the project's
// case at source/main.cpp 37, the call of generate after model->eval()), from P1ayer-1/Llama-LibTorch
// (source/llama/private/llama_causal_lm.cpp, LlamaCausalLMImpl::generate, lines 65-124, forward pass 92;
// main.cpp, another unit, calls model->eval() and then generate), reduced.
// Expected: torch-eval-without-no-grad at the forward pass of the generation loop (line 38): generate() trains
// nothing and gives back only argmax token ids (appended to its in/out parameter input_ids), yet every step
// runs the whole model with autograd on and carries the key/value cache, with its graph, into the next step:
// the graph of step n holds those of steps 1..n-1, so the memory kept grows with every generated token until
// generate() returns. Rule 4 (inference by what a function does) stays silent because the ids it returns (and
// writes back into input_ids) are torch::cat({input_ids, next_token}, 1) of the parameter, which the rule takes
// to carry history (parameters are assumed to); token ids are integer tensors, which cannot (a free function
// that returns only the argmax, without the cat, is reported).
//   expected warning (line 38): forward pass runs with autograd enabled in a function that never
//   backpropagates: only detached values leave it ... [torch-eval-without-no-grad]
#include <torch/torch.h>

using KV = std::vector<std::tuple<torch::Tensor, torch::Tensor>>;

struct LlamaCausalLMImpl : torch::nn::Module {
  std::tuple<torch::Tensor, KV> forward(const torch::Tensor &input_ids, const KV &past_key_values) {
    auto h = embed->forward(input_ids);
    KV next;
    for (auto &kv : past_key_values) {
      auto k = torch::cat({std::get<0>(kv), proj->forward(h)}, 2);
      auto v = torch::cat({std::get<1>(kv), proj->forward(h)}, 2);
      next.push_back(std::make_tuple(k, v));
    }
    return std::make_tuple(lm_head->forward(h), next);
  }
  torch::Tensor generate(torch::Tensor &input_ids, int32_t num_new_tokens);
  torch::nn::Linear embed{nullptr}, proj{nullptr}, lm_head{nullptr};
};
TORCH_MODULE(LlamaCausalLM);

torch::Tensor LlamaCausalLMImpl::generate(torch::Tensor &input_ids, const int32_t num_new_tokens) {
  KV past_key_values;
  for (int64_t i = 0; i < num_new_tokens; i++) {
    auto outputs = forward(input_ids, past_key_values);
    past_key_values = std::get<1>(outputs);
    auto hidden_states = std::get<0>(outputs);
    auto next_token = hidden_states.argmax();
    next_token = next_token.to(torch::kInt64).unsqueeze(0).unsqueeze(0);
    input_ids = torch::cat({input_ids, next_token}, 1);
  }
  return input_ids;
}
