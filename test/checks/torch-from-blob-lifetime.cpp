// RUN: %check_torch_tidy %s torch-from-blob-lifetime %t
#include <torch/torch.h>
#include <array>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

std::vector<float> read_pixels();

// --- Positives ----------------------------------------------------------------

torch::Tensor returned_directly() {
  std::vector<float> buf = read_pixels();
  return torch::from_blob(buf.data(), {3, 224, 224});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor from 'from_blob' over the memory of 'buf' is returned while 'buf' is destroyed at the end of its scope: reading it afterwards is a use after free; copy it with '.clone()' [torch-from-blob-lifetime]
}
// CHECK-FIXES: {{^}}  return torch::from_blob(buf.data(), {3, 224, 224}).clone();{{$}}

torch::Tensor returned_through_alias_and_view(int64_t n) {
  std::vector<float> scores(n);
  auto t = torch::from_blob(scores.data(), {n}, torch::kFloat);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor from 'from_blob' over the memory of 'scores' is returned
  auto v = t.view({1, n}).to(torch::Device(torch::kCPU));
  return v;
}
// CHECK-FIXES: {{^}}  auto t = torch::from_blob(scores.data(), {n}, torch::kFloat).clone();{{$}}

struct Preprocessor {
  torch::Tensor last_;
  std::vector<torch::Tensor> batch_;
  void set_from_string(const std::string &payload) {
    std::string bytes = payload;
    last_ = torch::from_blob(const_cast<char *>(bytes.data()), {(int64_t)bytes.size()}, torch::kByte);
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: tensor from 'from_blob' over the memory of 'bytes' is stored in a member while 'bytes' is destroyed
  }
  void add(int64_t n) {
    float raw[16] = {};
    batch_.push_back(torch::from_blob(raw, {16}));
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: tensor from 'from_blob' over the memory of 'raw' is stored in a container that outlives it
  }
};
// CHECK-FIXES: {{^}}    last_ = torch::from_blob(const_cast<char *>(bytes.data()), {(int64_t)bytes.size()}, torch::kByte).clone();{{$}}
// CHECK-FIXES: {{^}}    batch_.push_back(torch::from_blob(raw, {16}).clone());{{$}}

void into_output_parameter(std::vector<torch::Tensor> &out, std::map<int, torch::Tensor> &cache) {
  for (int i = 0; i < 4; ++i) {
    std::array<double, 8> row{};
    out.emplace_back(torch::from_blob(row.data(), {8}, torch::kDouble));
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: tensor from 'from_blob' over the memory of 'row' is stored in a container
    std::vector<float> v(8);
    cache[i] = torch::from_blob(&v[0], {8});
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: tensor from 'from_blob' over the memory of 'v' is stored in a container
  }
}
// CHECK-FIXES: {{^}}    out.emplace_back(torch::from_blob(row.data(), {8}, torch::kDouble).clone());{{$}}
// CHECK-FIXES: {{^}}    cache[i] = torch::from_blob(&v[0], {8}).clone();{{$}}

torch::Tensor outer_variable_used_after_the_block() {
  torch::Tensor result;
  {
    std::vector<float> tmp = read_pixels();
    result = at::from_blob(tmp.data(), {(int64_t)tmp.size()});
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: tensor from 'from_blob' over the memory of 'tmp' is kept in a variable that outlives it
  }
  return result * 2;
}
// CHECK-FIXES: {{^}}    result = at::from_blob(tmp.data(), {(int64_t)tmp.size()}).clone();{{$}}

struct Frame {
  int64_t width;
  std::vector<uint8_t> pixels;
};
Frame decode(const std::string &jpeg);

torch::Tensor buffer_of_a_local_object(const std::string &jpeg) {
  Frame frame = decode(jpeg);
  torch::Tensor img = torch::from_blob(frame.pixels.data(), {frame.width, 3}, torch::kByte);
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: tensor from 'from_blob' over the memory of 'frame' is returned
  return img.permute({1, 0}).unsqueeze(0);
}
// CHECK-FIXES: {{^}}  torch::Tensor img = torch::from_blob(frame.pixels.data(), {frame.width, 3}, torch::kByte).clone();{{$}}

torch::Tensor freed_later(int64_t n) {
  float *data = new float[n];
  auto t = torch::from_blob(data, {n});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor from 'from_blob' over the memory of 'data' is returned while 'data' is freed
  delete[] data;
  return t;
}
// CHECK-FIXES: {{^}}  auto t = torch::from_blob(data, {n}).clone();{{$}}

std::function<torch::Tensor()> captured_by_a_returned_lambda() {
  auto owner = std::make_unique<float[]>(10);
  auto t = torch::from_blob(owner.get(), {10});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor from 'from_blob' over the memory of 'owner' is returned
  return [t] { return t + 1; };
}
// CHECK-FIXES: {{^}}  auto t = torch::from_blob(owner.get(), {10}).clone();{{$}}

torch::Tensor by_value_parameter(std::vector<float> input) {
  return torch::from_blob(input.data(), {(int64_t)input.size()}).reshape({-1, 1});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor from 'from_blob' over the memory of 'input' is returned
}
// CHECK-FIXES: {{^}}  return torch::from_blob(input.data(), {(int64_t)input.size()}).clone().reshape({-1, 1});{{$}}

