// Recall reproducer (issue 35), from madcato/libtorch-lm (src/inference.cpp, greedy_decode),
// reduced.
// Expected: torch-eval-without-no-grad at the forward passes of the decoding loop (lines 20 and
// 23): decoding reads only argmax indices (and their item() to stop at the end symbol), nothing is
// backpropagated, yet the encoder's graph ('memory') is kept for the whole loop and every step
// records a decoder graph. A token-by-token decoding loop whose only output is integer tokens is
// inference whatever the function is called.
//   expected warning (line 20): forward pass ... runs with autograd enabled ... [torch-eval-without-no-grad]
//   expected warning (line 23): the same
#include <torch/torch.h>

struct Seq2SeqImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor src, torch::Tensor tgt);
  torch::Tensor encode(torch::Tensor src);
  torch::Tensor decode(torch::Tensor tgt, torch::Tensor memory);
};
TORCH_MODULE(Seq2Seq);

torch::Tensor greedy_decode(Seq2Seq &model, torch::Tensor src, int64_t max_len, int64_t eos) {
  torch::Tensor memory = model->encode(src);
  torch::Tensor ys = torch::ones({1, 1}, torch::kLong);
  for (int64_t i = 0; i < max_len; i++) {
    torch::Tensor out = model->decode(ys, memory);
    torch::Tensor next_word = out.argmax(1);
    int64_t next_word_int = next_word.item<int64_t>();
    ys = torch::cat({ys, next_word.unsqueeze(0)}, 0);
    if (next_word_int == eos)
      break;
  }
  return ys;
}
