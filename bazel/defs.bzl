"""libtorch-tidy in Bazel: an aspect over cc_* targets and a report rule.

libtorch_tidy_aspect visits the cc_* targets of the main repository (through
`deps`) and runs libtorch-tidy on each C++ source with the target's own compile
command: the C++ toolchain's flags for a compile of that file, the target's
copts, and its CcInfo compilation context (includes, quote and system includes,
defines). Each source gives one declared output, the driver's JSON report of
that translation unit, so a remote cache stores it and a remote executor runs
it; a changed source (or header it may include) re-runs that source alone.

The per-source action runs the libtorch-tidy command on a one-entry compile
database rather than clang-tidy directly: the command's JSON report is what
`libtorch-tidy merge` reads (clang-tidy's own output is not), and the command
applies the same LibTorch prefilter, header filter, deduplication and
fingerprints as a run outside Bazel, so the findings are the same. Its own
results cache is off (--no-cache): Bazel caches.

The precompiled LibTorch header: parsing <torch/torch.h> is most of an
analysis. The aspect, visiting the LibTorch cc_library (the one tagged
"libtorch_tidy_pch", as libtorch_system's is), precompiles <torch/torch.h>
with that target's compile command in an action of its own, once per
configuration, and hands the header to the analyses of every target that
depends on it (--pch-file): the command includes it where a source's first
#include, followed through quoted project headers, is a LibTorch one, and
parses in full where not or where clang rejects it. The header is relocatable
(-relocatable-pch, the execution root as -isysroot, no timestamps), so it
serves actions in other sandboxes and on other machines.

libtorch_tidy_report merges the reports of its `deps` (the aspect applied to
them) into one text, JSON, SARIF, GitHub or GitLab report with
`libtorch-tidy merge`.

Failing the build on findings: the output group libtorch_tidy_check holds the
reports and, per target, a check that fails printing the target's findings
(the reports stay cached; asking for the group changes no action key, so a
build that asks for it reuses the analyses). A libtorch_tidy_report offers the
same group, and fail_on_findings = True makes the report itself fail.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "CPP_COMPILE_ACTION_NAME")

LibTorchTidyInfo = provider(
    doc = "The per-source reports of a target and its deps, with the sources they name.",
    fields = {
        "reports": "depset of File: the driver's JSON report of each source",
        "sources": "depset of File: the sources (and headers) the reports point into",
        "checks": "depset of File: one stamp per target, made only when its reports hold no finding",
        "pch": "struct(file, inputs) or None: the precompiled <torch/torch.h> of the LibTorch target " +
               "this one depends on, and what using it needs (it and the header it was made from)",
    },
)

_CXX_EXTENSIONS = ["cc", "cpp", "cxx", "c++", "C", "cu"]

# GCC options that clang rejects as unknown arguments (Bazel's autoconfigured
# GCC toolchain passes them); clang-tidy parses with clang.
_GCC_ONLY = ["-fno-canonical-system-headers"]

def _tool(ctx, name):
    return getattr(ctx.attr, name).files.to_list()[0]

def _tools(ctx):
    return [_tool(ctx, "_driver"), _tool(ctx, "_clang_tidy"), _tool(ctx, "_plugin"), _tool(ctx, "_config")]

def _compile_arguments(ctx, target, src, cc_toolchain, feature_configuration):
    cc = target[CcInfo].compilation_context
    copts = [ctx.expand_make_variables("copts", c, {}) for c in getattr(ctx.rule.attr, "copts", [])]
    local_defines = ["-D" + d for d in getattr(ctx.rule.attr, "local_defines", [])]
    variables = cc_common.create_compile_variables(
        feature_configuration = feature_configuration,
        cc_toolchain = cc_toolchain,
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts + copts + local_defines,
        source_file = src.path,
        include_directories = cc.includes,
        quote_include_directories = cc.quote_includes,
        system_include_directories = cc.system_includes,
        preprocessor_defines = cc.defines,
    )
    flags = cc_common.get_memory_inefficient_command_line(
        feature_configuration = feature_configuration,
        action_name = CPP_COMPILE_ACTION_NAME,
        variables = variables,
    )
    compiler = cc_common.get_tool_for_action(
        feature_configuration = feature_configuration,
        action_name = CPP_COMPILE_ACTION_NAME,
    )
    return [compiler] + [f for f in flags if f not in _GCC_ONLY]

# The tag of the cc_library whose headers are LibTorch's (libtorch_system's):
# <torch/torch.h> is precompiled with its compile command.
PCH_TAG = "libtorch_tidy_pch"

def _precompile(ctx, target, cc_toolchain, feature_configuration):
    """The precompiled <torch/torch.h> of the LibTorch target, or None without clang."""
    clang = ctx.attr._clang.files.to_list()
    if not clang:
        return None
    header = ctx.actions.declare_file("_libtorch_tidy/%s.pch.h" % target.label.name)
    ctx.actions.write(header, "#include <torch/torch.h>\n")
    pch = ctx.actions.declare_file("_libtorch_tidy/%s.pch" % target.label.name)
    command = _compile_arguments(ctx, target, header, cc_toolchain, feature_configuration)
    flags = [f for f in command[1:] if f not in ["-c", header.path]]
    args = ctx.actions.args()
    args.add("pch")
    args.add_all([clang[0], header, pch])
    args.add_all(flags)
    ctx.actions.run(
        executable = ctx.file._runner,
        arguments = [args],
        inputs = depset(
            [header, clang[0]],
            transitive = [target[CcInfo].compilation_context.headers, ctx.attr._clang_tidy_data.files],
        ),
        outputs = [pch],
        mnemonic = "LibTorchTidyPch",
        progress_message = "libtorch-tidy: precompiling <torch/torch.h> for %s" % target.label,
    )

    # clang checks that the files a precompiled header was made from are
    # there, its own header among them.
    return struct(file = pch, inputs = [pch, header])

def _project_files(ctx):
    """The target's own sources and headers (reports point into them)."""
    files = []
    for name in ["srcs", "hdrs", "textual_hdrs"]:
        for s in getattr(ctx.rule.attr, name, []):
            files += s.files.to_list()
    return files

