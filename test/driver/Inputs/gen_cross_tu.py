#!/usr/bin/env python3
"""Writes a project template of N files that call each other's helpers.

  gen_cross_tu.py DEST N

Each src/fI.cpp defines four helpers (a forward pass with autograd on, a
training step, a guarded forward pass, an evaluation-named forward pass) and
four functions that call helpers of other files in the shapes the linked
summaries decide (after eval(), by name, guarded, training, backpropagated
through). Two more files, local0.cpp and local1.cpp, call nothing of
another file: their findings do not depend on the link. Seeded: the same
project every time. mkproject.py turns it into a
compile database.
"""
import os
import random
import sys

dest, n = sys.argv[1], int(sys.argv[2])
random.seed(7)
os.makedirs(os.path.join(dest, "include"), exist_ok=True)
os.makedirs(os.path.join(dest, "src"), exist_ok=True)
header = ["#pragma once", "#include <torch/torch.h>",
          "struct PolicyImpl : torch::nn::Module {",
          '  PolicyImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}',
          "  torch::Tensor forward(torch::Tensor x) { return fc(x); }",
          "  torch::nn::Linear fc;", "};", "TORCH_MODULE(Policy);"]
for i in range(n):
    header += [f"torch::Tensor run_{i}(Policy &p, torch::Tensor x);",
               f"void tune_{i}(Policy &p, torch::optim::SGD &opt, torch::Tensor x);",
               f"torch::Tensor guarded_{i}(Policy &p, torch::Tensor x);",
               f"torch::Tensor evaluate_{i}(Policy &p, torch::Tensor x);"]
with open(os.path.join(dest, "include", "proj.h"), "w") as f:
    f.write("\n".join(header) + "\n")
for i in range(n):
    lines = ['#include "proj.h"',
             f"torch::Tensor run_{i}(Policy &p, torch::Tensor x) {{ return p->forward(x); }}",
             f"void tune_{i}(Policy &p, torch::optim::SGD &opt, torch::Tensor x) {{ opt.zero_grad(); "
             "p->forward(x).sum().backward(); opt.step(); }",
             f"torch::Tensor guarded_{i}(Policy &p, torch::Tensor x) {{ torch::NoGradGuard g; return p->forward(x); }}",
             f"torch::Tensor evaluate_{i}(Policy &p, torch::Tensor x) {{ return p->forward(x); }}"]
    for k in range(4):
        j = random.randrange(n)
        name = random.choice(["validate", "test_x", "step", "infer"])
        body = random.choice([
            f"p->eval(); auto y = run_{j}(p, x); return y.sum().item<double>();",
            f"auto y = run_{j}(p, x); return y.sum().item<double>();",
            f"auto y = guarded_{j}(p, x); return y.sum().item<double>();",
            f"double a = p->forward(x).sum().item<double>(); tune_{j}(p, opt, x); return a;",
            f"auto y = evaluate_{j}(p, x); y.sum().backward(); return 0;",
            f"p->eval(); auto y = evaluate_{j}(p, x); return y.sum().item<double>();",
            "return p->forward(x).sum().item<double>();",
        ])
        lines.append(f"double {name}_{i}_{k}(Policy &p, torch::optim::SGD &opt, torch::Tensor x) {{ {body} }}")
    with open(os.path.join(dest, "src", f"f{i}.cpp"), "w") as f:
        f.write("\n".join(lines) + "\n")
for i in range(2):
    with open(os.path.join(dest, "src", f"local{i}.cpp"), "w") as f:
        f.write(f"""#include "proj.h"
static torch::Tensor helper(Policy &p, torch::Tensor x) {{ return p->forward(x); }}
double validate_local_{i}(Policy &p, torch::Tensor x) {{ return helper(p, x).sum().item<double>(); }}
double test_guarded_{i}(Policy &p, torch::Tensor x) {{ torch::NoGradGuard g; return helper(p, x).sum().item<double>(); }}
double train_local_{i}(Policy &p, torch::optim::SGD &opt, torch::Tensor x) {{
  opt.zero_grad(); auto l = helper(p, x).sum(); l.backward(); opt.step(); return l.item<double>(); }}
""")
