// libtorch-tidy runtime: mark the iterations of a loop in a program.
//
//   #include <libtorch_tidy/probe.h>
//   for (auto& batch : *loader) {
//     ...
//     LIBTORCH_TIDY_ITERATION();              // at the end of the loop body
//     LIBTORCH_TIDY_ITERATION(total_loss);    // also samples the autograd history of tensors
//   }
//
// Each call records one sample for its site (file:line): CPU tensor bytes
// (counting allocator), CUDA caching-allocator statistics when CUDA is in
// use, wall time, and the history size of the tensors given (a tensor, or a
// container of tensors). Environment:
//   LIBTORCH_TIDY_MAX_ITERATIONS=N  end the program cleanly (exit status 0)
//                                   once a site has N samples
//   LIBTORCH_TIDY_REPORT=PATH       write the series as JSON to PATH at exit
//   LIBTORCH_TIDY_WARMUP=W          samples left out of the judgement (5)
//
// Including this header installs the counting allocator while the program
// starts (static initialisation of the including program, after LibTorch's
// own): storage allocated before that, e.g. by other static initialisers, is
// not counted. Define LIBTORCH_TIDY_PROBE_NO_INSTALL before including it to
// install it yourself (libtorch_tidy::installCountingAllocator()). The statement form makes it easy to insert by a source rewrite
// (libtorch-tidy verify) as the last statement of a loop body.
#pragma once

#include <libtorch_tidy/history.h>

#include <ATen/core/Tensor.h>

#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

namespace libtorch_tidy {
namespace detail {

void probeSample(const char* file, int line, const std::vector<at::Tensor>* tensors);
bool installForProbe();

template <class T, class = void>
struct IsTensorRange : std::false_type {};
template <class T>
struct IsTensorRange<T, std::void_t<decltype(std::begin(std::declval<const T&>()))>>
    : std::is_convertible<decltype(*std::begin(std::declval<const T&>())), const at::Tensor&> {};

inline void collect(std::vector<at::Tensor>& out, const at::Tensor& t) { out.push_back(t); }
template <class Range, std::enable_if_t<IsTensorRange<Range>::value, int> = 0>
void collect(std::vector<at::Tensor>& out, const Range& range) {
  for (const at::Tensor& t : range) out.push_back(t);
}

// The call object behind LIBTORCH_TIDY_ITERATION(...): standard C++ for zero
// or more arguments, no __VA_OPT__ needed.
struct ProbeSite {
  const char* file;
  int line;
  void operator()() const { probeSample(file, line, nullptr); }
  template <class... Ts>
  void operator()(const Ts&... tensors) const {
    std::vector<at::Tensor> all;
    (collect(all, tensors), ...);
    probeSample(file, line, &all);
  }
};

#ifndef LIBTORCH_TIDY_PROBE_NO_INSTALL
inline const bool probe_allocator_installed = installForProbe();
#endif

}  // namespace detail

// Function form of LIBTORCH_TIDY_ITERATION for a named site.
template <class... Ts>
void probe(const char* file, int line, const Ts&... tensors) {
  detail::ProbeSite{file, line}(tensors...);
}

}  // namespace libtorch_tidy

#define LIBTORCH_TIDY_ITERATION(...) (::libtorch_tidy::detail::ProbeSite{__FILE__, __LINE__}(__VA_ARGS__))
