// RUN: %check_torch_tidy %s torch-elementwise-access-in-loop %t
#include <torch/torch.h>
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

// --- Positives ----------------------------------------------------------------

// Reading detection boxes one number at a time: a tensor per number.
struct Box { float x1, y1, x2, y2, score; };
std::vector<Box> read_boxes(const torch::Tensor &dets) {
  std::vector<Box> boxes;
  for (int64_t i = 0; i < dets.size(0); ++i) {
    boxes.push_back({dets[i][0].item<float>(), dets[i][1].item<float>(), dets[i][2].item<float>(),
                     // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: tensor 'dets' is accessed element by element in a loop: each access is a dispatcher call that makes a tensor for one number; read and write the elements through an accessor ('dets.accessor<T, N>()', CPU) or the data_ptr<T>() of a contiguous tensor [torch-elementwise-access-in-loop]
                     dets[i][3].item<float>(), dets[i][4].item<float>()});
  }
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: the loop is here
  return boxes;
}

// Post-processing an image pixel by pixel: one warning for the nested loops.
float mean_of_image(const torch::Tensor &img, int64_t h, int64_t w) {
  float sum = 0;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      sum += img[y][x].item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: tensor 'img' is accessed element by element in a loop
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop is here
  return sum / (h * w);
}

// A tensor the function makes, filled from a std::vector: fixed with an
// accessor declared before the loop.
torch::Tensor from_vector(const std::vector<float> &v) {
  auto t = torch::zeros({(int64_t)v.size()});
  for (size_t i = 0; i < v.size(); ++i) {
    t[i] = v[i];
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor 't' is accessed element by element in a loop
  }
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop is here
  return t;
}
// CHECK-FIXES: {{^}}  auto t_acc = t.accessor<float, 1>();{{$}}
// CHECK-FIXES-NEXT: {{^}}  for (size_t i = 0; i < v.size(); ++i) {{{$}}
// CHECK-FIXES-NEXT: {{^}}    t_acc[i] = v[i];{{$}}

// Two dimensions, reads and writes of the same tensor: one warning, every
// access rewritten.
torch::Tensor threshold(int64_t h, int64_t w) {
  torch::Tensor mask = torch::zeros({h, w}, torch::kFloat);
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      if (mask[y][x].item<float>() > 0.5f)
        // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: tensor 'mask' is accessed element by element in a loop
        mask[y][x] = 1.0f;
      else
        mask[y][x] = 0;
    }
  }
  // CHECK-MESSAGES: :[[@LINE-9]]:3: note: the loop is here
  return mask;
}
// CHECK-FIXES: {{^}}  auto mask_acc = mask.accessor<float, 2>();{{$}}
// CHECK-FIXES-NEXT: {{^}}  for (int64_t y = 0; y < h; ++y) {{{$}}
// CHECK-FIXES: {{^}}      if (mask_acc[y][x] > 0.5f){{$}}
// CHECK-FIXES: {{^}}        mask_acc[y][x] = 1.0f;{{$}}
// CHECK-FIXES: {{^}}        mask_acc[y][x] = 0;{{$}}

// index({i, j}) and index_put_({i, j}, v): warned, no fix-it for index_put_.
void index_forms(torch::Tensor out, const torch::Tensor &in, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float a = in.index({i, 0}).item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: tensor 'in' is accessed element by element in a loop
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
    out.index_put_({i, 1}, a * 2);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor 'out' is accessed element by element in a loop
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: the loop is here
  }
}

// A while loop with a counter; a comparison of an element with a number.
int64_t count_positive(const torch::Tensor &scores, int64_t n) {
  int64_t i = 0, count = 0;
  while (i < n) {
    if ((scores[i] > 0).item<bool>())
      // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor 'scores' is accessed element by element in a loop
      ++count;
    ++i;
  }
  // CHECK-MESSAGES: :[[@LINE-6]]:3: note: the loop is here
  return count;
}

// c10::irange, and an index computed from the counters.
void flat(const torch::Tensor &pixels, std::vector<float> &out, int64_t h, int64_t w) {
  for (const auto y : c10::irange(h)) {
    for (const auto x : c10::irange(w)) {
      int64_t k = y * w + x;
      out.push_back(pixels[k].item<float>());
      // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: tensor 'pixels' is accessed element by element in a loop
    }
  }
  // CHECK-MESSAGES: :[[@LINE-7]]:3: note: the loop is here
}

