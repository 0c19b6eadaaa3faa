#!/usr/bin/env python3
"""Crash sweep: every torch- check over large amounts of ordinary C++ that
nobody wrote for these tests (docs/crash-sweep.md).

The headers of Debian packages (nlohmann-json, Boost, Eigen, OpenCV, pybind11,
fmt, spdlog, cxxopts, GoogleTest, LLVM's ADT and Support, libstdc++) are
compiled as *user* code, each batch of them next to <torch/torch.h>: every
package directory is reached through a tree of symbolic links under OUT/inc
given with -I, so that clang takes it for the project's own code and the
checks walk it, instead of skipping it as a system header (a header that
declares itself one with #pragma GCC system_header, as libstdc++'s do, is
copied without the pragma). Each unit also instantiates the package's main
templates together with LibTorch code (a training loop that
logs to JSON, an Eigen map of a tensor, ...) and ends with a probe, an
evaluation function with one known torch-eval-without-no-grad finding: a unit
whose checks did not run to the end lacks it.

The units run through the libtorch-tidy command (its precompiled LibTorch
header, its parallel runs, its crash isolation, --timeout). The sweep fails on
a crash (exit 4, a failure naming a check), a hang (a unit past --timeout) or
a unit without its probe's finding; a unit that does not compile is counted
and listed but does not fail it (the checks still ran on what parsed).

  scripts/crash-sweep.sh [--quick] [--out DIR] [--build DIR] [--jobs N]
                         [--timeout S] [--only PKG[,PKG...]] [--allow-missing]

--quick runs the bounded subset of the test command (scripts/test.sh); the
default is the whole sweep. Prints a table per package (units, headers, lines
of user code, findings, compile errors, crashes, hangs) and writes it
to OUT/summary.md. Exit status 0 when nothing crashed or hung, 1 otherwise, 2
for a usage or environment error.
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM_V = os.environ.get("LIBTORCH_TIDY_LLVM_VERSION", "19")
LLVM_INC = f"/usr/lib/llvm-{LLVM_V}/include"
PY_INC = sorted(glob.glob("/usr/include/python3.*"))

PROBE = """
// crash-sweep probe: one torch-eval-without-no-grad finding per unit.
inline torch::Tensor crash_sweep_evaluate(torch::nn::Linear &model, const torch::Tensor &x) {
  return model->forward(x);
}
"""


class Package:
    def __init__(self, name, links, headers, quick, batch, use="", use_headers=(), flags=(), apt=""):
        self.name = name
        self.links = links          # name under OUT/inc/<package>/ -> real path
        self.headers = headers      # callable: every header (relative to the -I directory)
        self.quick = quick          # the --quick subset
        self.batch = batch          # headers per unit
        self.use = use              # code that instantiates the package's templates
        self.use_headers = list(use_headers)  # what `use` needs, included in the first unit
        self.flags = list(flags)
        self.apt = apt


SYSTEM_PRAGMA = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+(GCC|clang)[ \t]+system_header[^\n]*", re.M)


def mirror(target, dest, skip_top_level_c_headers=False):
    """\p dest: \p target's tree of links, except that a file that declares
    itself a system header (#pragma GCC system_header: all of libstdc++, some
    of Boost) is a copy without that line, so that it stays user code."""
    for d, subdirs, files in os.walk(target):
        out = os.path.join(dest, os.path.relpath(d, target))
        os.makedirs(out, exist_ok=True)
        for name in files:
            # libstdc++'s <math.h>, <fenv.h>... wrappers #include_next the C
            # library's: from the mirror, the next is libstdc++'s own again.
            if skip_top_level_c_headers and d == target and name.endswith(".h"):
                continue
            path = os.path.join(d, name)
            with open(path, "rb") as f:
                data = f.read()
            if b"system_header" in data and SYSTEM_PRAGMA.search(data):
                with open(os.path.join(out, name), "wb") as f:
                    f.write(SYSTEM_PRAGMA.sub(b"// (crash sweep: #pragma system_header removed)", data))
            else:
                os.symlink(path, os.path.join(out, name))


def files_in(directory, pattern, strip):
    return sorted(os.path.relpath(p, strip) for p in glob.glob(os.path.join(directory, pattern))
                  if os.path.isfile(p))


def std_headers():
    d = "/usr/include/c++/12"
    names = sorted(n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n)) and "." not in n)
    # Headers that need another -std or are deprecated shims that #error.
    skip = {"stacktrace", "spanstream", "expected", "generator", "print", "text_encoding", "coroutine"}
    # (C++20 headers in a C++17 unit are empty: they are included, not skipped.)
    return [n for n in names if n not in skip]


# Boost's top-level headers and its main container, range and iterator
# libraries: a few hundred headers.
BOOST_DIRS = [".", "container", "range", "iterator", "smart_ptr", "algorithm", "algorithm/string", "multi_index",
              "intrusive", "unordered"]

# Headers that need what the sweep does not have (MPI, Python, OpenCL, MFC,
# ATL, Windows) or that are not meant to be included alone.
BOOST_NEEDS_MORE = re.compile(r"boost/(compute|mpi|python|gil|operators_v1|range/(atl|mfc))")

PACKAGES = [
    Package("nlohmann-json", {"nlohmann": "/usr/include/nlohmann"},
            lambda: ["nlohmann/json.hpp", "nlohmann/json_fwd.hpp"],
            ["nlohmann/json.hpp"], 2, apt="nlohmann-json3-dev",
            use_headers=["nlohmann/json.hpp"], use="""