def _report_path(target, src):
    # One report per source, beside the target's outputs.
    return "_libtorch_tidy/%s/%s.json" % (target.label.name, src.short_path.replace("../", "external/"))

def _gate(ctx, name, reports, sources, description):
    """Fails the build when the reports hold findings (with the flag set)."""
    stamp = ctx.actions.declare_file(name)
    args = ctx.actions.args()
    args.add("gate")
    args.add(_tool(ctx, "_driver"))
    args.add(stamp)
    args.add_all(reports)
    ctx.actions.run(
        executable = ctx.file._runner,
        arguments = [args],
        inputs = depset([_tool(ctx, "_driver")], transitive = [reports, sources]),
        outputs = [stamp],
        mnemonic = "LibTorchTidyGate",
        progress_message = description,
    )
    return stamp

def _features(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    return cc_toolchain, cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )

def _aspect_impl(target, ctx):
    direct_reports = []
    srcs = []
    deps = [d[LibTorchTidyInfo] for d in getattr(ctx.rule.attr, "deps", []) if LibTorchTidyInfo in d]
    main_repo = CcInfo in target and not target.label.workspace_root
    if main_repo and hasattr(ctx.rule.attr, "srcs"):
        for s in ctx.rule.attr.srcs:
            for f in s.files.to_list():
                if f.extension in _CXX_EXTENSIONS and f.is_source:
                    srcs.append(f)

    # The precompiled LibTorch header: made by the LibTorch target, used by
    # every target above it (the first one found among the deps).
    pch = None
    if CcInfo in target and PCH_TAG in getattr(ctx.rule.attr, "tags", []):
        cc_toolchain, feature_configuration = _features(ctx)
        pch = _precompile(ctx, target, cc_toolchain, feature_configuration)
    for d in deps:
        if not pch and d.pch:
            pch = d.pch

    if srcs:
        cc_toolchain, feature_configuration = _features(ctx)
        headers = target[CcInfo].compilation_context.headers
        driver, clang_tidy, plugin, config = _tools(ctx)
        scope = ctx.attr._scope.files.to_list()
        for src in srcs:
            report = ctx.actions.declare_file(_report_path(target, src))
            # The compile database: one entry, the directory filled in by the
            # action (the execution root differs from machine to machine and
            # must stay out of the action key).
            database = ctx.actions.declare_file(report.basename[:-len(".json")] + ".compdb.json", sibling = report)
            arguments = _compile_arguments(ctx, target, src, cc_toolchain, feature_configuration)
            if pch:
                # The relocatable header's paths are relative to its -isysroot.
                arguments = arguments + ["-isysroot", "@EXECROOT@"]
            ctx.actions.write(database, json.encode([{
                "directory": "@EXECROOT@",
                "file": src.path,
                "arguments": arguments,
            }]))
            args = ctx.actions.args()
            args.add("analyse")
            args.add_all([driver, clang_tidy, plugin, config, database, report])
            if pch:
                args.add(pch.file)
            ctx.actions.run(
                executable = ctx.file._runner,
                arguments = [args],
                inputs = depset(
                    [src, database, driver, clang_tidy, plugin, config] + scope + (pch.inputs if pch else []),
                    transitive = [headers, ctx.attr._clang_tidy_data.files],
                ),
                outputs = [report],
                mnemonic = "LibTorchTidy",
                progress_message = "libtorch-tidy %s" % src.short_path,
            )
            direct_reports.append(report)

    # What merging reads besides the reports: the project's files the findings
    # point into (for the text report's lines and SARIF's columns), never the
    # headers of external repositories (LibTorch's thousands).
    reports = depset(direct_reports, transitive = [d.reports for d in deps])
    sources = depset(_project_files(ctx) if main_repo else [], transitive = [d.sources for d in deps])
    gates = []
    if direct_reports:
        gates.append(_gate(
            ctx,
            "_libtorch_tidy/%s.ok" % target.label.name,
            depset(direct_reports),
            sources,
            "libtorch-tidy findings of %s" % target.label,
        ))
    checks = depset(gates, transitive = [d.checks for d in deps])
    return [
        LibTorchTidyInfo(reports = reports, sources = sources, checks = checks, pch = pch),
        OutputGroupInfo(
            libtorch_tidy = reports,
            libtorch_tidy_check = depset(transitive = [reports, checks]),
        ),
    ]