// A data member; the outer loop runs a forward pass, the inner one reads the
// output's numbers (the output is the same through the inner loop).
struct Scorer {
  torch::nn::Linear head{nullptr};
  torch::Tensor table_;
  void run(const torch::Tensor &batch, std::vector<float> &scores) {
    for (int64_t b = 0; b < batch.size(0); ++b) {
      torch::Tensor out = head->forward(batch[b]);
      for (int64_t k = 0; k < out.size(0); ++k) {
        scores.push_back(out[k].item<float>() * table_[k].item<float>());
        // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: tensor 'out' is accessed element by element in a loop
        // CHECK-MESSAGES: :[[@LINE-3]]:7: note: the loop is here
        // CHECK-MESSAGES: :[[@LINE-3]]:49: warning: tensor 'table_' is accessed element by element in a loop
        // CHECK-MESSAGES: :[[@LINE-5]]:7: note: the loop is here
      }
    }
  }
};

// Dims known from the factory: an element used as a tensor still is one.
float dot(int64_t n) {
  auto a = torch::rand({n});
  auto b = torch::rand({n});
  torch::Tensor acc = torch::zeros({1});
  for (int64_t i = 0; i < n; ++i)
    acc += a[i] * b[i];
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor 'a' is accessed element by element in a loop
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
  // CHECK-MESSAGES: :[[@LINE-3]]:19: warning: tensor 'b' is accessed element by element in a loop
  // CHECK-MESSAGES: :[[@LINE-5]]:3: note: the loop is here
  return acc.item<float>();
}

// Warned, no fix-it: item<double> of a float tensor, item() without a type,
// a parameter, an index that may be negative.
void no_fix(int64_t n) {
  auto t = torch::rand({n});
  double s = 0;
  for (int64_t i = 0; i < n; ++i)
    s += t[i].item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor 't' is accessed element by element in a loop
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
  auto u = torch::rand({n});
  for (int64_t i = 1; i < n; ++i)
    s += u[i - 1].item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor 'u' is accessed element by element in a loop
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
  auto v = torch::rand({n}, torch::kDouble);
  for (int64_t i = 0; i < n; ++i)
    s += v[i].item().toDouble();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor 'v' is accessed element by element in a loop
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
  auto w = torch::rand({n});
  for (int64_t i = 0; i < n; ++i)
    s += w[i].item<float>() / w.numel();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor 'w' is accessed element by element in a loop
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
  auto p = torch::rand({n});
  for (int64_t i = 0; i < n; ++i)
    p[i] = s + p[i].item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor 'p' is accessed element by element in a loop
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
}
// CHECK-FIXES: {{^}}    s += t[i].item<double>();{{$}}
// CHECK-FIXES: {{^}}    s += u[i - 1].item<float>();{{$}}
// CHECK-FIXES: {{^}}  auto w_acc = w.accessor<float, 1>();{{$}}
// CHECK-FIXES: {{^}}    s += w_acc[i] / w.numel();{{$}}
// CHECK-FIXES: {{^}}    p[i] = s + p[i].item<float>();{{$}}

// A row taken into a variable in the loop, then read number by number: the
// row is a view of 'dets', every access through it one of 'dets'. No fix-it
// (the row variable stays).
void write_results(const torch::Tensor &dets, std::vector<float> &out) {
  for (int64_t i = 0; i < dets.size(0); ++i) {
    auto bbox = dets[i];
    out.push_back(bbox[0].item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: tensor 'dets' is accessed element by element in a loop: each access is a dispatcher call that makes a tensor for one number; read and write the elements through an accessor ('dets.accessor<T, N>()', CPU) or the data_ptr<T>() of a contiguous tensor [torch-elementwise-access-in-loop]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop is here
    out.push_back(bbox[3].item<float>());
  }
}
// CHECK-FIXES: {{^}}    out.push_back(bbox[0].item<float>());{{$}}

// An element converted before its item(): still one element read, and the
// conversion is no tensor work of the loop's own (no fix-it: the accessor
// would read the unconverted value).
void build_targets(const torch::Tensor &gis, const torch::Tensor &gxs, torch::Tensor &mask, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    int64_t gi = gis[i].to(torch::kLong).item<int64_t>();
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor 'gis' is accessed element by element in a loop: each access is a dispatcher call that makes a tensor for one number; read and write the elements through an accessor ('gis.accessor<T, N>()', CPU) or the data_ptr<T>() of a contiguous tensor [torch-elementwise-access-in-loop]
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
    float gx = gxs[i].item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: tensor 'gxs' is accessed element by element in a loop
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: the loop is here
    mask[0][gi] = gx;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor 'mask' is accessed element by element in a loop
    // CHECK-MESSAGES: :[[@LINE-9]]:3: note: the loop is here
  }
}
// CHECK-FIXES: {{^}}    int64_t gi = gis[i].to(torch::kLong).item<int64_t>();{{$}}

