#!/usr/bin/env python3
"""Writes a LibTorch training file of about 2,000 lines and 200 functions whose
loops call helpers, trainer methods and evaluation functions through chains of
calls: the worst case of the cross-function analysis (docs/cross-function.md).
  gen-calls-bench.py OUT.cpp [FUNCTIONS]"""
import sys

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
groups = n // 10
lines = ["#include <torch/torch.h>", "#include <vector>", "",
         "struct NetImpl : torch::nn::Module {",
         "  NetImpl() : fc(register_module(\"fc\", torch::nn::Linear(4, 2))) {}",
         "  torch::Tensor forward(torch::Tensor x) { return fc(x); }",
         "  torch::nn::Linear fc;", "};", "TORCH_MODULE(Net);", ""]
for g in range(groups):
    lines += [
        f"torch::Tensor forward_{g}(Net &model, torch::Tensor x) {{",
        "  auto y = model->forward(x);",
        "  return y * 2;", "}",
        f"torch::Tensor loss_{g}(Net &model, torch::Tensor x, torch::Tensor t) {{",
        f"  auto out = forward_{g}(model, x);",
        "  return torch::mse_loss(out, t);", "}",
        f"double validate_{g}(Net &model, const std::vector<torch::Tensor> &xs) {{",
        "  torch::NoGradGuard no_grad;", "  double total = 0;",
        "  for (const auto &x : xs)",
        f"    total += forward_{g}(model, x).sum().item<double>();",
        "  return total;", "}",
        f"struct Trainer{g} {{",
        "  Net model;",
        "  torch::optim::SGD optimizer{model->parameters(), torch::optim::SGDOptions(0.1)};",
        "  torch::Tensor running_;",
        "  std::vector<double> history_;",
        "  void record(const torch::Tensor &loss) {",
        "    running_ += loss.detach();",
        "    history_.push_back(loss.item<double>());", "  }",
        "  void train_step(torch::Tensor x, torch::Tensor t) {",
        "    optimizer.zero_grad();",
        f"    auto loss = loss_{g}(model, x, t);",
        "    loss.backward();",
        "    optimizer.step();",
        "    record(loss);", "  }",
        "  void checked_step(torch::Tensor x, torch::Tensor t) {",
        "    if (x.defined())", "      train_step(x, t);", "  }",
        "  void epoch(const std::vector<torch::Tensor> &xs, torch::Tensor t) {",
        "    for (const auto &x : xs)", "      checked_step(x, t);", "  }",
        "  double evaluate(const std::vector<torch::Tensor> &xs) {",
        "    model->eval();",
        f"    double v = validate_{g}(model, xs);",
        "    model->train();", "    return v;", "  }", "};",
        f"void fit_{g}(Trainer{g} &trainer, const std::vector<torch::Tensor> &xs, torch::Tensor t) {{",
        "  for (int e = 0; e < 3; ++e) {",
        "    trainer.epoch(xs, t);",
        "    trainer.evaluate(xs);", "  }", "}",
        f"void run_{g}(const std::vector<torch::Tensor> &xs, torch::Tensor t) {{",
        f"  Trainer{g} trainer;",
        f"  fit_{g}(trainer, xs, t);", "}", ""]
# A comment block before every function, as real code has: about 2,000 lines.
padded = []
for l in lines:
    if l.endswith(") {") and not l.startswith("    "):
        indent = l[: len(l) - len(l.lstrip())]
        padded += [indent + "//", indent + "// One function of the generated benchmark (see the",
                   indent + "// file's header): a helper, a method or a loop.", indent + "//"]
    padded.append(l)
lines = padded
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
print(f"{out}: {len(lines)} lines, {groups} groups")