// The buffer is copied into the returned pair: the tensor still points at the
// local that dies.
std::pair<torch::Tensor, std::vector<float>> returned_with_a_copy() {
  std::vector<float> v = read_pixels();
  auto t = torch::from_blob(v.data(), {4});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor from 'from_blob' over the memory of 'v' is returned
  return std::make_pair(t, v);
}
// CHECK-FIXES: {{^}}  auto t = torch::from_blob(v.data(), {4}).clone();{{$}}

// --- Look-alikes that must stay silent ----------------------------------------

// The caller owns the memory (a reference parameter, a member, a static).
torch::Tensor view_of_callers_buffer(std::vector<float> &buf) {
  return torch::from_blob(buf.data(), {(int64_t)buf.size()});
}
struct Model {
  std::vector<float> weights_;
  torch::Tensor weights() { return torch::from_blob(weights_.data(), {4}); }
};
torch::Tensor static_table() {
  static std::vector<float> table(256);
  return torch::from_blob(table.data(), {256});
}

// Copied before it escapes: .clone(), a dtype conversion, an operation.
torch::Tensor cloned() {
  std::vector<float> buf = read_pixels();
  return torch::from_blob(buf.data(), {3, 224, 224}).clone();
}
torch::Tensor cloned_later() {
  std::vector<float> buf = read_pixels();
  auto t = torch::from_blob(buf.data(), {3, 224, 224});
  return t.clone();
}
torch::Tensor converted() {
  std::vector<uint8_t> bytes(100);
  return torch::from_blob(bytes.data(), {100}, torch::kByte).to(torch::kFloat).div(255);
}
torch::Tensor uploaded(torch::Device device) {
  std::vector<float> pixels = read_pixels();
  auto gpu = torch::from_blob(pixels.data(), {3, 224, 224}).to(torch::Device(torch::kCUDA));
  return torch::from_blob(pixels.data(), {3, 224, 224}).to(device).unsqueeze(0);
}
torch::Tensor computed() {
  std::vector<float> a(4), b(4);
  auto ta = torch::from_blob(a.data(), {4});
  auto tb = torch::from_blob(b.data(), {4});
  return ta + tb; // a new tensor
}

// A deleter takes the ownership.
torch::Tensor with_deleter(int64_t n) {
  float *data = new float[n];
  return torch::from_blob(data, {n}, [](void *p) { delete[] static_cast<float *>(p); });
}

// Used only while the owner lives (an inference request).
struct Module {
  torch::Tensor forward(torch::Tensor x);
};
float score(Module &m) {
  std::vector<float> input = read_pixels();
  auto x = torch::from_blob(input.data(), {1, 3, 224, 224});
  auto y = m.forward(x);
  std::vector<torch::Tensor> batch;
  batch.push_back(x);
  return y.item<float>();
}

// The outer variable is not read after the owner dies.
void loop_reuses_variable(Module &m) {
  torch::Tensor x;
  for (int i = 0; i < 3; ++i) {
    std::vector<float> input = read_pixels();
    x = torch::from_blob(input.data(), {1, 3, 224, 224});
    m.forward(x);
  }
}

// Freed only on an error path, or not freed at all (the caller frees).
torch::Tensor freed_on_error(float *p, bool bad) {
  float *data = p;
  auto t = torch::from_blob(data, {4});
  if (bad) {
    std::free(data);
    return torch::Tensor();
  }
  return t;
}

// A lambda that runs while the owner lives.
float used_in_local_lambda() {
  std::vector<float> buf = read_pixels();
  auto t = torch::from_blob(buf.data(), {4});
  auto f = [t] { return t.sum(); };
  return f().item<float>();
}

// Returned from a lambda inside the owner's scope: the lambda runs there.
float returned_by_inner_lambda() {
  std::vector<float> buf = read_pixels();
  auto get = [&buf] { return torch::from_blob(buf.data(), {4}); };
  return get().sum().item<float>();
}

// The object that owns the buffer is returned with the tensor inside it (moved
// or elided): a vector's heap block goes with it.
struct Sample {
  std::vector<float> buf;
  torch::Tensor t;
};
Sample owner_returned() {
  Sample s;
  s.buf = read_pixels();
  s.t = torch::from_blob(s.buf.data(), {(int64_t)s.buf.size()});
  return s;
}

// The buffer is moved along with the tensor, or handed to a longer-lived owner.
std::pair<torch::Tensor, std::vector<float>> returned_with_the_buffer() {
  std::vector<float> v = read_pixels();
  auto t = torch::from_blob(v.data(), {4});
  return {t, std::move(v)};
}
struct Cache {
  std::vector<std::vector<float>> buffers_;
  torch::Tensor wrap() {
    std::vector<float> v = read_pixels();
    auto t = torch::from_blob(v.data(), {4});
    buffers_.push_back(std::move(v));
    return t;
  }
};

// A project's class whose insert() copies the tensor into its own (an RL rollout
// storage): only the standard library's and LibTorch's containers are known to
// keep what they are given.
class RolloutStorage {
  torch::Tensor rewards_ = torch::zeros({8, 2});
  int64_t step_ = 0;

public:
  void insert(torch::Tensor reward) { rewards_[step_++].copy_(reward); }
  void push_back(const torch::Tensor &reward) { insert(reward); }
};
void fill_storage(RolloutStorage &storage) {
  for (int i = 0; i < 8; ++i) {
    float rewards_array[2] = {1, 0};
    storage.insert(torch::from_blob(rewards_array, {2}));
    std::vector<float> more{0, 1};
    storage.push_back(torch::from_blob(more.data(), {2}));
  }
}
