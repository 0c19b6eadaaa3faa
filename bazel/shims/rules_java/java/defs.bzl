# See ../WORKSPACE: the native rules under rules_java's names (Bazel 4, offline).
"""The native Java rules under rules_java's names, for Bazel 4 without network."""
java_binary = native.java_binary
java_import = native.java_import
java_library = native.java_library
java_runtime = native.java_runtime
java_toolchain = native.java_toolchain
java_test = native.java_test
