"""Settings shared by the lit suites of libtorch-tidy."""
import os
import shlex

import lit.formats


def configure(config, lit_config, suffixes):
    config.name = "libtorch-tidy-" + config.suite_name
    config.test_format = lit.formats.ShTest(execute_external=False)
    config.suffixes = suffixes
    config.test_source_root = os.path.join(config.source_root, "test", config.suite_name)
    config.test_exec_root = os.path.join(config.build_root, "test", config.suite_name)
    config.excludes = ["Inputs", "lit.cfg.py"]
    config.environment["PATH"] = os.pathsep.join(
        [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
    for var in ("HOME", "TMPDIR", "LANG", "LC_ALL"):
        if var in os.environ:
            config.environment[var] = os.environ[var]

    test_dir = os.path.join(config.source_root, "test")
    inputs = os.path.join(test_dir, "checks", "Inputs")
    q = shlex.quote
    checker = " ".join([q(config.python), q(os.path.join(test_dir, "check_torch_tidy.py")),
                        "--clang-tidy", q(config.clang_tidy), "--plugin", q(config.plugin),
                        "--mocks", q(inputs)])
    config.substitutions.append(("%check_torch_tidy", checker))
    config.substitutions.append(("%clang_tidy", q(config.clang_tidy)))
    config.substitutions.append(("%plugin", q(config.plugin)))
    config.substitutions.append(("%mocks", q(inputs)))
    config.substitutions.append(("%driver", q(config.driver)))
    config.substitutions.append(("%python", q(config.python)))
    config.substitutions.append(("%cxx", q(config.cxx)))
    config.substitutions.append(("%srcroot", q(config.source_root)))
    config.substitutions.append(("%buildroot", q(config.build_root)))
    config.substitutions.append(("%torch_cxxflags", config.torch_cxxflags))
    config.substitutions.append(("%torch_ldflags", config.torch_ldflags))
    # The precompiled <torch/torch.h> (test/CMakeLists.txt): forced in before
    # the program, where GCC takes its .gch instead of parsing the headers;
    # without it the same wrapper header is parsed as text (same result,
    # slower). Feature "torch-pch" once the .gch is there.
    pch = getattr(config, "torch_pch", "")
    if pch and os.path.exists(pch):
        config.substitutions.append(("%torch_pch", "-include %s -Winvalid-pch" % q(pch)))
        if os.path.exists(pch + ".gch"):
            config.available_features.add("torch-pch")
    else:
        config.substitutions.append(("%torch_pch", ""))
    # The runtime companion (runtime/), for programs that mark iterations with
    # LIBTORCH_TIDY_ITERATION; feature "runtime" once its library is built.
    runtime_libdir = os.path.join(config.build_root, "lib")
    config.substitutions.append(("%runtime_cxxflags", "-I" + q(os.path.join(config.source_root, "runtime",
                                                                              "include"))))
    config.substitutions.append(("%runtime_ldflags", "-L%s -Wl,-rpath,%s -ltorch_tidy_runtime"
                                 % (q(runtime_libdir), q(runtime_libdir))))
    config.substitutions.append(("%prove_fix", " ".join([q(config.python), q(os.path.join(
        test_dir, "e2e", "prove_fix.py"))])))
    if os.path.exists(os.path.join(runtime_libdir, "libtorch_tidy_runtime.so")):
        config.available_features.add("runtime")
    # One feature per registered check ("check-torch-foo"), for end-to-end tests
    # that need a check another part of the project provides.
    try:
        import re
        import subprocess
        listed = subprocess.run([config.clang_tidy, "--load", config.plugin, "--checks=-*,torch-*",
                                 "--list-checks"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, timeout=60).stdout
        for check in re.findall(r"^\s+(torch-[a-z0-9-]+)\s*$", listed, re.M):
            config.available_features.add("check-" + check)
    except (OSError, subprocess.SubprocessError):
        pass
    if os.path.exists(config.driver):
        config.available_features.add("driver")
    if config.have_torch:
        config.available_features.add("torch")
