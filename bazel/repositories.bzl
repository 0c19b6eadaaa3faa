"""Repository rules: the host's libtorch-tidy, clang-tidy and LibTorch as labels.

The files are symlinked into external repositories, so the actions name them
by relative paths (external/libtorch_tidy_tools/bin/clang-tidy) and Bazel keys
them by their content: no absolute host path enters an action key, and a remote
executor receives the files themselves. clang-tidy's builtin headers are laid
out beside it as in LLVM's tree (lib/clang/<N>/include), where clang-tidy finds
them from its own path on a remote worker too.
"""

def _find(rctx, what, candidates):
    for c in candidates:
        if c and rctx.path(c).exists:
            return rctx.path(c)
    fail("libtorch-tidy: %s not found (tried %s)" % (what, ", ".join([c for c in candidates if c])))

def _tools_impl(rctx):
    prefix = rctx.attr.prefix or rctx.os.environ.get("LIBTORCH_TIDY_PREFIX", "") or "/usr"
    v = rctx.attr.llvm_version
    driver = _find(rctx, "the libtorch-tidy command", [prefix + "/bin/libtorch-tidy"])
    plugin = _find(rctx, "the plugin", [prefix + "/lib/LibTorchTidy.so"])
    llvm = _find(rctx, "LLVM %s" % v, [rctx.attr.llvm_root or "/usr/lib/llvm-%s" % v])
    tidy = _find(rctx, "clang-tidy-%s" % v, [str(llvm) + "/bin/clang-tidy"])
    resource = _find(rctx, "clang's builtin headers", [str(llvm) + "/lib/clang/%s/include" % v])
    rctx.symlink(driver, "bin/libtorch-tidy")
    rctx.symlink(plugin, "lib/LibTorchTidy.so")
    rctx.symlink(tidy, "llvm/bin/clang-tidy")
    rctx.symlink(resource, "llvm/lib/clang/%s/include" % v)

    # Optional: the command's scope module (beside the plugin, where the
    # command looks for it) and clang (for the precompiled LibTorch header).
    scope = rctx.path(str(plugin.dirname) + "/LibTorchTidyScope.so")
    if scope.exists:
        rctx.symlink(scope, "lib/LibTorchTidyScope.so")
    clang = rctx.path(str(llvm) + "/bin/clang++")
    if clang.exists:
        rctx.symlink(clang, "llvm/bin/clang++")
    rctx.file("BUILD.bazel", """package(default_visibility = ["//visibility:public"])
exports_files(["bin/libtorch-tidy", "lib/LibTorchTidy.so", "llvm/bin/clang-tidy"])
alias(name = "driver", actual = "bin/libtorch-tidy")
alias(name = "plugin", actual = "lib/LibTorchTidy.so")
alias(name = "clang_tidy", actual = "llvm/bin/clang-tidy")
filegroup(name = "clang_tidy_data", srcs = glob(["llvm/lib/clang/**"]))
filegroup(name = "scope", srcs = glob(["lib/LibTorchTidyScope.so"]))
filegroup(name = "clang", srcs = glob(["llvm/bin/clang++"]))
""")

libtorch_tidy_tools = repository_rule(
    implementation = _tools_impl,
    attrs = {
        "prefix": attr.string(doc = "Where bin/libtorch-tidy and lib/LibTorchTidy.so are " +
                                    "(default: $LIBTORCH_TIDY_PREFIX, else /usr)"),
        "llvm_version": attr.string(default = "19", doc = "The plugin's LLVM major version"),
        "llvm_root": attr.string(doc = "LLVM's tree (default: /usr/lib/llvm-<version>, Debian's)"),
    },
    environ = ["LIBTORCH_TIDY_PREFIX"],
    local = True,
)

# LibTorch needs C++17, which a cc_library cannot pass on to the sources of
# the targets that depend on it (its copts stay its own): the workspace's
# .bazelrc sets it (`build --cxxopt=-std=c++17`, docs/ci.md). The tag makes the
# libtorch-tidy aspect precompile <torch/torch.h> once per configuration.
_LIBTORCH_BUILD = """package(default_visibility = ["//visibility:public"])
cc_library(
    name = "libtorch",
    hdrs = glob([d + "/**/*." + e for d in {dirs} for e in ["h", "hpp", "cuh", "inc"]]),
    includes = [".", "torch/csrc/api/include"],
    defines = ["_GLIBCXX_USE_CXX11_ABI=1"],
    linkopts = ["-ltorch", "-ltorch_cpu", "-lc10"],
    tags = ["libtorch_tidy_pch"],
)
"""

def _libtorch_impl(rctx):
    dirs = []
    for d in ["ATen", "c10", "caffe2", "torch"]:
        p = rctx.path(rctx.attr.include_dir + "/" + d)
        if p.exists:
            rctx.symlink(p, d)
            dirs.append(d)
    if "torch" not in dirs:
        fail("libtorch-tidy: no LibTorch headers in %s (torch/ missing)" % rctx.attr.include_dir)
    rctx.file("BUILD.bazel", _LIBTORCH_BUILD.format(dirs = repr(dirs)))

libtorch_system = repository_rule(
    implementation = _libtorch_impl,
    attrs = {
        "include_dir": attr.string(default = "/usr/include", doc = "Holds torch/, ATen/, c10/"),
    },
    local = True,
    doc = "The system's LibTorch (Debian's libtorch-dev) as @<name>//:libtorch, a cc_library over its headers.",
)

def libtorch_tidy_dependencies(prefix = None, llvm_version = "19"):
    """The @libtorch_tidy_tools repository the aspect runs."""
    libtorch_tidy_tools(name = "libtorch_tidy_tools", prefix = prefix or "", llvm_version = llvm_version)
