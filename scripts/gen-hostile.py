#!/usr/bin/env python3
"""Writes a hostile translation unit for the torch- checks: code they must
survive without a crash or a hang, and stay cheap on.

  gen-hostile.py KIND OUT [--lines N]

KIND:
  nested     deeply nested expressions: parentheses, a long binary chain of
             tensor arithmetic, nested lambdas and nested loops
  huge       one huge evaluation function: thousands of statements and loops
  templates  recursion through templates (class and function templates
             instantiated hundreds deep) and mutually recursive functions
  macros     macros that expand to loops holding forward passes and training
             steps, nested macros
  big        a generated translation unit of N lines (default 50,000): many
             functions of every kind above, with and without the mistakes
  deep       expression trees and chains of variables tens of thousands of
             levels deep where the checks walk them
             (test/checks/deep-nesting.test): a walk that recursed once per
             level would overflow clang's 8 MiB stack

A line that must get a warning ends with `// expect: CHECK-ID`; for each check
named so, test/checks/Inputs/check_hostile.py requires warnings on exactly
those lines.

The code uses only the LibTorch API the checks' mock headers declare, so it
compiles against the mocks (lit tests, test/checks/hostile-source.test) and
against the real LibTorch (scripts/bench-hostile.sh).
"""
import argparse

PRELUDE = """#include <torch/torch.h>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 4))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);
"""


def nested(out):
    depth = 200  # under clang's -fbracket-depth (256)
    out.append("torch::Tensor deep_parens(torch::Tensor x) {")
    out.append("  return " + "(" * depth + "x" + ")" * depth + ";")
    out.append("}")
    # A left-deep chain: the AST is 4,000 levels deep.
    out.append("torch::Tensor long_chain(Net &model, torch::Tensor x) {")
    out.append("  torch::Tensor y = " + " + ".join("x" if i % 7 else "model(x)" for i in range(4000)) + ";")
    out.append("  return y;")
    out.append("}")
    out.append("double evaluate_nested_lambdas(Net &model, torch::Tensor x) {")
    body = "model(x).sum().item<double>()"
    for _ in range(60):
        body = "[&] { return %s; }()" % body
    out.append("  return %s; // expect: torch-eval-without-no-grad" % body)
    out.append("}")
    out.append("double evaluate_nested_loops(Net &model, const std::vector<torch::Tensor> &xs) {")
    out.append("  double total = 0;")
    for i in range(100):
        out.append("  " * (i + 1) + "for (const auto &x%d : xs) {" % i)
    out.append("  " * 101 + "total += model(x99).sum().item<double>(); // expect: torch-eval-without-no-grad")
    for i in reversed(range(100)):
        out.append("  " * (i + 1) + "}")
    out.append("  return total;")
    out.append("}")


