#include <torch/torch.h>
template <int N> struct Odd;
template <int N> struct Even {
  static torch::Tensor run(torch::Tensor x) { return Odd<N - 1>::run(x * 2); }
};
template <> struct Even<0> {
  static torch::Tensor run(torch::Tensor x) { return x; }
};
template <int N> struct Odd {
  static torch::Tensor run(torch::Tensor x) { return Even<N - 1>::run(x + 1); }
};
template <typename T> void ping(T t, int n);
template <typename T> void pong(T t, int n) { if (n) ping(t, n - 1); }
template <typename T> void ping(T t, int n) { t.backward(); if (n) pong(t, n - 1); }
void go(torch::Tensor x) { Even<8>::run(x); ping(x, 3); }