// A range-for over values that hold no tensor, whose fields index: the
// results of an environment step written one number at a time.
struct StepResult { int64_t env; float reward; };
struct Rollout {
  torch::Tensor rewards_;
  void record(const std::vector<StepResult> &results) {
    for (const auto &r : results) {
      int64_t i = r.env;
      rewards_[i] = r.reward;
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: tensor 'rewards_' is accessed element by element in a loop
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: the loop is here
    }
  }
};

// An element of a std::vector<torch::Tensor> read number by number: the
// element is the tensor ('output[0]'); with the container's index a counter of
// an outer loop, the element is the same through the inner loop only.
void draw_boxes(const std::vector<torch::Tensor> &output, std::vector<float> &out) {
  for (int64_t i = 0; i < output[0].size(0); ++i) {
    out.push_back(output[0][i][0].item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: tensor 'output[0]' is accessed element by element in a loop: {{.*}}('output[0].accessor<T, N>()', CPU)
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
    out.push_back(output.at(0)[i][1].item<float>());
  }
  for (size_t b = 0; b < output.size(); ++b)
    for (int64_t k = 0; k < 4; ++k)
      out.push_back(output[b][k].item<float>());
      // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: tensor 'output[b]' is accessed element by element in a loop
      // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the loop is here
}

// A helper that reads one element per call, called in a loop with the loop's
// index: reported at the call (a data member of this object; a tensor handed
// to a free function).
struct Actions {
  torch::Tensor actions_;
  int act(int64_t a);
  int step(size_t env) {
    int64_t a = actions_[env].item<int64_t>();
    return act(a);
  }
  int worker(const std::vector<size_t> &envs) {
    int total = 0;
    for (const auto &env : envs)
      total += step(env);
      // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: tensor 'actions_' is accessed element by element in a loop
      // CHECK-MESSAGES: :[[@LINE-8]]:17: note: 'step' accesses one element of it per call here
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: the loop is here
    return total;
  }
};
float score_at(const torch::Tensor &scores, int64_t i) { return scores[i].item<float>(); }
float best(const torch::Tensor &scores, int64_t n) {
  float b = 0;
  for (int64_t i = 0; i < n; ++i)
    b = std::max(b, score_at(scores, i));
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: tensor 'scores' is accessed element by element in a loop
    // CHECK-MESSAGES: :[[@LINE-6]]:65: note: 'score_at' accesses one element of it per call here
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop is here
  return b;
}

// A tensor named by a structured binding: one item() per move.
std::pair<torch::Tensor, torch::Tensor> predict(const torch::Tensor &input);
float prior_sum(const torch::Tensor &input, const std::vector<int> &moves) {
  auto [policy, value] = predict(input);
  float s = 0;
  for (int m : moves)
    s += policy[m].item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor 'policy' is accessed element by element in a loop
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
  return s + value.item<float>();
}

// An index read through a structured binding of the range-for's element:
// one write per move.
torch::Tensor target_of(const std::vector<std::pair<int, float>> &moves) {
  torch::Tensor output = torch::zeros({10});
  for (const auto &[index, prob] : moves)
    output[index] = prob;
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: tensor 'output' is accessed element by element in a loop
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
  return output;
}

// --- Negatives ----------------------------------------------------------------

// A single access outside a loop.
float first(const torch::Tensor &t) { return t[0][0].item<float>(); }

// Rows of a batch passed to a model: ordinary, not element-wise.
torch::Tensor rows(torch::nn::Linear model, const torch::Tensor &x) {
  torch::Tensor out = torch::zeros({x.size(0), 10});
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = model->forward(x[i]);
  return out;
}

// An index that does not depend on the loop.
float repeated(const torch::Tensor &t, int64_t k, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i)
    s += t[k].item<float>() * i;
  return s;
}

// The tensor changes on every iteration.
float reassigned(torch::Tensor t, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) {
    t = t * 2;
    s += t[i].item<float>();
  }
  for (int i = 0; i < n; ++i) {
    torch::Tensor row = torch::rand({4});
    s += row[i % 4].item<float>();
  }
  return s;
}