inline std::string crash_sweep_log(torch::nn::Linear &model, const std::vector<torch::Tensor> &batches) {
  nlohmann::json log;
  torch::optim::SGD opt(model->parameters(), 0.1);
  for (const auto &x : batches) {
    opt.zero_grad();
    auto loss = model->forward(x).pow(2).mean();
    loss.backward();
    opt.step();
    log["loss"].push_back(loss.item<float>());
  }
  log["shape"] = std::vector<int64_t>(model->weight.sizes().begin(), model->weight.sizes().end());
  auto again = nlohmann::json::parse(log.dump());
  return again["loss"].empty() ? std::string() : again.dump(2);
}
"""),
    Package("boost", {"boost": "/usr/include/boost"},
            lambda: [h for d in BOOST_DIRS for h in files_in(os.path.join("/usr/include/boost", d), "*.hpp",
                                                              "/usr/include")
                     if not BOOST_NEEDS_MORE.search(h)],
            ["boost/optional.hpp", "boost/variant.hpp", "boost/any.hpp", "boost/lexical_cast.hpp",
             "boost/format.hpp", "boost/circular_buffer.hpp", "boost/range.hpp", "boost/algorithm/string.hpp",
             "boost/container/small_vector.hpp", "boost/intrusive_ptr.hpp", "boost/multi_array.hpp",
             "boost/program_options.hpp", "boost/graph/adjacency_list.hpp", "boost/spirit/include/qi.hpp"],
            6, apt="libboost-dev",
            use_headers=["boost/circular_buffer.hpp", "boost/format.hpp", "boost/optional.hpp"], use="""
inline std::string crash_sweep_window(torch::nn::Linear &model, const torch::Tensor &x) {
  boost::circular_buffer<float> recent(8);
  torch::optim::Adam opt(model->parameters());
  boost::optional<float> best;
  for (int step = 0; step < 4; ++step) {
    opt.zero_grad();
    auto loss = model->forward(x).abs().sum();
    loss.backward();
    opt.step();
    recent.push_back(loss.item<float>());
    if (!best || *best > recent.back())
      best = recent.back();
  }
  return (boost::format("%1% %2%") % recent.size() % (best ? *best : 0.f)).str();
}
"""),
    Package("eigen", {"Eigen": "/usr/include/eigen3/Eigen", "unsupported": "/usr/include/eigen3/unsupported"},
            lambda: [h for h in files_in("/usr/include/eigen3/Eigen", "*", "/usr/include/eigen3")
                     if not re.search(r"(Support|QtAlignedMalloc)$", h)],
            ["Eigen/Dense", "Eigen/Sparse", "Eigen/Geometry"], 3, apt="libeigen3-dev",
            use_headers=["Eigen/Dense"], use="""
