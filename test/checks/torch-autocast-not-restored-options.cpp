// Against the autocast API of LibTorch 1.13 (the fixed file must compile with
// it: the fix-its use only functions 1.13 has), with a project's own guard type
// and header; a header already included is not included twice.
// RUN: %check_torch_tidy %s torch-autocast-not-restored %t \
// RUN:   -config="{CheckOptions: {torch-autocast-not-restored.GuardType: 'amp::Scope', torch-autocast-not-restored.GuardHeader: project/amp_scope.h}}" \
// RUN:   -- -DMOCK_LIBTORCH_1_13 -I %S/Inputs/project
// RUN: %cxx -fsyntax-only -std=c++17 -isystem %mocks -I %S/Inputs/project -DMOCK_LIBTORCH_1_13 %t.cpp
// RUN: %check_torch_tidy -check-suffix=DEFAULT %s torch-autocast-not-restored %t-default \
// RUN:   -- -DMOCK_LIBTORCH_1_13 -DWITH_RUNTIME_HEADER
// RUN: %cxx -fsyntax-only -std=c++17 -isystem %mocks -DMOCK_LIBTORCH_1_13 -DWITH_RUNTIME_HEADER %t-default.cpp
#include <torch/torch.h>
#include <ATen/autocast_mode.h>
#ifdef WITH_RUNTIME_HEADER
#include <libtorch_tidy/amp.h>
#endif
// CHECK-FIXES: {{^}}#include "project/amp_scope.h"{{$}}
// CHECK-FIXES-DEFAULT-NOT: #include <libtorch_tidy/amp.h>
// CHECK-FIXES-DEFAULT: {{^}}#include <libtorch_tidy/amp.h>{{$}}
// CHECK-FIXES-DEFAULT-NOT: #include <libtorch_tidy/amp.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

void report(const torch::Tensor &t);

void xpu_step(Net &model, torch::Tensor x) {
  at::autocast::set_xpu_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autocast switched on here is switched off only when nothing throws
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: warning: autocast switched on here is switched off only when nothing throws
  report(model(x));
  at::autocast::set_xpu_enabled(false);
}
// CHECK-FIXES: {{^}}  amp::Scope autocast(c10::DeviceType::XPU, at::autocast::get_autocast_xpu_dtype());{{$}}
// CHECK-FIXES-DEFAULT: {{^}}  libtorch_tidy::amp::AutocastGuard autocast(c10::DeviceType::XPU, at::autocast::get_autocast_xpu_dtype());{{$}}

void cuda_step(Net &model, torch::Tensor x) {
  at::autocast::set_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autocast switched on here is switched off only when nothing throws
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-2]]:3: warning: autocast switched on here is switched off only when nothing throws
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
  report(model(x));
  at::autocast::set_enabled(false);
}
// CHECK-FIXES: {{^}}  amp::Scope autocast(at::kCUDA, at::kBFloat16);{{$}}
// CHECK-FIXES-NEXT: {{^}}  //{{$}}
// CHECK-FIXES-NEXT: {{^}}  //{{$}}
// CHECK-FIXES-NEXT: {{^}}  report(model(x));{{$}}
// CHECK-FIXES-NEXT: {{^}}}{{$}}
