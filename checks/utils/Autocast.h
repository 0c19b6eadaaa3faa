//===--- Autocast.h - libtorch-tidy -----------------------------*- C++ -*-===//
//
// LibTorch's autocast API (ATen/autocast_mode.h) in the spellings of 1.13 and
// 2.x: the per-device setters of 1.13 (at::autocast::set_enabled for CUDA,
// set_cpu_enabled, set_xpu_enabled, set_autocast_gpu_dtype, ...), which 2.x
// keeps as deprecated wrappers (and adds set_mtia_enabled, set_xla_enabled,
// set_hpu_enabled, set_ipu_enabled, set_privateuseone_enabled), and 2.x's
// set_autocast_enabled(device_type, enabled) / set_autocast_dtype(device_type,
// dtype). Devices are named by their c10::DeviceType enumerator ("CUDA",
// "CPU", ...), dtypes by their c10::ScalarType enumerator ("Half", ...).
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_AUTOCAST_H
#define LIBTORCH_TIDY_CHECKS_UTILS_AUTOCAST_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::torch_check {

/// A call of a function of namespace at::autocast (any of its functions).
bool isAutocastApiCall(const CallExpr *Call);

/// The device of an autocast API call.
struct AutocastDevice {
  /// The c10::DeviceType enumerator ("CUDA", "CPU", "XPU", ...); empty when the
  /// device is an expression whose value is not a constant.
  llvm::StringRef Name;
  /// The device argument of the device-generic 2.x spellings
  /// (set_autocast_enabled, set_autocast_dtype); null for the per-device ones.
  const Expr *Arg = nullptr;
  /// True when \p Other may be the same device (an unknown device may be any).
  bool mayBe(const AutocastDevice &Other) const {
    return Name.empty() || Other.Name.empty() || Name == Other.Name;
  }
};

/// What a call of at::autocast::set_enabled(b), set_cpu_enabled(b), ...,
/// set_autocast_enabled(device, b) does.
struct AutocastSwitch {
  enum Kind { NotACall, Enables, Disables, Unknown };
  Kind Value = NotACall;
  AutocastDevice Device;
  /// True for the 2.x spelling set_autocast_enabled(device, b).
  bool DeviceGeneric = false;
};
AutocastSwitch classifyAutocastSwitch(const CallExpr *Call, const ASTContext &Ctx);

/// A call that sets the autocast dtype of a device:
/// set_autocast_gpu_dtype(d), set_autocast_cpu_dtype(d), ...,
/// set_autocast_dtype(device, d). Null \p Dtype when \p Call is none.
struct AutocastDtypeSetter {
  const Expr *Dtype = nullptr;
  AutocastDevice Device;
};
AutocastDtypeSetter classifyAutocastDtypeSetter(const CallExpr *Call, const ASTContext &Ctx);

/// The c10::ScalarType enumerator ("Half", "BFloat16", "Float", ...) that
/// \p E evaluates to; empty when \p E is not a constant of that type (a dtype
/// chosen at run time).
llvm::StringRef scalarTypeName(const Expr *E, const ASTContext &Ctx);

/// A float16 dtype: "Half" (torch::kHalf, torch::kFloat16, ScalarType::Half).
inline bool isHalfDtypeName(llvm::StringRef Name) { return Name == "Half"; }

/// The dtype autocast computes in on \p Device when nothing set it: float16 on
/// CUDA, bfloat16 on the CPU and XPU (the default of both LibTorch 1.13 and
/// 2.x); empty for other devices.
llvm::StringRef defaultAutocastDtype(llvm::StringRef Device);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_AUTOCAST_H