inline Eigen::MatrixXf crash_sweep_gram(const torch::Tensor &t) {
  auto c = t.to(torch::kFloat).contiguous();
  Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> m(
      c.data_ptr<float>(), c.size(0), c.size(1));
  Eigen::MatrixXf g = m * m.transpose();
  return g.ldlt().solve(Eigen::MatrixXf::Identity(g.rows(), g.cols()));
}
"""),
    Package("opencv", {"opencv2": "/usr/include/opencv4/opencv2"},
            lambda: ["opencv2/core.hpp", "opencv2/imgproc.hpp"]
            + [h for h in files_in("/usr/include/opencv4/opencv2/core", "*.hpp", "/usr/include/opencv4")
               # Parts of core.hpp, not headers of their own, and interop
               # headers for libraries the sweep does not have.
               if not re.search(r"(bindings_utils|cvstd\.inl|directx|eigen|operations|ovx|opengl|va_intel|"
                                r"cuda|ocl|private|dualquaternion\.inl|quaternion\.inl|affine|matx\.inl)", h)],
            ["opencv2/core.hpp", "opencv2/imgproc.hpp"], 4, apt="libopencv-core-dev libopencv-imgproc-dev",
            flags=["-isystem", "/usr/include/x86_64-linux-gnu/opencv4"],
            use_headers=["opencv2/core.hpp", "opencv2/imgproc.hpp"], use="""
inline torch::Tensor crash_sweep_image(const cv::Mat &bgr) {
  cv::Mat rgb, small;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  cv::resize(rgb, small, cv::Size(32, 32));
  small.convertTo(small, CV_32FC3, 1.0 / 255);
  return torch::from_blob(small.data, {small.rows, small.cols, 3}, torch::kFloat).permute({2, 0, 1}).clone();
}
"""),
    Package("pybind11", {"pybind11": "/usr/include/pybind11"},
            lambda: [h for h in files_in("/usr/include/pybind11", "*.h", "/usr/include")
                     if not h.endswith(("eigen.h", "embed.h"))],
            ["pybind11/pybind11.h", "pybind11/stl.h", "pybind11/functional.h", "pybind11/numpy.h"], 4,
            apt="pybind11-dev python3-dev",
            flags=[f for d in PY_INC[:1] for f in ("-isystem", d)],
            use_headers=["pybind11/pybind11.h", "pybind11/stl.h"], use="""
struct CrashSweepModel {
  torch::nn::Linear fc{4, 2};
  std::vector<float> predict(const std::vector<float> &v) {
    torch::NoGradGuard no_grad;
    auto out = fc->forward(torch::tensor(v).view({1, 4}));
    return std::vector<float>(out.data_ptr<float>(), out.data_ptr<float>() + out.numel());
  }
};
PYBIND11_MODULE(crash_sweep, m) {
  pybind11::class_<CrashSweepModel>(m, "Model").def(pybind11::init<>()).def("predict", &CrashSweepModel::predict);
}
"""),
    Package("fmt", {"fmt": "/usr/include/fmt"},
            lambda: files_in("/usr/include/fmt", "*.h", "/usr/include"),
            ["fmt/format.h", "fmt/ranges.h", "fmt/chrono.h"], 5, apt="libfmt-dev",
            use_headers=["fmt/format.h", "fmt/ranges.h"], use="""
inline std::string crash_sweep_report(const torch::Tensor &loss, const std::vector<int64_t> &shape) {
  return fmt::format("loss {:.4f} shape {}", loss.item<float>(), shape);
}
"""),
    Package("spdlog", {"spdlog": "/usr/include/spdlog"},
            lambda: ["spdlog/spdlog.h", "spdlog/async.h", "spdlog/stopwatch.h"]
            + [h for h in files_in("/usr/include/spdlog/sinks", "*_sink.h", "/usr/include")
               if not re.search(r"(mongo|systemd|win|qt|msvc|kafka)", h)],
            ["spdlog/spdlog.h", "spdlog/sinks/basic_file_sink.h"], 6, apt="libspdlog-dev",
            flags=["-DSPDLOG_FMT_EXTERNAL", "-DSPDLOG_COMPILED_LIB"],
            use_headers=["spdlog/spdlog.h"], use="""
