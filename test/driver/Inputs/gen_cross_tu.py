#!/usr/bin/env python3
"""Writes a project template of N files that call each other's helpers.

  gen_cross_tu.py DEST N

Every cross-file case of docs/cross-function.md ("Across translation units"),
positive and silent, at call sites mixed at random over the files:

  torch-eval-without-no-grad: each src/fI.cpp defines four helpers (a
    forward pass with autograd on, a training step that zeroes, a guarded
    forward pass, an evaluation-named forward pass) and four functions that
    call helpers of other files (after eval(), by name, guarded, training,
    backpropagated through). Further sites: a helper called after eval()
    under a guard, a helper defined only in the file that does not compile,
    and an evaluation-named function (evaluate_only_I) that every caller in
    the project calls under a guard.
  torch-missing-zero-grad: a loop calls a helper of another file that runs
    backward and step without zero_grad (warned at the loop); silent: the
    helper zeroes, the loop zeroes (itself or through prepare_K of a third
    file), the helper steps under a condition, the helper is defined only
    in the file that does not compile, virtual dispatch, a function pointer.
  torch-accumulated-history: a loop calls Meter_J::record (another file:
    total_ += loss) with a loss that carries history, on an object that
    outlives the loop (warned at the call); silent: a detached argument, a
    method that detaches, Reporter_J::add (Reporter_J::result, in a third
    file, returns the member), Buffer_J::push (Buffer_J::flush is defined
    only in the file that does not compile).

src/broken.cpp does not compile (on purpose: no summary). Two more files,
local0.cpp and local1.cpp, call nothing of another file: their findings do
not depend on the link.

DEST/expect.json lists every site: the file and line (each generated
function is one line), the check, what the check must report there with the
linked summaries ("linked") and what it reports on the file alone
("alone"): "warn" or "silent". They follow from the shape written, not from
a run of the tool; check_expectations.py compares them with a report.

Seeded: the same project every time (the evaluation shapes draw from the
same sequence as before the other cases were added). mkproject.py turns it
into a compile database.
"""
import json
import os
import random
import sys

dest, n = sys.argv[1], int(sys.argv[2])
if n < 3:
    sys.exit("gen_cross_tu.py: N must be at least 3 (a third file for the silent cases)")
random.seed(7)
os.makedirs(os.path.join(dest, "include"), exist_ok=True)
os.makedirs(os.path.join(dest, "src"), exist_ok=True)

EVAL = "torch-eval-without-no-grad"
ZERO = "torch-missing-zero-grad"
ACC = "torch-accumulated-history"
EVAL_NAMES = ("validate", "test_x", "infer")  # EvalFunctionPattern's words; "step" is not one
SGD = "torch::optim::SGD"
DATA = "const std::vector<torch::Tensor> &data"

header = ["#pragma once", "#include <torch/torch.h>", "#include <vector>",
          "struct PolicyImpl : torch::nn::Module {",
          '  PolicyImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}',
          "  torch::Tensor forward(torch::Tensor x) { return fc(x); }",
          "  torch::nn::Linear fc;", "};", "TORCH_MODULE(Policy);",
          "struct Learner {", "  virtual ~Learner() = default;",
          "  virtual void learn(torch::Tensor x) = 0;", "};",
          "// broken.cpp (does not compile: no summary)",
          "torch::Tensor run_broken(Policy &p, torch::Tensor x);",
          f"void step_broken(Policy &p, {SGD} &opt, torch::Tensor x);"]
for i in range(n):
    header += [f"torch::Tensor run_{i}(Policy &p, torch::Tensor x);",
               f"void tune_{i}(Policy &p, {SGD} &opt, torch::Tensor x);",
               f"torch::Tensor guarded_{i}(Policy &p, torch::Tensor x);",
               f"torch::Tensor evaluate_{i}(Policy &p, torch::Tensor x);",
               f"torch::Tensor evaluate_only_{i}(Policy &p, torch::Tensor x);",
               f"void step_{i}(Policy &p, {SGD} &opt, torch::Tensor x);",
               f"void step_maybe_{i}(Policy &p, {SGD} &opt, torch::Tensor x, bool update);",
               f"void prepare_{i}({SGD} &opt);",
               # Meter_I and Buffer_I's methods but flush: fI.cpp; Reporter_I::result:
               # f(I+1).cpp; Buffer_I::flush: broken.cpp.
               f"struct Meter_{i} {{ void record(torch::Tensor loss); "
               "void record_detached(torch::Tensor loss); torch::Tensor total_; };",
               f"struct Reporter_{i} {{ void add(torch::Tensor loss); torch::Tensor result(); "
               "torch::Tensor sum_; };",
               f"struct Buffer_{i} {{ void push(torch::Tensor loss); void flush(); torch::Tensor acc_; }};"]
