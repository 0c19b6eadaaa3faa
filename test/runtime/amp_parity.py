#!/usr/bin/env python3
"""GradScaler parity: libtorch_tidy::amp::GradScaler against Python's torch.amp.GradScaler.

Both are driven through the same scripted scenarios (finite gradients, inf and
NaN gradients, finite gradients that overflow once scaled, an explicit
unscale_ before step, two optimizers of which one skips, a bfloat16 parameter,
a manual update(new_scale), a save/load into a fresh scaler, growth factors
and backoff factors that are not powers of two). After every step the scale,
the growth tracker, which optimizers stepped and every parameter must be
identical, bit for bit.

  amp_parity.py --cpp BUILD/amp_parity [--cpp OTHER ...] [--mode auto|composite|both]

Needs `import torch` (the PyPI wheel: scripts/test-torch2.sh sets it up).
Exit status: 0 identical, 1 a difference, 2 bad usage or a program failed.
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

INF = math.inf
NAN = math.nan

# (name, dtype, optimizer, initial values)
PARAMS = [
    ("w", "float32", "A", [0.5, -1.25, 2.0, 0.75, -0.375, 1.5]),
    ("v", "bfloat16", "A", [1.0, -0.5, 0.25, 3.0]),
    ("u", "float32", "B", [2.0, -3.0, 0.125]),
]
OPTIMIZERS = [("A", 0.125, 0.5), ("B", 0.25, 0.0)]


def step(w, v, u, unscale="-", save_load=False, new_scale=None):
    return {"grads": list(w) + list(v) + list(u), "unscale": unscale, "save_load": save_load,
            "new_scale": new_scale}


CLEAN_W = [0.5, -0.25, 1.0, 0.125, -2.0, 0.75]
CLEAN_V = [0.25, 0.5, -1.0, 2.0]
CLEAN_U = [1.0, -0.5, 0.25]


def steps_for_scenario():
    return [
        step(CLEAN_W, CLEAN_V, CLEAN_U),
        step(CLEAN_W, CLEAN_V, CLEAN_U, unscale="A"),
        step([0.3, 0.1, -0.7, 1.1, 0.9, -1.3], [0.3, -0.1, 0.7, 0.2], [0.6, 0.2, -0.4]),
        step([1.0, INF, 0.0, 0.0, 0.0, 0.0], CLEAN_V, CLEAN_U),            # A skips, B steps
        step(CLEAN_W, [0.5, NAN, 0.0, 0.0], [1.0, -INF, 0.0]),              # both skip
        step(CLEAN_W, CLEAN_V, [1e35, 0.0, 0.0]),                            # overflows once scaled: B skips
        step(CLEAN_W, CLEAN_V, CLEAN_U, save_load=True),
        step([0.01, 0.02, -0.03, 0.04, -0.05, 0.06], CLEAN_V, CLEAN_U, unscale="A"),
        step(CLEAN_W, CLEAN_V, CLEAN_U),
        step(CLEAN_W, CLEAN_V, CLEAN_U, new_scale=3000.0),
        step([1e-3, -2e-3, 3e-3, 0.5, 0.25, 0.125], [1e-3, 2e-3, 0.5, -0.25], CLEAN_U),
        step(CLEAN_W, CLEAN_V, CLEAN_U, save_load=True),
        step(CLEAN_W, CLEAN_V, CLEAN_U),
        step(CLEAN_W, CLEAN_V, CLEAN_U),
        step([2e34, 0.0, 0.0, 0.0, 0.0, 0.0], CLEAN_V, CLEAN_U),
        step(CLEAN_W, CLEAN_V, CLEAN_U),
    ]


# (init_scale, growth_factor, backoff_factor, growth_interval)
SCENARIOS = {
    "powers-of-two": (1024.0, 2.0, 0.5, 3),
    "odd-factors": (1000.0, 3.0, 0.3, 2),
    "defaults": (65536.0, 2.0, 0.5, 2000),
}


def fmt(x):
    return x.hex() if math.isfinite(x) else repr(x)


def write_scenario(path, config, steps):
    with open(path, "w") as f:
        f.write("scaler %s %s %s %d\n" % (fmt(config[0]), fmt(config[1]), fmt(config[2]), config[3]))
        for name, lr, momentum in OPTIMIZERS:
            f.write("optimizer %s %s %s\n" % (name, fmt(lr), fmt(momentum)))
        for name, dtype, opt, values in PARAMS:
            f.write("param %s %s %s %s\n" % (name, dtype, opt, " ".join(fmt(x) for x in values)))
        for s in steps:
            f.write("step %s %d %s %s\n" % (s["unscale"], 1 if s["save_load"] else 0,
                                           "-" if s["new_scale"] is None else fmt(s["new_scale"]),
                                           " ".join(fmt(float(x)) for x in s["grads"])))


def reference(config, steps):
    """The same scenario through Python's torch.amp.GradScaler."""
    import torch

    def as_float32(x):  # the C++ side reads each value into a float
        return torch.tensor([x], dtype=torch.float32).item()

    dtypes = {"float32": torch.float32, "bfloat16": torch.bfloat16}
    params = {name: torch.tensor([as_float32(x) for x in values], dtype=torch.float32).to(dtypes[dtype])
              .requires_grad_() for name, dtype, _, values in PARAMS}
    optimizers = {}
    calls = {}
    for name, lr, momentum in OPTIMIZERS:
        opt = torch.optim.SGD([params[p] for p, _, o, _ in PARAMS if o == name], lr=lr, momentum=momentum)
        original = opt.step

        def counted(*args, _name=name, _original=original, **kwargs):
            calls[_name] = True
            return _original(*args, **kwargs)

        opt.step = counted
        optimizers[name] = opt

    def new_scaler(**kw):
        return torch.amp.GradScaler("cpu", **kw)

    scaler = new_scaler(init_scale=config[0], growth_factor=config[1], backoff_factor=config[2],
                        growth_interval=config[3])
    out = []
    for s in steps:
        for opt in optimizers.values():
            opt.zero_grad()
        loss = torch.zeros(())
        k = 0
        for name, _, _, values in PARAMS:
            n = len(values)
            g = torch.tensor(s["grads"][k:k + n], dtype=torch.float32)
            k += n
            loss = loss + (params[name].float() * g).sum()
        scaler.scale(loss).backward()
        calls.clear()
        for name, opt in optimizers.items():
            if s["unscale"] == name:
                scaler.unscale_(opt)
            scaler.step(opt)
        stepped = {name: bool(calls.get(name)) for name in optimizers}
        if s["new_scale"] is None:
            scaler.update()
        else:
            scaler.update(s["new_scale"])
        if s["save_load"]:
            state = scaler.state_dict()
            scaler = new_scaler()
            scaler.load_state_dict(state)
        out.append({"scale": float(scaler.get_scale()), "tracker": int(scaler._get_growth_tracker()),
                    "stepped": stepped,
                    "params": {name: [float(x) for x in params[name].detach().float().tolist()]
                               for name, _, _, _ in PARAMS}})
    return out