inline void crash_sweep_train(torch::nn::Linear &model, const torch::Tensor &x) {
  torch::optim::SGD opt(model->parameters(), 0.01);
  for (int epoch = 0; epoch < 3; ++epoch) {
    opt.zero_grad();
    auto loss = model->forward(x).pow(2).sum();
    loss.backward();
    opt.step();
    spdlog::info("epoch {} loss {}", epoch, loss.item<float>());
  }
}
"""),
    Package("cxxopts", {"cxxopts.hpp": "/usr/include/cxxopts.hpp"},
            lambda: ["cxxopts.hpp"], ["cxxopts.hpp"], 1, apt="libcxxopts-dev",
            use_headers=["cxxopts.hpp"], use="""
inline int crash_sweep_options(int argc, char **argv) {
  cxxopts::Options options("train", "a LibTorch trainer");
  options.add_options()("e,epochs", "epochs", cxxopts::value<int>()->default_value("10"))(
      "d,device", "device", cxxopts::value<std::string>()->default_value("cpu"));
  auto result = options.parse(argc, argv);
  torch::Device device(result["device"].as<std::string>());
  return result["epochs"].as<int>() + static_cast<int>(device.is_cuda());
}
"""),
    Package("googletest", {"gtest": "/usr/include/gtest", "gmock": "/usr/include/gmock"},
            lambda: ["gtest/gtest.h", "gmock/gmock.h", "gtest/gtest-spi.h"],
            ["gtest/gtest.h", "gmock/gmock.h"], 3, apt="libgtest-dev libgmock-dev",
            use_headers=["gtest/gtest.h", "gmock/gmock.h"], use="""
TEST(CrashSweep, LossGoesDown) {
  torch::nn::Linear model(4, 1);
  torch::optim::SGD opt(model->parameters(), 0.1);
  auto x = torch::randn({8, 4});
  std::vector<float> losses;
  for (int i = 0; i < 5; ++i) {
    opt.zero_grad();
    auto loss = model->forward(x).pow(2).mean();
    loss.backward();
    opt.step();
    losses.push_back(loss.item<float>());
  }
  EXPECT_THAT(losses, ::testing::SizeIs(5));
  EXPECT_LT(losses.back(), losses.front());
}
"""),
    Package("llvm-adt", {"llvm": f"{LLVM_INC}/llvm", "llvm-c": f"{LLVM_INC}/llvm-c"},
            lambda: files_in(f"{LLVM_INC}/llvm/ADT", "*.h", LLVM_INC),
            ["llvm/ADT/SmallVector.h", "llvm/ADT/DenseMap.h", "llvm/ADT/StringMap.h", "llvm/ADT/STLExtras.h",
             "llvm/ADT/SetVector.h", "llvm/ADT/IntervalMap.h", "llvm/ADT/ImmutableSet.h",
             "llvm/ADT/PostOrderIterator.h", "llvm/ADT/SCCIterator.h", "llvm/ADT/APFloat.h"],
            12, apt=f"llvm-{LLVM_V}-dev",
            use_headers=["llvm/ADT/SmallVector.h", "llvm/ADT/DenseMap.h", "llvm/ADT/STLExtras.h"], use="""