with open(os.path.join(dest, "include", "proj.h"), "w") as f:
    f.write("\n".join(header) + "\n")

expect = []


def site(path, line, check, linked, alone, case):
    expect.append({"file": path, "line": line, "check": check, "linked": linked, "alone": alone,
                   "case": case})


def warn_if(cond):
    return "warn" if cond else "silent"


# The evaluation shapes, drawn as before. Each: (body, linked, alone, case)
# for a function named NAME in file I calling a helper of file J.
def eval_shape(body_index, i, j, name):
    by_name = name in EVAL_NAMES
    here = i == j
    return [
        ("after eval(), a forward helper", "warn", warn_if(here)),
        ("a forward helper, by the caller's name", warn_if(by_name), warn_if(by_name and here)),
        ("a helper that guards itself", "silent", "silent"),
        ("a helper that trains makes the caller training code", "silent",
         warn_if(by_name and not here)),
        ("the result of an evaluation-named helper backpropagated", "silent", "silent"),
        ("after eval(), an evaluation-named helper (its own finding)", "silent", "silent"),
        ("a forward pass of its own, by name", warn_if(by_name), warn_if(by_name)),
    ][body_index]


files = {i: ['#include "proj.h"',
             f"torch::Tensor run_{i}(Policy &p, torch::Tensor x) {{ return p->forward(x); }}",
             f"void tune_{i}(Policy &p, {SGD} &opt, torch::Tensor x) {{ opt.zero_grad(); "
             "p->forward(x).sum().backward(); opt.step(); }",
             f"torch::Tensor guarded_{i}(Policy &p, torch::Tensor x) {{ torch::NoGradGuard g; return p->forward(x); }}",
             f"torch::Tensor evaluate_{i}(Policy &p, torch::Tensor x) {{ return p->forward(x); }}"]
         for i in range(n)}
backpropagated = set()  # (I, J): a function of fI.cpp backpropagates evaluate_J's result
drawn = set()  # the evaluation shapes drawn


def eval_bodies(j):
    return [
        f"p->eval(); auto y = run_{j}(p, x); return y.sum().item<double>();",
        f"auto y = run_{j}(p, x); return y.sum().item<double>();",
        f"auto y = guarded_{j}(p, x); return y.sum().item<double>();",
        f"double a = p->forward(x).sum().item<double>(); tune_{j}(p, opt, x); return a;",
        f"auto y = evaluate_{j}(p, x); y.sum().backward(); return 0;",
        f"p->eval(); auto y = evaluate_{j}(p, x); return y.sum().item<double>();",
        "return p->forward(x).sum().item<double>();",
    ]


def eval_site(i, k, j, name, b):
    if b == 4:
        backpropagated.add((i, j))
    drawn.add(b)
    case, linked, alone = eval_shape(b, i, j, name)
    files[i].append(f"double {name}_{i}_{k}(Policy &p, {SGD} &opt, torch::Tensor x) {{ {eval_bodies(j)[b]} }}")
    site(f"src/f{i}.cpp", len(files[i]), EVAL, linked, alone, case if b == 6 else f"{case} (f{j}.cpp)")


for i in range(n):
    for k in range(4):
        j = random.randrange(n)
        name = random.choice(["validate", "test_x", "step", "infer"])
        eval_site(i, k, j, name, eval_bodies(j).index(random.choice(eval_bodies(j))))
# A shape the draws missed (none for N = 6 or 10): once more, from a
# sequence of its own, in a function named like evaluation.
extra = random.Random(23)
for b in sorted(set(range(7)) - drawn):
    i = extra.randrange(n)
    j = extra.choice([c for c in range(n) if c != i])
    eval_site(i, len(files[i]), j, extra.choice(EVAL_NAMES), b)  # a suffix no other function of fI has
for i in range(n):
    # evaluate_I is evaluation code by its name: reported in its file unless a
    # caller backpropagates its result (in another file: by the linked
    # summaries' callers' side).
    site(f"src/f{i}.cpp", 5, EVAL, warn_if(not any(c == i for _, c in backpropagated)),
         warn_if((i, i) not in backpropagated), "an evaluation-named helper, by its name")

