// An invalid pattern is reported as a configuration warning.
// RUN: %clang_tidy --load %plugin --checks='-*,torch-eval-without-no-grad' -config="{CheckOptions: {torch-eval-without-no-grad.EvalFunctionPattern: '(unclosed'}}" %s -- -std=c++17 -isystem %mocks 2>&1 | FileCheck %s
// CHECK: warning: invalid regular expression in option EvalFunctionPattern '(unclosed': parentheses not balanced [clang-tidy-config]
int main() { return 0; }
