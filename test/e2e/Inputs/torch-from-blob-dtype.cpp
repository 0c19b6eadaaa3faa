// Three from_blob calls whose dtype is not the element type of the memory:
// double memory with no dtype (kFloat), int64_t memory read as kInt, double
// memory read as kFloat through at::dtype(...).device(...) with strides. The
// unfixed program sums garbage; with the check's fix-its it builds and prints
// the right sums.
#include <torch/torch.h>

#include <array>
#include <cstdio>
#include <vector>

double sum_doubles(int64_t n) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = static_cast<double>(i);
  torch::Tensor t = torch::from_blob(v.data(), {n});
  return t.sum().item<double>();
}

int64_t sum_ids() {
  std::array<int64_t, 4> ids{1, 2, 3, 4};
  torch::Tensor t = torch::from_blob(ids.data(), {4}, torch::TensorOptions().dtype(torch::kInt));
  return t.sum().item<int64_t>();
}

double sum_strided() {
  double d[4] = {1.5, 0, 2.5, 0};
  at::Tensor t = at::from_blob(d, {2}, {2}, at::dtype(at::kFloat).device(at::kCPU));
  return t.sum().item<double>();
}

int main() {
  const double a = sum_doubles(1024);
  const int64_t b = sum_ids();
  const double c = sum_strided();
  std::printf("doubles %.0f ids %lld strided %.1f\n", a, static_cast<long long>(b), c);
  return a == 523776 && b == 10 && c == 4.0 ? 0 : 1;
}
