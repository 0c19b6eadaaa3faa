// libtorch-tidy runtime: mixed precision for LibTorch, the two pieces Python
// has and the C++ API lacks.
//
//   AutocastGuard  an RAII autocast scope with the semantics of Python's
//                  `with torch.autocast(device_type, dtype, enabled, cache_enabled):`
//   GradScaler     dynamic loss scaling with the numbers of Python's
//                  `torch.amp.GradScaler` (scale, unscale_, step, update,
//                  get_scale, state save/load)
//
// Both work with LibTorch 1.13 through 2.x. See docs/runtime.md, "Mixed precision".
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace torch {
namespace optim {
class Optimizer;
}  // namespace optim
namespace serialize {
class OutputArchive;
class InputArchive;
}  // namespace serialize
}  // namespace torch

namespace libtorch_tidy {
namespace amp {

// The autocast state of `device_type` in this thread (LibTorch's own flags).
bool isAutocastEnabled(c10::DeviceType device_type);
c10::ScalarType autocastDtype(c10::DeviceType device_type);

// Autocast for the lifetime of the object, like Python's
//   with torch.autocast(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled):
// The constructor saves this thread's autocast state of `device_type` (enabled
// flag, fast dtype) and the cast-cache flag, sets them, and increments the
// autocast nesting counter; the destructor decrements it, clears the cast
// cache when it reaches 0 (the outermost scope ends), and restores the saved
// state. Exception safe (a destructor), nests, and `enabled = false` opens a
// region without autocast inside an autocast one.
//
// As in Python, a dtype the device cannot autocast to (CPU: bfloat16, and
// float16 from LibTorch 2.3; CUDA takes any) disables the scope with a warning
// (the device's autocast dtype is then left as it was), and so does CUDA when
// this process has no CUDA device. Devices: CPU, CUDA and XPU before
// LibTorch 2.4, every autocast device from 2.4; another device type throws
// c10::Error.
class AutocastGuard {
 public:
  AutocastGuard(c10::DeviceType device_type, c10::ScalarType dtype, bool enabled = true,
                bool cache_enabled = true);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;
  AutocastGuard(AutocastGuard&&) = delete;
  AutocastGuard& operator=(AutocastGuard&&) = delete;

  c10::DeviceType device_type() const { return device_type_; }
  c10::ScalarType dtype() const { return dtype_; }
  // Whether autocast is on in this scope (false after the checks above).
  bool enabled() const { return enabled_; }

 private:
  c10::DeviceType device_type_;
  c10::ScalarType dtype_;
  bool enabled_;
  bool cache_enabled_;
  bool dtype_supported_ = true;
  bool prev_enabled_ = false;
  c10::ScalarType prev_dtype_ = c10::ScalarType::Undefined;
  bool prev_cache_enabled_ = true;
};

// Whether this LibTorch has kernels of the fused scaler ops
// (_amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_) for
// `device_type`. LibTorch 1.13 has them for CUDA only; 2.3+ for CPU too.
// Where they are missing, GradScaler computes the same numbers with ordinary
// tensor ops.
bool fusedScalerKernelsAvailable(c10::DeviceType device_type);

// GradScaler's state (Python's state_dict()). `enabled` is false for the
// state of a disabled scaler (Python's empty dict).
struct GradScalerState {
  bool enabled = false;
  double scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  int64_t growth_tracker = 0;
};

// Dynamic loss scaling, Python's torch.amp.GradScaler for C++:
//
//   libtorch_tidy::amp::GradScaler scaler;
//   for (...) {
//     optimizer.zero_grad();
//     torch::Tensor loss;
//     {
//       libtorch_tidy::amp::AutocastGuard autocast(torch::kCUDA, torch::kHalf);
//       loss = criterion(model->forward(x), y);
//     }
//     scaler.scale(loss).backward();
//     scaler.step(optimizer);   // unscales; skips the step when a gradient is inf/NaN
//     scaler.update();          // backs off after a skip, grows after growth_interval clean steps
//   }
//
// Same numbers as Python's GradScaler (tested against it): the scale lives in
// a float32 tensor on the device of the first scaled output, 1/scale is
// computed in double, and the update rule is LibTorch's _amp_update_scale_.
// Errors are c10::Error with Python's messages (unscale_ twice, step twice,
// update without an inf check, FP16 gradients, ...). A disabled scaler passes
// everything through (scale() returns its input, step() is optimizer.step()).
class GradScaler {
 public:
  enum class Kernels {
    Auto,       // the fused ops where this LibTorch has them for the device, else Composite
    Composite,  // always the ordinary-tensor-op implementation (same numbers)
  };

