// Recall reproducer (issue 35), from madcato/libtorch-lm (src/inference.cpp, greedy_decode, and
// include/seq2seq_transformer.hpp, whose encode() and decode() run the transformer's encoder and
// decoder), reduced.
// Expected: torch-eval-without-no-grad at the forward passes of the decoding loop (lines 24 and
// 27; one warning, at the first, whose guard covers both): decoding reads only argmax indices (and their item() to stop at the end symbol), nothing is
// backpropagated, yet the encoder's graph ('memory') is kept for the whole loop and every step
// records a decoder graph. A token-by-token decoding loop whose only output is integer tokens is
// inference whatever the function is called.
//   expected warning (line 24): forward pass runs with autograd enabled in a function that never backpropagates: only detached values leave it ... [torch-eval-without-no-grad]
//   (the forward pass of line 27 is covered by the same guard)
#include <torch/torch.h>

struct Seq2SeqImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor src, torch::Tensor tgt);
  torch::Tensor encode(torch::Tensor src) { return encoder->forward(embedding(src)); }
  torch::Tensor decode(torch::Tensor tgt, torch::Tensor memory) {
    return decoder->forward(embedding(tgt)) + memory;
  }
  torch::nn::Linear embedding{nullptr}, encoder{nullptr}, decoder{nullptr};
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