# The other cross-file cases, from a sequence of their own: every shape at
# least once (the positive ones twice), shuffled over the files.
rng = random.Random(19)
only_line = {}  # I: the line of evaluate_only_I in fI.cpp
for i in range(n):
    only_line[i] = len(files[i]) + 1
    files[i] += [
        f"torch::Tensor evaluate_only_{i}(Policy &p, torch::Tensor x) {{ return p->forward(x); }}",
        f"void step_{i}(Policy &p, {SGD} &opt, torch::Tensor x) {{ auto loss = p->forward(x).sum(); "
        "loss.backward(); opt.step(); }",
        f"void step_maybe_{i}(Policy &p, {SGD} &opt, torch::Tensor x, bool update) {{ "
        "p->forward(x).sum().backward(); if (update) opt.step(); }",
        f"void prepare_{i}({SGD} &opt) {{ opt.zero_grad(); }}",
        f"struct SgdLearner_{i} : Learner {{ SgdLearner_{i}(Policy m, {SGD} &o) : model(m), opt(o) {{}} "
        "void learn(torch::Tensor x) override { model->forward(x).sum().backward(); opt.step(); } "
        f"Policy model; {SGD} &opt; }};",
        f"void Meter_{i}::record(torch::Tensor loss) {{ total_ += loss; }}",
        f"void Meter_{i}::record_detached(torch::Tensor loss) {{ total_ += loss.detach(); }}",
        f"void Reporter_{i}::add(torch::Tensor loss) {{ sum_ += loss; }}",
        f"torch::Tensor Reporter_{(i - 1) % n}::result() {{ return sum_; }}",
        f"void Buffer_{i}::push(torch::Tensor loss) {{ acc_.add_(loss); }}",
    ]

FIT = f"(Policy &p, {SGD} &opt, {DATA})"
EACH = "for (const auto &x : data)"
LOSS = "auto loss = p->forward(x).sum();"
# (check, case, positive, signature, body); "{j}" in them: a file other than
# the caller's, "{k}": a third file.
shapes = [
    (ZERO, "backward and step in a helper, no zero_grad", True, FIT, f"{EACH} step_{{j}}(p, opt, x);"),
    (ZERO, "the helper zeroes", False, FIT, f"{EACH} tune_{{j}}(p, opt, x);"),
    (ZERO, "the loop zeroes", False, FIT, f"{EACH} {{ opt.zero_grad(); step_{{j}}(p, opt, x); }}"),
    (ZERO, "the loop zeroes through a third file", False, FIT,
     f"{EACH} {{ prepare_{{k}}(opt); step_{{j}}(p, opt, x); }}"),
    (ZERO, "the helper steps under a condition", False, FIT,
     "for (size_t t = 0; t < data.size(); ++t) step_maybe_{j}(p, opt, data[t], t % 4 == 3);"),
    (ZERO, "the helper's file does not compile", False, FIT, f"{EACH} step_broken(p, opt, x);"),
    (ZERO, "virtual dispatch", False, f"(Learner &learner, {DATA})", f"{EACH} learner.learn(x);"),
    (ZERO, "a function pointer", False,
     f"(void (*fn)(Policy &, {SGD} &, torch::Tensor), Policy &p, {SGD} &opt, {DATA})",
     f"{EACH} fn(p, opt, x);"),
    (ACC, "a method of another file accumulates the argument", True,
     f"(Policy &p, Meter_{{j}} &m, {DATA})", f"{EACH} {{ {LOSS} m.record(loss); }}"),
    (ACC, "a detached argument", False, f"(Policy &p, Meter_{{j}} &m, {DATA})",
     f"{EACH} {{ {LOSS} m.record(loss.detach()); }}"),
    (ACC, "the method detaches", False, f"(Policy &p, Meter_{{j}} &m, {DATA})",
     f"{EACH} {{ {LOSS} m.record_detached(loss); }}"),
    (ACC, "another method, in a third file, returns the member", False,
     f"(Policy &p, Reporter_{{j}} &r, {DATA})", f"{EACH} {{ {LOSS} r.add(loss); }}"),
    (ACC, "another method is in the file that does not compile", False,
     f"(Policy &p, Buffer_{{j}} &b, {DATA})", f"{EACH} {{ {LOSS} b.push(loss); }}"),
    (EVAL, "after eval(), a forward helper under a guard", False, f"(Policy &p, torch::Tensor x)",
     "p->eval(); torch::NoGradGuard g; auto y = run_{j}(p, x); return y.sum().item<double>();"),
    (EVAL, "after eval(), a helper of the file that does not compile", False, f"(Policy &p, torch::Tensor x)",
     "p->eval(); auto y = run_broken(p, x); return y.sum().item<double>();"),
    (EVAL, "an evaluation-named function of another file, under a guard", False,
     f"(Policy &p, torch::Tensor x)",
     "p->eval(); torch::NoGradGuard g; auto y = evaluate_only_{j}(p, x); return y.sum().item<double>();"),
]


