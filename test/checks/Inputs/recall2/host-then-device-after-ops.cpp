// Recall-2 scope note (not counted as a miss: outside the page's "What is flagged"), from
// jiabinnn/transformer-libtorch (src/model_libtorch.cc, Transformer::get_attn_subsequent_mask, lines 41-47,
// called on every step of the decoding loop of Transformer::inference, line 123), reduced.
// The causal mask is built on the host (torch::ones, torch::triu, unsqueeze, expand, a dtype conversion) and
// copied to the device on every decoding step; torch::ones({n, n}, torch::TensorOptions().dtype(torch::kInt32)
// .device(device)) would build it on the device. torch-host-tensor-then-device follows a factory's result to
// .to(device) through parentheses and one dtype conversion only, so it is silent here (and in the project);
// were its scope widened to shape and view operations of the host tensor (triu, unsqueeze, expand), the
// expected warning would be at line 18 (the factory of line 16, moved to the device at line 18).
//   no warning today.
#include <torch/torch.h>

torch::Tensor triu(const torch::Tensor &self, int64_t diagonal = 0); // ATen/ops/triu.h (not in the mocks)

torch::Tensor get_attn_subsequent_mask(const torch::Tensor &seq, torch::Device device) {
  torch::Tensor subsequent_mask = triu(torch::ones({seq.size(1), seq.size(1)}, torch::kInt32), 1);
  subsequent_mask = subsequent_mask.unsqueeze(0);
  return subsequent_mask.to(torch::kBool).to(device);
}

void decode(torch::Tensor dec_ids, torch::Device device, int max_len) {
  for (int i = 0; i < max_len - 1; ++i) {
    torch::Tensor mask = get_attn_subsequent_mask(dec_ids, device);
  }
}
