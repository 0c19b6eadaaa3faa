// Ordinary C++17/C++20 idioms next to LibTorch, with every torch- check on:
// none may crash or hang, and the finding in the evaluation function at the
// end is still reported. Each idiom once sent a traversal of checks/ round in
// circles or deep into the user's code (docs/traversals.md).
// RUN: %check_torch_tidy -std=c++20 %s torch-eval-without-no-grad %t --no-fix
// RUN: %clang_tidy --load %plugin --checks='-*,torch-*' %s -- -std=c++20 -isystem %mocks 2>&1 | FileCheck %s --check-prefix=ALL --implicit-check-not=warning:
#include <torch/torch.h>
#include <coroutine>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

// A class template that befriends every instantiation of itself (as
// nlohmann/json's basic_json does).
template <typename T> class Box {
  template <typename U> friend class Box;

public:
  T v;
  T get() const { return v; }
  template <typename U> Box<U> as() const { return Box<U>{static_cast<U>(v)}; }
};

// Friend functions defined in a class template, found only by ADL.
template <typename T> struct Wrapped {
  T value;
  friend bool operator==(const Wrapped &a, const Wrapped &b) { return a.value == b.value; }
  template <typename U> friend U unwrap(const Wrapped &w) { return static_cast<U>(w.value); }
};

// CRTP, including a base that names the derived class's members.
template <typename Derived> struct Counter {
  int count() const { return static_cast<const Derived &>(*this).items() * 2; }
};
struct Bag : Counter<Bag> {
  int items() const { return 3; }
};

// Mutually recursive templates.
template <int N> struct Odd;
template <int N> struct Even {
  static constexpr bool value = N == 0 ? true : Odd<(N > 0 ? N - 1 : 0)>::value;
};
template <int N> struct Odd {
  static constexpr bool value = N == 0 ? false : Even<(N > 0 ? N - 1 : 0)>::value;
};
static_assert(Even<40>::value);

template <typename T> T ping(T x, int n);
template <typename T> T pong(T x, int n) { return n <= 0 ? x : ping(x, n - 1); }
template <typename T> T ping(T x, int n) { return n <= 0 ? x : pong(x + 1, n - 1); }

// Deduction guides.
template <typename T> struct Pair {
  T first, second;
  Pair(T a, T b) : first(a), second(b) {}
};
Pair(const char *, const char *)->Pair<std::string>;

// Concepts and constrained templates.
template <typename T>
concept Tensorish = requires(T t) { t.dim(); };
template <Tensorish T> auto rank(const T &t) { return t.dim(); }

// A coroutine.
struct Task {
  struct promise_type {
    Task get_return_object() { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() {}
  };
};
Task tick(int n) {
  for (int i = 0; i < n; ++i)
    co_await std::suspend_never{};
}

// Local classes in templates, a generic lambda, recursion through a lambda.
template <typename T> T local_classes(T x) {
  struct Local {
    T twice(T y) const { return y + y; }
    struct Nested {
      T thrice(T y) const { return y + y + y; }
    };
  };
  auto fact = [](auto self, int n) -> int { return n <= 1 ? 1 : n * self(self, n - 1); };
  return Local{}.twice(x) + typename Local::Nested{}.thrice(x) + static_cast<T>(fact(fact, 4));
}

// A self-referential container type and a recursive function over it.
struct Node {
  std::map<std::string, Node> children;
  int depth() const {
    int d = 0;
    for (const auto &[name, child] : children)
      d = std::max(d, child.depth() + 1);
    return d;
  }
};

// Variadic recursion and fold expressions.
template <typename... Ts> auto sum(Ts... xs) { return (xs + ... + 0); }
template <typename T> T first_of(T x) { return x; }
template <typename T, typename... Ts> T first_of(T x, Ts... xs) { return first_of(x) + 0 * first_of(xs...); }

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

int use_all() {
  Box<int> b{1};
  Wrapped<int> w{2};
  Pair p("a", "b");
  Node n;
  tick(2);
  return b.get() + b.as<long>().get() + (w == w) + unwrap<int>(w) + Bag{}.count() + ping(1, 5) +
         local_classes(2) + sum(1, 2, 3) + first_of(1, 2, 3) + n.depth() + static_cast<int>(p.first.size()) +
         static_cast<int>(rank(torch::zeros({2, 2})));
}

double evaluate(Net &model, torch::Tensor x) {
  return model->forward(x).sum().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: forward pass in evaluation code runs with autograd enabled
  // ALL: cxx-idioms.cpp:[[@LINE-2]]:17: warning: forward pass in evaluation code runs with autograd enabled
  // CHECK-MESSAGES: :[[@LINE-4]]:8: note: 'evaluate' is evaluation code by its name
}