inline float crash_sweep_sum(llvm::ArrayRef<torch::Tensor> batches, torch::nn::Linear &model) {
  llvm::SmallVector<torch::Tensor, 4> outs;
  llvm::DenseMap<int, float> seen;
  for (auto [i, x] : llvm::enumerate(batches)) {
    torch::NoGradGuard no_grad;
    outs.push_back(model->forward(x));
    seen[static_cast<int>(i)] = outs.back().sum().item<float>();
  }
  return llvm::any_of(outs, [](const torch::Tensor &t) { return t.numel() == 0; }) ? 0.f : seen.lookup(0);
}
"""),
    Package("llvm-support", {"llvm": f"{LLVM_INC}/llvm", "llvm-c": f"{LLVM_INC}/llvm-c"},
            lambda: [h for h in files_in(f"{LLVM_INC}/llvm/Support", "*.h", LLVM_INC)
                     if not re.search(r"(Windows|AIX|Solaris|Valgrind|AMDHSA|ARMWinEH|TargetOpcodes)", h)],
            ["llvm/Support/CommandLine.h", "llvm/Support/JSON.h", "llvm/Support/Error.h",
             "llvm/Support/ThreadPool.h", "llvm/Support/FormatVariadic.h", "llvm/Support/YAMLTraits.h"],
            12, apt=f"llvm-{LLVM_V}-dev",
            use_headers=["llvm/Support/JSON.h", "llvm/Support/raw_ostream.h"], use="""
inline std::string crash_sweep_json(const torch::Tensor &loss) {
  llvm::json::Object o{{"loss", loss.item<double>()}, {"dims", static_cast<int64_t>(loss.dim())}};
  std::string s;
  llvm::raw_string_ostream(s) << llvm::json::Value(std::move(o));
  return s;
}
"""),
    # C++17: LibTorch 1.13's own headers do not compile as C++20 with clang
    # (std::vector<c10::IValue> of an incomplete type); C++20 idioms are in
    # test/checks/cxx-idioms.cpp.
    Package("libstdc++", {".": "/usr/include/c++/12"}, std_headers,
            ["algorithm", "functional", "map", "memory", "optional", "regex", "string", "tuple",
             "unordered_map", "variant", "vector", "future", "random", "chrono", "filesystem", "numeric"],
            16, apt="libstdc++-12-dev",
            # Diagnostics clang gives libstdc++ only outside system headers.
            flags=["-Wno-invalid-constexpr", "-Wno-keyword-compat"],
            use_headers=["map", "vector", "string", "future", "algorithm"], use="""
inline std::map<std::string, float> crash_sweep_stats(torch::nn::Linear &model, std::vector<torch::Tensor> xs) {
  std::map<std::string, float> stats;
  std::vector<float> sums(xs.size());
  std::transform(xs.begin(), xs.end(), sums.begin(), [&](const torch::Tensor &x) {
    torch::NoGradGuard no_grad;
    return model->forward(x).sum().item<float>();
  });
  for (float s : sums)
    stats["sum"] += s;
  auto f = std::async(std::launch::deferred, [&] { return stats.size(); });
  stats["n"] = static_cast<float>(f.get());
  return stats;
}
"""),
]


def probe_line(unit):
    """The line of the probe's forward pass in \p unit."""
    try:
        with open(unit) as f:
            for n, line in enumerate(f, 1):
                if "return model->forward(x);" in line and n > 1 and "crash_sweep_evaluate" in prev:
                    return n
                prev = line
    except OSError:
        pass
    return -1


def batches(items, n):
    return [items[i:i + n] for i in range(0, len(items), n)]


def torch_flags(build):
    cfg = os.path.join(build, "test", "driver", "lit.site.cfg.py")
    try:
        m = re.search(r'^config.torch_cxxflags = "(.*)"$', open(cfg).read(), re.M)
    except OSError:
        m = None
    if not m:
        sys.exit(f"crash-sweep: no LibTorch flags in {cfg} (configure and build first)")
    return shlex.split(m.group(1))


def user_files(unit_without_torch, flags, inc_root):
    """The package files the unit includes (clang -M, without LibTorch)."""
    out = subprocess.run([f"/usr/lib/llvm-{LLVM_V}/bin/clang++", "-M", "-MG", *flags, unit_without_torch],
                         capture_output=True, text=True)
    deps = set(re.findall(r"(\S+)", out.stdout.replace("\\\n", " ")))
    return {os.path.normpath(d) for d in deps if d.startswith(inc_root) and os.path.isfile(d)}