// The loop does real tensor work per iteration.
float work_per_iteration(torch::nn::Linear model, const torch::Tensor &x, const torch::Tensor &y) {
  float s = 0;
  for (int64_t i = 0; i < x.size(0); ++i) {
    auto p = torch::softmax(model->forward(x), 1);
    s += y[i].item<float>();
  }
  for (int64_t i = 0; i < x.size(0); ++i)
    s += x[i].sum().item<float>();
  return s;
}

// A row of a 2-D tensor of known size filled: one operation per row.
void fill_rows(int64_t n) {
  auto m = torch::zeros({n, 128});
  for (int64_t i = 0; i < n; ++i)
    m[i] = 1.0;
}

// A row used as a tensor; a tensor index; slices.
void row_ops(const torch::Tensor &x, const torch::Tensor &idx, std::vector<torch::Tensor> &parts) {
  for (int64_t i = 0; i < x.size(0); ++i) {
    auto r = x[i];
    auto s = x.index({i, torch::indexing::Slice()});
    auto u = x[idx];
  }
}

// Rows through a variable that is not a fixed view of the tensor, or whose
// element is a row itself: a variable assigned again, a tensor that changes
// in the loop, a row of a 3-D tensor of known size filled, a loop doing
// tensor work with the row.
void row_variable_lookalikes(torch::Tensor t, torch::nn::Linear model, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    auto r = t[i];
    r = r * 2;
    float v = r[0].item<float>();
    (void)v;
  }
  for (int64_t i = 0; i < n; ++i) {
    t = t + 1;
    auto r = t[i];
    float v = r[0].item<float>();
    (void)v;
  }
  auto cube = torch::zeros({n, 4, 4});
  for (int64_t i = 0; i < n; ++i) {
    auto plane = cube[i];
    plane[0] = 1.0;
  }
  for (int64_t i = 0; i < n; ++i) {
    auto r = t[i];
    auto y = model->forward(r);
    float v = r[0].item<float>();
    (void)v;
  }
}

// A row moved to another device in the loop: tensor work of the loop's own.
void rows_moved(const torch::Tensor &x, const torch::Tensor &y, std::vector<torch::Tensor> &out) {
  for (int64_t i = 0; i < x.size(0); ++i) {
    out.push_back(x[i].to(torch::kCUDA));
    float v = y[i].item<float>();
    (void)v;
  }
}

// Elements of a container that change with the loop: each iteration reads
// one number of another tensor; a container index that is no integer.
float per_tensor_first(const std::vector<torch::Tensor> &ts, std::map<std::string, torch::Tensor> &named) {
  float s = 0;
  for (size_t i = 0; i < ts.size(); ++i)
    s += ts[i][0].item<float>();
  for (size_t i = 0; i < ts.size(); ++i) {
    size_t j = ts.size() - 1 - i;
    s += ts[j][0].item<float>();
  }
  for (int i = 0; i < 3; ++i)
    s += named["loss"][i].item<float>();
  return s;
}

// Helpers that do more than access an element (a forward pass), whose index
// is not a parameter, called once, on another object, or with an index that
// does not depend on the loop.
struct Policy {
  torch::nn::Linear net{nullptr};
  torch::Tensor actions_;
  int64_t cursor_ = 0;
  float forward_and_read(const torch::Tensor &x, int64_t i) { return net->forward(x)[i].item<float>(); }
  float at_cursor() { return actions_[cursor_].item<float>(); }
  float read(int64_t i) { return actions_[i].item<float>(); }
  float run(const torch::Tensor &x, Policy &other, int64_t k, int n) {
    float s = read(0);
    for (int i = 0; i < n; ++i) {
      s += forward_and_read(x, i);
      s += at_cursor();
      s += other.read(i);
      s += read(k);
    }
    return s;
  }
};

// Range-for over tensors, not indices.
float over_tensors(const std::vector<torch::Tensor> &ts) {
  float s = 0;
  for (const auto &t : ts)
    s += t[0].item<float>();
  return s;
}

// In a lambda defined in a loop: the lambda's body is not the loop's.
void in_lambda(const torch::Tensor &t, int n) {
  for (int i = 0; i < n; ++i) {
    auto f = [&] { return t[0].item<float>(); };
    (void)f;
  }
}

// A structured binding of the range-for's element is a different tensor on
// every iteration.
float over_named_tensors(const std::vector<std::pair<std::string, torch::Tensor>> &named) {
  float s = 0;
  for (const auto &[name, t] : named)
    s += t[0].item<float>();
  return s;
}

// A structured binding declared in the loop: a new tensor every iteration.
float binding_per_iteration(const torch::Tensor &input, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) {
    auto [policy, value] = predict(input);
    s += policy[i].item<float>();
  }
  return s;
}
