// Tensors filled and read element by element in loops over indices, as image
// pre- and post-processing code does. With the check's fix-its every access
// goes through an accessor declared before its loop: the fixed program builds
// against real LibTorch, prints the same results, and runs the element loops
// much faster (the time per element access is printed to stderr, where the
// test does not compare it: see docs/checks/torch-elementwise-access-in-loop.md).
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <vector>

// A std::vector copied into a tensor one element at a time.
torch::Tensor from_vector(const std::vector<float> &v) {
  auto t = torch::zeros({(int64_t)v.size()});
  for (size_t i = 0; i < v.size(); ++i) {
    t[i] = v[i];
  }
  return t;
}

// A gray image thresholded pixel by pixel, reading and writing one tensor.
torch::Tensor threshold(int64_t h, int64_t w) {
  torch::Tensor img = torch::zeros({h, w}, torch::kFloat);
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      img[y][x] = (float)((y * 7 + x * 3) % 11) / 10.0f;
    }
  }
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      if (img[y][x].item<float>() > 0.5f)
        img[y][x] = 1.0f;
      else
        img[y][x] = 0;
    }
  }
  return img;
}

// Counts of a histogram: an int64 tensor incremented element by element.
torch::Tensor histogram(const std::vector<int> &labels) {
  auto counts = torch::zeros({4}, torch::kLong);
  for (size_t i = 0; i < labels.size(); ++i) {
    for (int64_t k = 0; k < 4; ++k) {
      counts[k] += (int64_t)(labels[i] == k);
    }
  }
  return counts;
}

int main() {
  std::vector<float> v;
  for (int i = 0; i < 1000; ++i)
    v.push_back(0.5f * (float)(i % 13));
  std::vector<int> labels;
  for (int i = 0; i < 200; ++i)
    labels.push_back(i % 4 == 3 ? 1 : i % 4);

  constexpr int64_t H = 256, W = 256;
  auto start = std::chrono::steady_clock::now();
  torch::Tensor img = threshold(H, W);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Element accesses of threshold(): H*W writes, then H*W reads and H*W writes.
  std::fprintf(stderr, "threshold %lldx%lld: %.3f ms, %.1f ns per element access\n", (long long)H,
               (long long)W, seconds * 1e3, seconds * 1e9 / (3.0 * H * W));

  torch::Tensor t = from_vector(v);
  torch::Tensor counts = histogram(labels);
  std::printf("vector sum %.2f\n", t.sum().item<float>());
  std::printf("threshold ones %.0f of %lld\n", img.sum().item<float>(), (long long)(H * W));
  std::printf("counts %lld %lld %lld %lld dtype %s\n", (long long)counts[0].item<int64_t>(),
              (long long)counts[1].item<int64_t>(), (long long)counts[2].item<int64_t>(),
              (long long)counts[3].item<int64_t>(), c10::toString(counts.scalar_type()));
  return 0;
}