def main():
    ap = argparse.ArgumentParser(description="Run every torch- check over Debian packages' headers as user code.")
    ap.add_argument("--quick", action="store_true", help="the bounded subset of the test command")
    ap.add_argument("--out", default="crash-sweep-out")
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", "build"))
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=600, help="seconds per unit before it counts as a hang")
    ap.add_argument("--only", default="", help="comma-separated package names")
    ap.add_argument("--allow-missing", action="store_true", help="skip packages that are not installed")
    args = ap.parse_args()

    build = os.path.abspath(os.path.join(ROOT, args.build) if not os.path.isabs(args.build) else args.build)
    driver = os.path.join(build, "bin", "libtorch-tidy")
    if not os.access(driver, os.X_OK):
        print(f"crash-sweep: {driver} not found (build first)", file=sys.stderr)
        return 2
    tflags = torch_flags(build)
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    only = set(filter(None, args.only.split(",")))
    unknown = only - {p.name for p in PACKAGES}
    if unknown:
        print(f"crash-sweep: unknown package(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2

    failed = []
    src_root = os.path.join(out, "src")
    os.makedirs(src_root)
    entries, plan = [], []   # plan: (package, units [(unit, headers)], headers, lines)
    for pkg in PACKAGES:
        if only and pkg.name not in only:
            continue
        missing = [p for p in pkg.links.values() if not os.path.exists(p)]
        if missing:
            msg = f"crash-sweep: {pkg.name}: not installed ({missing[0]} missing; Debian: {pkg.apt})"
            if args.allow_missing:
                print(msg + ", skipped", file=sys.stderr)
                continue
            print(msg, file=sys.stderr)
            return 2
        inc = os.path.join(out, "inc", pkg.name)
        os.makedirs(os.path.dirname(inc), exist_ok=True)
        os.makedirs(inc)
        for name, target in pkg.links.items():
            # A tree of links, not a link to the directory: clang drops an -I
            # that is the same directory as a system one, and a header that
            # says #pragma GCC system_header is copied without it.
            if os.path.isdir(target):
                mirror(target, os.path.normpath(os.path.join(inc, name)), skip_top_level_c_headers=name == ".")
            else:
                os.symlink(target, os.path.join(inc, name))
        headers = pkg.quick if args.quick else pkg.headers()
        src = os.path.join(src_root, pkg.name)
        os.makedirs(src)
        std = [f for f in pkg.flags if f.startswith("-std=")] or ["-std=c++17"]
        flags = std + [f for f in pkg.flags if not f.startswith("-std=")] + ["-I", inc]
        units, all_files = [], set()
        for i, group in enumerate(batches(headers, pkg.batch)):
            includes = list(group)
            body = PROBE
            if i == 0 and pkg.use:
                includes += [h for h in pkg.use_headers if h not in includes]
                body = pkg.use + PROBE
            text = "".join(f"#include <{h}>\n" for h in includes)
            unit = os.path.join(src, f"unit{i:03d}.cpp")
            with open(unit, "w") as f:
                f.write("#include <torch/torch.h>\n" + text + body)
            bare = os.path.join(src, f"unit{i:03d}.deps.cpp")
            with open(bare, "w") as f:
                f.write(text)
            all_files |= user_files(bare, flags, inc + os.sep)
            os.remove(bare)
            units.append((unit, group))
            # The package's flags after LibTorch's: its -std wins.
            entries.append({"directory": src, "file": unit, "arguments": ["c++", *tflags, *flags, "-c", unit]})
        lines = 0
        for f in all_files:
            with open(f, "rb") as fh:
                lines += fh.read().count(b"\n")
        plan.append((pkg, units, headers, lines))
        print(f"crash-sweep: {pkg.name}: {len(units)} units, {len(headers)} headers, {lines} lines of its code",
              file=sys.stderr, flush=True)
    with open(os.path.join(src_root, "compile_commands.json"), "w") as f:
        json.dump(entries, f, indent=1)

    report = os.path.join(out, "report.json")
    log = os.path.join(out, "driver.log")
    cmd = [driver, "-p", src_root, f"-j{args.jobs}", "--no-cache", "--checks=-*,torch-*",
           f"--timeout={args.timeout}", "--format=json", f"--output={report}",
           f"--cache-dir={os.path.join(out, 'cache')}"]
    print(f"crash-sweep: {' '.join(shlex.quote(c) for c in cmd)}", file=sys.stderr, flush=True)
    start = time.monotonic()
    with open(log, "w") as lf:
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=lf).returncode
    seconds = time.monotonic() - start
    try:
        doc = json.load(open(report))
    except (OSError, ValueError):
        print(f"crash-sweep: FAILED: the driver exited {rc} without a report:\n{open(log).read()}", file=sys.stderr)
        return 1
    if rc not in (0, 1, 2, 4, 5):
        failed.append(f"the driver exited {rc} (see {log})")
    findings = doc.get("findings", [])
    failures = doc.get("failures", [])
    for x in findings + failures:  # the report's paths are relative to the current directory
        x["file"] = os.path.abspath(x["file"])
    rows = []
    for pkg, units, headers, lines in plan:
        mine = {u for u, _ in units}
        errors = {x["file"]: x["message"] for x in failures if x["file"] in mine and "does not compile" in x["message"]}
        probes = {f["file"] for f in findings if f["check"] == "torch-eval-without-no-grad" and f["file"] in mine
                  and f["line"] == probe_line(f["file"])}
        crashes = [x for x in failures if x["file"] in mine and (x.get("crash_report") or x.get("check"))
                   and "ran past" not in x.get("message", "")]
        hangs = [x for x in failures if x["file"] in mine and "ran past" in x.get("message", "")]
        other = [x for x in failures if x["file"] in mine and x not in crashes and x not in hangs]
        for x in crashes:
            failed.append(f"{pkg.name}: crash: {x['file']}: {x.get('check', '?')}: {x['message']}"
                          + (f" (report: {x['crash_report']})" if x.get("crash_report") else ""))
        for x in hangs:
            failed.append(f"{pkg.name}: hang: {x['file']}: {x['message']}")
        for x in other:
            if x["file"] not in errors:
                failed.append(f"{pkg.name}: not analysed: {x['file']}: {x['message']}")
        # A unit that does not compile may lack its probe (a fatal error
        # stops the parse before it); every other unit must have it.
        for u, _ in units:
            if u not in probes and u not in errors and not any(x["file"] == u for x in failures):
                failed.append(f"{pkg.name}: {u}: no probe finding (torch-eval-without-no-grad at line "
                              f"{probe_line(u)}): the checks did not run to the end")
        with open(os.path.join(out, f"{pkg.name}.errors.txt"), "w") as f:
            for u, group in units:
                if u in errors:
                    f.write(f"{os.path.basename(u)} ({', '.join(group)}): {errors[u]}\n")
        nfind = sum(1 for f in findings if f["file"] in mine and f["check"].startswith("torch-"))
        rows.append((pkg.name, len(units), len(headers), lines, nfind, len(errors), len(crashes), len(hangs),
                     len(probes)))

    head = ("| package | units | headers | lines | torch- findings | units with compile errors | crashes "
            "| hangs | probes found |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    table = head + "".join("| " + " | ".join(str(c) for c in r) + " |\n" for r in rows)
    tot = [sum(r[i] for r in rows) for i in range(1, 9)]
    table += "| total | " + " | ".join(str(c) for c in tot) + " |\n"
    table += f"\n{tot[0]} units, {tot[2]} lines of the packages' code, {seconds:.0f} s with -j{args.jobs}\n"
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(table)
    print(table)
    for line in failed:
        print(f"crash-sweep: FAILED: {line}", file=sys.stderr)
    if failed:
        return 1
    print(f"crash-sweep: no crash, no hang ({tot[0]} units, {tot[2]} lines of user code, {seconds:.0f} s); "
          f"compile errors in {out}/*.errors.txt", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