def huge(out, statements=6000):
    out.append("double evaluate_huge(Net &model, const std::vector<torch::Tensor> &xs, torch::optim::SGD &opt) {")
    out.append("  double total = 0;")
    for i in range(statements // 6):
        out.append("  for (const auto &x : xs) {")
        out.append("    torch::Tensor y%d = model(x) + x;" % i)
        out.append("    total += y%d.sum().item<double>();" % i)
        out.append("    opt.zero_grad();")
        out.append("  }")
        out.append("  total += %d;" % i)
    out.append("  return total;")
    out.append("}")


def templates(out):
    out.append("template <int N> struct Deep {")
    out.append("  static torch::Tensor run(Net &model, torch::Tensor x) { return Deep<N - 1>::run(model, model(x)); }")
    out.append("};")
    out.append("template <> struct Deep<0> {")
    out.append("  static torch::Tensor run(Net &, torch::Tensor x) { return x; }")
    out.append("};")
    out.append("double evaluate_deep(Net &model, torch::Tensor x) { return Deep<400>::run(model, x).sum().item<double>(); }")
    out.append("template <int N> torch::Tensor deep_fn(Net &model, torch::Tensor x) {")
    out.append("  if constexpr (N == 0) return model(x); else return deep_fn<N - 1>(model, x) + x;")
    out.append("}")
    out.append("double validate_deep_fn(Net &model, torch::Tensor x) { return deep_fn<300>(model, x).sum().item<double>(); }")
    # Mutual recursion: the cross-function summaries must terminate.
    out.append("torch::Tensor ping(Net &model, torch::Tensor x, int n);")
    out.append("torch::Tensor pong(Net &model, torch::Tensor x, int n) { return n ? ping(model, model(x), n - 1) : x; }")
    out.append("torch::Tensor ping(Net &model, torch::Tensor x, int n) { return n ? pong(model, x + x, n - 1) : model(x); }")
    out.append("double evaluate_ping(Net &model, torch::Tensor x) { return ping(model, x, 10).sum().item<double>(); }")
    out.append("template <class T> torch::Tensor self_rec(Net &model, T x, int n) { return n ? self_rec(model, model(x), n - 1) : x; }")
    out.append("double test_self_rec(Net &model, torch::Tensor x) { return self_rec(model, x, 3).sum().item<double>(); }")


def macros(out):
    out.append("#define EVAL_LOOP(model, xs, total) for (const auto &x : xs) { total += model(x).sum().item<double>(); }")
    out.append("#define TRAIN_STEP(model, opt, x) do { auto loss = model(x).sum(); loss.backward(); opt.step(); } while (0)")
    out.append("#define TWICE(s) s s")
    out.append("#define FOUR(s) TWICE(TWICE(s))")
    out.append("#define SIXTEEN(s) FOUR(FOUR(s))")
    out.append("double evaluate_macro(Net &model, const std::vector<torch::Tensor> &xs) {")
    out.append("  double total = 0;")
    out.append("  SIXTEEN(EVAL_LOOP(model, xs, total))")
    out.append("  return total;")
    out.append("}")
    out.append("void train_macro(Net &model, torch::optim::SGD &opt, const std::vector<torch::Tensor> &xs) {")
    out.append("  for (const auto &x : xs) { SIXTEEN(TRAIN_STEP(model, opt, x);) }")
    out.append("}")


def deep(out):
    # Left-deep chains of `+`, which clang parses without recursing: the tree
    # is as deep as the chain is long. The parentheses stay under clang's
    # -fbracket-depth (256). The sizes sit between the depth at which a walk
    # with one stack frame per level overflows 8 MiB and the depth that clang
    # itself (its parser, ParentMap, CFG) survives with 8 MiB.
    # A method that empties the container after a 50,000-term chain:
    # torch-history-in-container walks it (isEmptiedIn) for the insertion in
    # record(), which is guarded and so reported by nothing.
    out.append("struct Recorder {")
    out.append("  std::vector<torch::Tensor> history_;")
    out.append("  int n_ = 0;")
    out.append("  void record(torch::Tensor x) {")
    out.append("    torch::NoGradGuard no_grad;")
    out.append("    history_.push_back(x * 2);")
    out.append("  }")
    out.append("  void reset() {")
    out.append("    n_ = " + " + ".join(["n_"] * 50000) + ";")
    out.append("    history_.clear();")
    out.append("  }")
    out.append("};")
    # A loss accumulated over 10,000 terms in a training loop, its graph
    # retained: torch-unneeded-retain-graph walks what the loss is computed
    # from.
    out.append("void train_deep_loss(Net &model, torch::optim::SGD &opt, const std::vector<torch::Tensor> &xs) {")
    out.append("  for (const auto &x : xs) {")
    out.append("    opt.zero_grad();")
    out.append("    torch::Tensor loss = model(x).sum();")
    out.append("    loss = loss + " + " + ".join(["x"] * 10000) + ";")
    out.append("    loss.backward({}, true);")
    out.append("    opt.step();")
    out.append("  }")
    out.append("}")
    # A chain of 50,000 variables, each computed from the one before, that two
    # backward passes read: torch-unneeded-retain-graph asks of each in turn
    # whether it holds no graph (a question per variable of the chain).
    out.append("struct StatelessImpl : torch::nn::Module {")
    out.append("  StatelessImpl() : fc(register_module(\"fc\", torch::nn::Linear(4, 4))) {}")
    out.append("  torch::Tensor forward(torch::Tensor x) { return fc(x).relu(); }")
    out.append("  torch::nn::Linear fc;")
    out.append("};")
    out.append("TORCH_MODULE(Stateless);")
    out.append("using Loader = std::unique_ptr<")
    out.append("    torch::data::StatelessDataLoader<torch::data::datasets::MNIST, torch::data::samplers::RandomSampler>>;")
    out.append("void train_long_chain(Stateless &model, torch::optim::SGD &opt, Loader &loader) {")
    out.append("  for (auto &batch : *loader) {")
    out.append("    opt.zero_grad();")
    out.append("    auto t0 = batch.front().data;")
    for i in range(1, 50001):
        out.append("    auto t%d = t%d * 2;" % (i, i - 1))
    out.append("    model->forward(t50000).sum().backward({}, true);")
    out.append("    model->forward(t50000).sum().backward();")
    out.append("    opt.step();")
    out.append("  }")
    out.append("}")
    # 200 parentheses around a forward pass in an evaluation loop.
    out.append("double evaluate_deep_parens(Net &model, const std::vector<torch::Tensor> &xs) {")
    out.append("  double total = 0;")
    out.append("  for (const auto &x : xs)")
    out.append("    total += " + "(" * 200 + "model(x)" + ")" * 200 + ".sum().item<double>(); // expect: torch-eval-without-no-grad")
    out.append("  return total;")
    out.append("}")


def big(out, lines):
    i = 0
    while len(out) < lines - 20:
        k = i % 5
        if k == 0:
            out.append("double evaluate_%d(Net &model, const std::vector<torch::Tensor> &xs) {" % i)
            out.append("  double total = 0;")
            out.append("  for (const auto &x : xs) {")
            out.append("    auto out = model(x); // expect: torch-eval-without-no-grad")
            out.append("    total += out.sum().item<double>();")
            out.append("  }")
            out.append("  return total;")
            out.append("}")
        elif k == 1:
            out.append("double evaluate_guarded_%d(Net &model, const std::vector<torch::Tensor> &xs) {" % i)
            out.append("  torch::NoGradGuard no_grad;")
            out.append("  double total = 0;")
            out.append("  for (const auto &x : xs)")
            out.append("    total += model(x).sum().item<double>();")
            out.append("  return total;")
            out.append("}")
        elif k == 2:
            out.append("void train_%d(Net &model, torch::optim::SGD &opt, const std::vector<torch::Tensor> &xs) {" % i)
            out.append("  torch::Tensor running = torch::zeros({1});")
            out.append("  for (const auto &x : xs) {")
            out.append("    opt.zero_grad();")
            out.append("    auto loss = model(x).sum();")
            out.append("    loss.backward();")
            out.append("    opt.step();")
            out.append("    running += loss;")
            out.append("  }")
            out.append("}")
        elif k == 3:
            out.append("int helper_%d(int n) {" % i)
            out.append("  int s = 0;")
            out.append("  for (int j = 0; j < n; ++j)")
            out.append("    s += j * %d;" % i)
            out.append("  return s;")
            out.append("}")
        else:
            out.append("torch::Tensor step_%d(Net &model, torch::Tensor x) {" % i)
            out.append("  torch::Tensor y = x;")
            out.append("  for (int j = 0; j < 3; ++j)")
            out.append("    y = model(y) + x;")
            out.append("  return y;")
            out.append("}")
        i += 1
    while len(out) < lines:
        out.append("// filler")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kind", choices=["nested", "huge", "templates", "macros", "big", "deep"])
    p.add_argument("out")
    p.add_argument("--lines", type=int, default=50000)
    a = p.parse_args()
    out = PRELUDE.splitlines()
    {"nested": nested, "huge": huge, "templates": templates, "macros": macros,
     "big": lambda o: big(o, a.lines), "deep": deep}[a.kind](out)
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