def fill(text, j, k):
    return text.replace("{j}", str(j)).replace("{k}", str(k))


deck = list(range(len(shapes))) + [s for s, shape in enumerate(shapes) if shape[2]]
rng.shuffle(deck)
guarded_callers = {i: [] for i in range(n)}  # evaluate_only_I's callers: all under a guard
for m, s in enumerate(deck):
    check, case, positive, signature, body = shapes[s]
    i = m % n
    j = rng.choice([c for c in range(n) if c != i and (c + 1) % n != i])  # Reporter_J::result: f(J+1)
    k = rng.choice([c for c in range(n) if c not in (i, j)])
    ret = "double" if check == EVAL else "void"
    name = {ZERO: "fit", ACC: "track", EVAL: "evaluation"}[check]
    files[i].append(f"{ret} {name}_{i}_{m}{fill(signature, j, k)} {{ {fill(body, j, k)} }}")
    where = ", ".join(f"f{c}.cpp" for c, used in ((j, "{j}"), (k, "{k}")) if used in signature + body)
    site(f"src/f{i}.cpp", len(files[i]), check, warn_if(positive), "silent",
         f"{case} ({where})" if where else case)
    if case == "a detached argument":
        # Nothing with history leaves the loop and nothing trains: the forward
        # pass is inference by what the function does (linked or alone).
        site(f"src/f{i}.cpp", len(files[i]), EVAL, "warn", "warn",
             "only a detached value leaves the forward pass: inference by what it does")
    if case == "the method detaches":
        # The method of another file keeps nothing with history (its linked
        # summary's keepsNoHistory) and nothing trains: inference by what the
        # function does, with the linked summaries; alone the method may keep
        # the loss.
        site(f"src/f{i}.cpp", len(files[i]), EVAL, "warn", "silent",
             "the forward's value goes only to another file's method that keeps nothing: inference")
    if "evaluate_only_" in body:
        guarded_callers[j].append(i)
for i in range(n):
    # Called nowhere: evaluation code by its name. Called in other files, each
    # time under a guard: silent with the linked summaries, as within one file
    # (the callers' guards are linked); the file alone sees no caller.
    if guarded_callers[i]:
        site(f"src/f{i}.cpp", only_line[i], EVAL, "silent", "warn",
             "an evaluation-named function whose every caller holds a guard")
    else:
        site(f"src/f{i}.cpp", only_line[i], EVAL, "warn", "warn",
             "an evaluation-named function called nowhere")
for i in range(n):
    with open(os.path.join(dest, "src", f"f{i}.cpp"), "w") as f:
        f.write("\n".join(files[i]) + "\n")

with open(os.path.join(dest, "src", "broken.cpp"), "w") as f:
    f.write('#include "proj.h"\n'
            "torch::Tensor run_broken(Policy &p, torch::Tensor x) { return p->forward(x); }\n"
            f"void step_broken(Policy &p, {SGD} &opt, torch::Tensor x) "
            "{ p->forward(x).sum().backward(); opt.step(); }\n"
            + "".join(f"void Buffer_{i}::flush() {{ acc_ = torch::zeros({{1}}); }}\n" for i in range(n))
            + "this_does_not_compile;\n")
for i in range(2):
    with open(os.path.join(dest, "src", f"local{i}.cpp"), "w") as f:
        f.write(f"""#include "proj.h"
static torch::Tensor helper(Policy &p, torch::Tensor x) {{ return p->forward(x); }}
double validate_local_{i}(Policy &p, torch::Tensor x) {{ return helper(p, x).sum().item<double>(); }}
double test_guarded_{i}(Policy &p, torch::Tensor x) {{ torch::NoGradGuard g; return helper(p, x).sum().item<double>(); }}
double train_local_{i}(Policy &p, torch::optim::SGD &opt, torch::Tensor x) {{
  opt.zero_grad(); auto l = helper(p, x).sum(); l.backward(); opt.step(); return l.item<double>(); }}
""")
    site(f"src/local{i}.cpp", 3, EVAL, "warn", "warn", "a local helper, by the caller's name")
    site(f"src/local{i}.cpp", 4, EVAL, "silent", "silent", "a local helper under a guard")
    site(f"src/local{i}.cpp", 5, EVAL, "silent", "silent", "a local helper in training code")

with open(os.path.join(dest, "expect.json"), "w") as f:
    json.dump(sorted(expect, key=lambda e: (e["file"], e["line"], e["check"])), f, indent=1)
    f.write("\n")
