// A request handler that decodes an input into a local buffer and wraps it
// with torch::from_blob: the tensor is returned after the buffer is destroyed.
// Built with AddressSanitizer, reading the returned tensor is a
// heap-use-after-free; with the fix-it (.clone()) it runs clean.
#include <torch/torch.h>

#include <cstdio>
#include <vector>

torch::Tensor decode(int64_t n) {
  std::vector<float> buffer(n);
  for (int64_t i = 0; i < n; ++i)
    buffer[i] = static_cast<float>(i);
  return torch::from_blob(buffer.data(), {n});
}

int main() {
  const int64_t n = 1024;
  torch::Tensor t = decode(n);
  // Read through the tensor's pointer in this (instrumented) program.
  const float *p = t.data_ptr<float>();
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += p[i];
  std::printf("sum %.0f\n", sum);
  return sum == n * (n - 1) / 2 ? 0 : 1;
}