  explicit GradScaler(double init_scale = 65536.0, double growth_factor = 2.0,
                      double backoff_factor = 0.5, int64_t growth_interval = 2000,
                      bool enabled = true);

  // outputs * scale (a new tensor; the scale is created on the outputs' device on first use).
  at::Tensor scale(const at::Tensor& outputs);
  std::vector<at::Tensor> scale(const std::vector<at::Tensor>& outputs);

  // Divides the gradients of `optimizer`'s parameters by the scale in place and
  // records whether any is inf/NaN. Optional (step() does it); once per
  // optimizer between update()s, before step().
  void unscale_(torch::optim::Optimizer& optimizer);
  // unscale_ (unless done) then optimizer.step() unless a gradient was inf/NaN.
  // Returns whether the optimizer stepped.
  bool step(torch::optim::Optimizer& optimizer);
  // Backs off (inf/NaN seen by any optimizer since the last update) or counts a
  // clean step and grows every growth_interval clean steps; then a new iteration.
  void update();
  // Sets the scale (the growth tracker is kept), then a new iteration.
  void update(double new_scale);
  void update(const at::Tensor& new_scale);  // one element, no requires_grad, the scale's device type

  double get_scale() const;  // 1.0 when disabled; init_scale before the first scale()
  int64_t get_growth_tracker() const;
  double get_growth_factor() const { return growth_factor_; }
  void set_growth_factor(double factor) { growth_factor_ = factor; }
  double get_backoff_factor() const { return backoff_factor_; }
  void set_backoff_factor(double factor) { backoff_factor_ = factor; }
  int64_t get_growth_interval() const { return growth_interval_; }
  void set_growth_interval(int64_t interval) { growth_interval_ = interval; }
  bool is_enabled() const { return enabled_; }

  GradScalerState state_dict() const;
  void load_state_dict(const GradScalerState& state);
  // The state in a torch::serialize archive (keys "scale", "growth_factor",
  // "backoff_factor", "growth_interval", "_growth_tracker"), e.g. with torch::save / torch::load.
  void save(torch::serialize::OutputArchive& archive) const;
  void load(torch::serialize::InputArchive& archive);

  // Which implementation of the fused ops to use (tests compare the two).
  void set_kernels(Kernels kernels) { kernels_ = kernels; }
  Kernels kernels() const { return kernels_; }

 private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct OptimizerState {
    Stage stage = Stage::Ready;
    std::vector<std::pair<c10::Device, at::Tensor>> found_inf_per_device;  // in first-seen order
  };
  void lazyInit(const c10::Device& device);
  void checkInitialized(const char* function) const;
  bool useFused(c10::DeviceType device_type) const;

  bool enabled_;
  double init_scale_;
  double growth_factor_;
  double backoff_factor_;
  int64_t growth_interval_;
  int64_t init_growth_tracker_ = 0;
  at::Tensor scale_;           // float32, 0-dim, created by the first scale()
  at::Tensor growth_tracker_;  // int32, 0-dim
  std::map<const torch::optim::Optimizer*, OptimizerState> per_optimizer_;
  Kernels kernels_ = Kernels::Auto;
};

torch::serialize::OutputArchive& operator<<(torch::serialize::OutputArchive& archive,
                                            const GradScaler& scaler);
torch::serialize::InputArchive& operator>>(torch::serialize::InputArchive& archive,
                                           GradScaler& scaler);

}  // namespace amp
}  // namespace libtorch_tidy