def parse_cpp(text):
    lines = text.strip().splitlines()
    header = lines[0]
    out = []
    for line in lines[1:]:
        w = line.split()
        assert w[0] == "step" and w[2] == "scale" and w[4] == "tracker" and w[6] == "stepped", line
        rec = {"scale": float.fromhex(w[3]), "tracker": int(w[5]), "stepped": {}, "params": {}}
        i = 7
        while i < len(w) and w[i] != "param":
            name, flag = w[i].split("=")
            rec["stepped"][name] = flag == "1"
            i += 1
        while i < len(w):
            assert w[i] == "param", line
            name = w[i + 1]
            i += 2
            vals = []
            while i < len(w) and w[i] != "param":
                vals.append(float.fromhex(w[i]) if w[i] not in ("inf", "-inf", "nan", "-nan") else float(w[i]))
                i += 1
            rec["params"][name] = vals
        out.append(rec)
    return header, out


def same(a, b):
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def compare(ref, got):
    problems = []
    if len(ref) != len(got):
        return ["%d steps from Python, %d from C++" % (len(ref), len(got))]
    for i, (r, g) in enumerate(zip(ref, got)):
        if not same(r["scale"], g["scale"]):
            problems.append("step %d: scale %r (Python) != %r (C++)" % (i, r["scale"], g["scale"]))
        if r["tracker"] != g["tracker"]:
            problems.append("step %d: growth tracker %d != %d" % (i, r["tracker"], g["tracker"]))
        if r["stepped"] != g["stepped"]:
            problems.append("step %d: stepped %s != %s" % (i, r["stepped"], g["stepped"]))
        for name, values in r["params"].items():
            other = g["params"].get(name)
            if other is None or len(other) != len(values) or not all(same(x, y) for x, y in zip(values, other)):
                problems.append("step %d: param %s %s (Python) != %s (C++)" % (i, name, values, other))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpp", action="append", required=True, help="an amp_parity program (repeatable)")
    ap.add_argument("--mode", choices=["auto", "composite", "both"], default="both")
    args = ap.parse_args()
    try:
        import torch
    except ImportError as e:
        print("amp_parity: python3 cannot import torch (%s); scripts/test-torch2.sh sets it up" % e,
              file=sys.stderr)
        return 2
    modes = ["auto", "composite"] if args.mode == "both" else [args.mode]
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for scenario, config in SCENARIOS.items():
            steps = steps_for_scenario()
            path = os.path.join(tmp, scenario + ".txt")
            write_scenario(path, config, steps)
            ref = reference(config, steps)
            skipped = sum(1 for r in ref for v in r["stepped"].values() if not v)
            for binary in args.cpp:
                for mode in modes:
                    run = subprocess.run([binary, path, mode], capture_output=True, text=True)
                    if run.returncode != 0:
                        print("amp_parity: %s %s failed (%d): %s" % (binary, mode, run.returncode, run.stderr.strip()),
                              file=sys.stderr)
                        return 2
                    header, got = parse_cpp(run.stdout)
                    problems = compare(ref, got)
                    label = "%s [%s, %s] vs Python torch %s" % (scenario, header, mode, torch.__version__)
                    if problems:
                        failed = True
                        print("amp_parity: DIFFERENT %s" % label)
                        for p in problems[:20]:
                            print("  " + p)
                    else:
                        print("amp_parity: identical %s: %d steps, %d skipped optimizer steps, final scale %g"
                              % (label, len(ref), skipped, ref[-1]["scale"]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