_TOOL_ATTRS = {
    "_driver": attr.label(default = Label("//:driver"), allow_single_file = True, cfg = "exec"),
    "_clang_tidy": attr.label(default = Label("//:clang_tidy"), allow_single_file = True, cfg = "exec"),
    "_clang_tidy_data": attr.label(default = Label("//:clang_tidy_data"), allow_files = True, cfg = "exec"),
    "_plugin": attr.label(default = Label("//:plugin"), allow_single_file = True, cfg = "exec"),
    "_scope": attr.label(default = Label("//:scope"), allow_files = True, cfg = "exec"),
    "_clang": attr.label(default = Label("//:clang"), allow_files = True, cfg = "exec"),
    "_config": attr.label(default = Label("//:config"), allow_single_file = True),
    "_runner": attr.label(default = Label("//:runner.sh"), allow_single_file = True, cfg = "exec"),
}

libtorch_tidy_aspect = aspect(
    implementation = _aspect_impl,
    attr_aspects = ["deps"],
    attrs = dict(_TOOL_ATTRS, _cc_toolchain = attr.label(
        default = Label("@bazel_tools//tools/cpp:current_cc_toolchain"),
    )),
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    doc = "Runs libtorch-tidy on every C++ source of the cc_* targets it visits " +
          "(output group libtorch_tidy: one JSON report per source).",
)

def _report_impl(ctx):
    infos = [d[LibTorchTidyInfo] for d in ctx.attr.deps]
    reports = depset(transitive = [i.reports for i in infos])
    sources = depset(transitive = [i.sources for i in infos])
    out = ctx.actions.declare_file(ctx.label.name + "." + {"text": "txt", "github": "txt", "sarif": "sarif"}.get(ctx.attr.format, "json"))
    args = ctx.actions.args()
    args.add("merge")
    args.add(_tool(ctx, "_driver"))
    args.add(ctx.attr.format)
    args.add(out)
    args.add("true" if ctx.attr.fail_on_findings else "false")
    args.add_all(reports)
    ctx.actions.run(
        executable = ctx.file._runner,
        arguments = [args],
        inputs = depset([_tool(ctx, "_driver")], transitive = [reports, sources]),
        outputs = [out],
        mnemonic = "LibTorchTidyMerge",
        progress_message = "libtorch-tidy merge %s" % ctx.label,
    )
    gate = _gate(ctx, ctx.label.name + ".ok", reports, sources, "libtorch-tidy findings of %s" % ctx.label)
    return [
        DefaultInfo(files = depset([out])),
        OutputGroupInfo(libtorch_tidy = depset([out]), libtorch_tidy_check = depset([out, gate])),
    ]

libtorch_tidy_report = rule(
    implementation = _report_impl,
    attrs = dict(_TOOL_ATTRS, **{
        "deps": attr.label_list(aspects = [libtorch_tidy_aspect], doc = "cc_* targets to analyse"),
        "format": attr.string(default = "json", values = ["text", "json", "sarif", "github", "gitlab"]),
        "fail_on_findings": attr.bool(default = False, doc = "Fail building the report when it holds findings"),
    }),
    doc = "One report (text, json, sarif, github, gitlab) of the findings in deps and their deps.",
)
