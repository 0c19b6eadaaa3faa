// Mixed precision for LibTorch: AutocastGuard (Python's torch.autocast) and
// GradScaler (Python's torch.amp.GradScaler), for LibTorch 1.13 through 2.x.
//
// Version differences handled here:
// - LibTorch 2.4 made the autocast API device-generic
//   (is_autocast_enabled(device_type), get_autocast_dtype(device_type), ...)
//   and deprecated the per-device functions (is_cpu_enabled, set_enabled, ...)
//   that 1.13 has only.
// - The fused scaler ops have CUDA kernels only in 1.13 (CPU kernels since
//   2.3): where the kernel is missing for the device, calling the op throws
//   "Could not run 'aten::_amp_update_scale_' with arguments from the 'CPU'
//   backend", so GradScaler computes the same numbers with ordinary tensor ops
//   (compositeUnscale / compositeUpdateScale, each a line-by-line copy of the
//   kernel's arithmetic).
#include <libtorch_tidy/amp.h>

#include <ATen/ATen.h>
#include <ATen/autocast_mode.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/Exception.h>
#include <torch/optim/optimizer.h>
#include <torch/serialize/archive.h>
#include <torch/version.h>

#include <string>

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define LIBTORCH_TIDY_AUTOCAST_GENERIC 1
#else
#define LIBTORCH_TIDY_AUTOCAST_GENERIC 0
#endif
// CPU autocast to float16 (Python accepts it for "cpu" from 2.3).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
#define LIBTORCH_TIDY_CPU_AUTOCAST_FP16 1
#else
#define LIBTORCH_TIDY_CPU_AUTOCAST_FP16 0
#endif

namespace libtorch_tidy {
namespace amp {
namespace {

std::string deviceName(c10::DeviceType t) { return c10::DeviceTypeName(t, /*lower_case=*/true); }

[[noreturn]] void unsupportedDevice(c10::DeviceType t) {
  TORCH_CHECK(false, "User specified an unsupported autocast device_type '", deviceName(t), "'");
}

#if LIBTORCH_TIDY_AUTOCAST_GENERIC
void checkDevice(c10::DeviceType t) {
  if (!at::autocast::is_autocast_available(t)) unsupportedDevice(t);
}
bool getEnabled(c10::DeviceType t) { return at::autocast::is_autocast_enabled(t); }
void setEnabled(c10::DeviceType t, bool on) { at::autocast::set_autocast_enabled(t, on); }
c10::ScalarType getDtype(c10::DeviceType t) { return at::autocast::get_autocast_dtype(t); }
void setDtype(c10::DeviceType t, c10::ScalarType d) { at::autocast::set_autocast_dtype(t, d); }
#else
void checkDevice(c10::DeviceType t) {
  if (t != c10::DeviceType::CPU && t != c10::DeviceType::CUDA && t != c10::DeviceType::XPU)
    unsupportedDevice(t);
}
bool getEnabled(c10::DeviceType t) {
  switch (t) {
    case c10::DeviceType::CPU: return at::autocast::is_cpu_enabled();
    case c10::DeviceType::CUDA: return at::autocast::is_enabled();
    case c10::DeviceType::XPU: return at::autocast::is_xpu_enabled();
    default: unsupportedDevice(t);
  }
}
void setEnabled(c10::DeviceType t, bool on) {
  switch (t) {
    case c10::DeviceType::CPU: at::autocast::set_cpu_enabled(on); return;
    case c10::DeviceType::CUDA: at::autocast::set_enabled(on); return;
    case c10::DeviceType::XPU: at::autocast::set_xpu_enabled(on); return;
    default: unsupportedDevice(t);
  }
}
c10::ScalarType getDtype(c10::DeviceType t) {
  switch (t) {
    case c10::DeviceType::CPU: return at::autocast::get_autocast_cpu_dtype();
    case c10::DeviceType::CUDA: return at::autocast::get_autocast_gpu_dtype();
    case c10::DeviceType::XPU: return at::autocast::get_autocast_xpu_dtype();
    default: unsupportedDevice(t);
  }
}
void setDtype(c10::DeviceType t, c10::ScalarType d) {
  switch (t) {
    case c10::DeviceType::CPU: at::autocast::set_autocast_cpu_dtype(d); return;
    case c10::DeviceType::CUDA: at::autocast::set_autocast_gpu_dtype(d); return;
    case c10::DeviceType::XPU: at::autocast::set_autocast_xpu_dtype(d); return;
    default: unsupportedDevice(t);
  }
}
#endif

// The dtypes Python's torch.autocast accepts for a device other than CUDA
// (CUDA takes any dtype; bfloat16 support is checked by its kernels).
std::vector<c10::ScalarType> supportedDtypes(c10::DeviceType t) {
#if !LIBTORCH_TIDY_CPU_AUTOCAST_FP16
  if (t == c10::DeviceType::CPU || t == c10::DeviceType::XPU) return {c10::kBFloat16};
#endif
  (void)t;
  return {c10::kBFloat16, c10::kHalf};
}

}  // namespace

bool isAutocastEnabled(c10::DeviceType device_type) {
  checkDevice(device_type);
  return getEnabled(device_type);
}

c10::ScalarType autocastDtype(c10::DeviceType device_type) {
  checkDevice(device_type);
  return getDtype(device_type);
}

AutocastGuard::AutocastGuard(c10::DeviceType device_type, c10::ScalarType dtype, bool enabled,
                             bool cache_enabled)
    : device_type_(device_type), dtype_(dtype), enabled_(enabled), cache_enabled_(cache_enabled) {
  checkDevice(device_type_);
  if (enabled_) {
    std::string name = deviceName(device_type_);
    for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (device_type_ == c10::DeviceType::CUDA) {
      if (!at::globalContext().hasCUDA()) {
        TORCH_WARN("CUDA is not available. Disabling autocast.");
        enabled_ = false;
      }
    } else {
      auto supported = supportedDtypes(device_type_);
      if (std::find(supported.begin(), supported.end(), dtype_) == supported.end()) {
        std::string list;
        for (auto d : supported) list += (list.empty() ? "" : ", ") + std::string(c10::toString(d));
        TORCH_WARN("In ", name, " autocast, but the target dtype is not supported. Disabling autocast.\n",
                   name, " Autocast only supports dtypes of ", list, " currently.");
        enabled_ = false;
        dtype_supported_ = false;
      }
    }
  }
  // __enter__
  prev_cache_enabled_ = at::autocast::is_autocast_cache_enabled();
  prev_enabled_ = getEnabled(device_type_);
  prev_dtype_ = getDtype(device_type_);
  setEnabled(device_type_, enabled_);
  // A dtype the device refused keeps the previous one (Python sets it anyway,
  // and LibTorch 1.13 throws for a CPU dtype other than bfloat16).
  if (dtype_supported_) setDtype(device_type_, dtype_);
  at::autocast::increment_nesting();
  at::autocast::set_autocast_cache_enabled(cache_enabled_);
}

AutocastGuard::~AutocastGuard() {
  // __exit__: drop the cast cache when leaving the outermost autocast scope.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  setEnabled(device_type_, prev_enabled_);
  if (dtype_supported_) setDtype(device_type_, prev_dtype_);
  at::autocast::set_autocast_cache_enabled(prev_cache_enabled_);
}

bool fusedScalerKernelsAvailable(c10::DeviceType device_type) {
  c10::DispatchKey key;
  try {
    key = c10::computeDispatchKey(c10::kFloat, c10::kStrided, c10::Device(device_type));
  } catch (const c10::Error&) {
    return false;
  }
  auto& dispatcher = c10::Dispatcher::singleton();
  auto unscale = dispatcher.findSchema({"aten::_amp_foreach_non_finite_check_and_unscale_", ""});
  auto update = dispatcher.findSchema({"aten::_amp_update_scale_", ""});
  return unscale.has_value() && update.has_value() && unscale->hasKernelForDispatchKey(key) &&
         update->hasKernelForDispatchKey(key);
}

namespace {

// _amp_foreach_non_finite_check_and_unscale_ with tensor ops: found_inf
// becomes 1 when any element of a gradient is inf/NaN, and every gradient is
// multiplied by inv_scale in place, the way the kernel does it: in float
// (opmath) for float16/bfloat16 then rounded, in the gradient's own type
// otherwise.
void compositeUnscale(const std::vector<at::Tensor>& grads, at::Tensor& found_inf,
                      const at::Tensor& inv_scale) {
  for (const at::Tensor& g : grads) {
    at::Tensor nonfinite = at::logical_not(at::isfinite(g)).any();
    found_inf.copy_(at::maximum(found_inf, nonfinite.to(found_inf.scalar_type())));
    at::Tensor grad = g;  // shares storage: the updates land in the gradient
    if (grad.scalar_type() == c10::kHalf || grad.scalar_type() == c10::kBFloat16) {
      grad.copy_(grad.to(c10::kFloat).mul_(inv_scale));
    } else {
      grad.mul_(inv_scale);
    }
  }
}

// _amp_update_scale_ with tensor ops (no host synchronisation):
//   found_inf != 0:  scale = float(scale * backoff_factor); tracker = 0
//   else:            tracker + 1 == growth_interval ?
//                      (scale = float(scale * growth_factor) if that is finite; tracker = 0)
//                    : tracker += 1
// The products are taken in double like the kernel's (float * double).
void compositeUpdateScale(at::Tensor& scale, at::Tensor& growth_tracker, const at::Tensor& found_inf,
                          double growth_factor, double backoff_factor, int64_t growth_interval) {
  at::Tensor found = found_inf.ne(0);
  at::Tensor successful = growth_tracker.add(1);
  at::Tensor grow = at::logical_and(successful.eq(growth_interval), at::logical_not(found));
  at::Tensor scale_d = scale.to(c10::kDouble);
  at::Tensor backed_off = scale_d.mul(backoff_factor).to(c10::kFloat);
  at::Tensor grown = scale_d.mul(growth_factor).to(c10::kFloat);
  at::Tensor new_scale =
      at::where(found, backed_off, at::where(at::logical_and(grow, at::isfinite(grown)), grown, scale));
  at::Tensor new_tracker = at::where(at::logical_or(found, grow), at::zeros_like(growth_tracker), successful);
  scale.copy_(new_scale);
  growth_tracker.copy_(new_tracker);
}

// Python's _MultiDeviceReplicator: the master tensor copied once per device.
class PerDevice {
 public:
  explicit PerDevice(at::Tensor master) : master_(std::move(master)) {}
  at::Tensor& get(const c10::Device& device) {
    for (auto& kv : copies_)
      if (kv.first == device) return kv.second;
    copies_.emplace_back(device, master_.to(master_.options().device(device), /*non_blocking=*/true,
                                            /*copy=*/true));
    return copies_.back().second;
  }
  std::vector<std::pair<c10::Device, at::Tensor>>& copies() { return copies_; }

 private:
  at::Tensor master_;
  std::vector<std::pair<c10::Device, at::Tensor>> copies_;
};

}  // namespace

GradScaler::GradScaler(double init_scale, double growth_factor, double backoff_factor,
                       int64_t growth_interval, bool enabled)
    : enabled_(enabled),
      init_scale_(init_scale),
      growth_factor_(growth_factor),
      backoff_factor_(backoff_factor),
      growth_interval_(growth_interval) {
  if (enabled_) {
    TORCH_CHECK(growth_factor > 1.0, "The growth factor must be > 1.0.");
    TORCH_CHECK(backoff_factor < 1.0, "The backoff factor must be < 1.0.");
  }
}

void GradScaler::lazyInit(const c10::Device& device) {
  scale_ = at::full({}, init_scale_, at::TensorOptions().dtype(c10::kFloat).device(device));
  growth_tracker_ = at::full({}, init_growth_tracker_, at::TensorOptions().dtype(c10::kInt).device(device));
}

void GradScaler::checkInitialized(const char* function) const {
  TORCH_CHECK(scale_.defined(), "Attempted ", function,
              " but _scale is None.  This may indicate your script did not use scaler.scale(loss or "
              "outputs) earlier in the iteration.");
  TORCH_CHECK(growth_tracker_.defined(), "Attempted ", function,
              " but _growth_tracker is None.  This may indicate your script did not use "
              "scaler.scale(loss or outputs) earlier in the iteration.");
}

bool GradScaler::useFused(c10::DeviceType device_type) const {
  return kernels_ == Kernels::Auto && fusedScalerKernelsAvailable(device_type);
}

at::Tensor GradScaler::scale(const at::Tensor& outputs) {
  if (!enabled_) return outputs;
  if (!scale_.defined()) lazyInit(outputs.device());
  return outputs * scale_.to(scale_.options().device(outputs.device()), /*non_blocking=*/true);
}

std::vector<at::Tensor> GradScaler::scale(const std::vector<at::Tensor>& outputs) {
  if (!enabled_) return outputs;
  std::vector<at::Tensor> out;
  out.reserve(outputs.size());
  if (outputs.empty()) return out;
  if (!scale_.defined()) lazyInit(outputs.front().device());
  PerDevice scales(scale_);
  for (const at::Tensor& o : outputs) out.push_back(o * scales.get(o.device()));
  return out;
}

void GradScaler::unscale_(torch::optim::Optimizer& optimizer) {
  if (!enabled_) return;
  checkInitialized("unscale_");
  OptimizerState& state = per_optimizer_[&optimizer];
  TORCH_CHECK(state.stage != Stage::Unscaled,
              "unscale_() has already been called on this optimizer since the last update().");
  TORCH_CHECK(state.stage != Stage::Stepped, "unscale_() is being called after step().");
  at::Tensor inv_scale = scale_.to(c10::kDouble).reciprocal().to(c10::kFloat);
  at::Tensor found_inf = at::full({}, 0.0, at::TensorOptions().dtype(c10::kFloat).device(scale_.device()));

  // Python's _unscale_grads_(optimizer, inv_scale, found_inf, allow_fp16=False).
  PerDevice per_device_inv_scale(inv_scale);
  PerDevice per_device_found_inf(found_inf);
  // device -> dtype -> gradients, in first-seen order
  std::vector<std::pair<c10::Device, std::vector<std::pair<c10::ScalarType, std::vector<at::Tensor>>>>> groups;
  {
    at::NoGradGuard no_grad;
    for (auto& group : optimizer.param_groups()) {
      for (auto& param : group.params()) {
        if (!param.grad().defined()) continue;
        TORCH_CHECK_VALUE(param.grad().scalar_type() != c10::kHalf, "Attempting to unscale FP16 gradients.");
        at::Tensor to_unscale;
        if (param.grad().is_sparse()) {
          to_unscale = param.grad()._values();
        } else {
          to_unscale = param.grad();
        }
        auto device_it = std::find_if(groups.begin(), groups.end(),
                                      [&](const auto& kv) { return kv.first == to_unscale.device(); });
        if (device_it == groups.end()) {
          groups.emplace_back(to_unscale.device(), std::vector<std::pair<c10::ScalarType, std::vector<at::Tensor>>>{});
          device_it = groups.end() - 1;
        }
        auto& by_dtype = device_it->second;
        auto dtype_it = std::find_if(by_dtype.begin(), by_dtype.end(),
                                     [&](const auto& kv) { return kv.first == to_unscale.scalar_type(); });
        if (dtype_it == by_dtype.end()) {
          by_dtype.emplace_back(to_unscale.scalar_type(), std::vector<at::Tensor>{});
          dtype_it = by_dtype.end() - 1;
        }
        dtype_it->second.push_back(to_unscale);
      }
    }
    for (auto& [device, by_dtype] : groups) {
      for (auto& [dtype, grads] : by_dtype) {
        (void)dtype;
        at::Tensor& device_found_inf = per_device_found_inf.get(device);
        const at::Tensor& device_inv_scale = per_device_inv_scale.get(device);
        if (useFused(device.type())) {
          at::_amp_foreach_non_finite_check_and_unscale_(grads, device_found_inf, device_inv_scale);
        } else {
          compositeUnscale(grads, device_found_inf, device_inv_scale);
        }
      }
    }
  }
  state.found_inf_per_device = per_device_found_inf.copies();
  state.stage = Stage::Unscaled;
}

bool GradScaler::step(torch::optim::Optimizer& optimizer) {
  if (!enabled_) {
    optimizer.step();
    return true;
  }
  checkInitialized("step");
  OptimizerState& state = per_optimizer_[&optimizer];
  TORCH_CHECK(state.stage != Stage::Stepped, "step() has already been called since the last update().");
  if (state.stage == Stage::Ready) unscale_(optimizer);
  TORCH_CHECK(!state.found_inf_per_device.empty(), "No inf checks were recorded for this optimizer.");
  double found = 0;
  for (auto& kv : state.found_inf_per_device) found += kv.second.item<double>();
  bool stepped = false;
  if (found == 0) {
    optimizer.step();
    stepped = true;
  }
  state.stage = Stage::Stepped;
  return stepped;
}

void GradScaler::update() {
  if (!enabled_) return;
  checkInitialized("update");
  std::vector<at::Tensor> found_infs;
  for (auto& [optimizer, state] : per_optimizer_) {
    (void)optimizer;
    for (auto& kv : state.found_inf_per_device)
      found_infs.push_back(kv.second.to(kv.second.options().device(scale_.device()), /*non_blocking=*/true));
  }
  TORCH_CHECK(!found_infs.empty(), "No inf checks were recorded prior to update.");
  at::Tensor found_inf_combined = found_infs[0];
  for (size_t i = 1; i < found_infs.size(); ++i) found_inf_combined += found_infs[i];
  if (useFused(scale_.device().type())) {
    at::_amp_update_scale_(scale_, growth_tracker_, found_inf_combined, growth_factor_, backoff_factor_,
                           growth_interval_);
  } else {
    compositeUpdateScale(scale_, growth_tracker_, found_inf_combined, growth_factor_, backoff_factor_,
                         growth_interval_);
  }
  per_optimizer_.clear();
}

void GradScaler::update(double new_scale) {
  if (!enabled_) return;
  checkInitialized("update");
  scale_.fill_(new_scale);
  per_optimizer_.clear();
}

void GradScaler::update(const at::Tensor& new_scale) {
  if (!enabled_) return;
  checkInitialized("update");
  const char* reason =
      "new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor with "
      "requires_grad=False.";
  TORCH_CHECK(new_scale.device().type() == scale_.device().type(), reason);
  TORCH_CHECK(new_scale.numel() == 1, reason);
  TORCH_CHECK(!new_scale.requires_grad(), reason);
  scale_.copy_(new_scale.reshape({}));
  per_optimizer_.clear();
}

double GradScaler::get_scale() const {
  if (!enabled_) return 1.0;
  return scale_.defined() ? scale_.item<double>() : init_scale_;
}

int64_t GradScaler::get_growth_tracker() const {
  if (!enabled_) return 0;
  return growth_tracker_.defined() ? growth_tracker_.item<int64_t>() : init_growth_tracker_;
}

GradScalerState GradScaler::state_dict() const {
  GradScalerState s;
  if (!enabled_) return s;  // s.enabled == false: Python's {}
  s.enabled = true;
  s.scale = get_scale();
  s.growth_factor = growth_factor_;
  s.backoff_factor = backoff_factor_;
  s.growth_interval = growth_interval_;
  s.growth_tracker = get_growth_tracker();
  return s;
}

void GradScaler::load_state_dict(const GradScalerState& state) {
  if (!enabled_) return;
  TORCH_CHECK(state.enabled,
              "The source state dict is empty, possibly because it was saved from a disabled instance "
              "of GradScaler.");
  init_scale_ = state.scale;
  if (scale_.defined()) scale_.fill_(state.scale);
  growth_factor_ = state.growth_factor;
  backoff_factor_ = state.backoff_factor;
  growth_interval_ = state.growth_interval;
  init_growth_tracker_ = state.growth_tracker;
  if (growth_tracker_.defined()) growth_tracker_.fill_(state.growth_tracker);
}

void GradScaler::save(torch::serialize::OutputArchive& archive) const {
  GradScalerState s = state_dict();
  if (!s.enabled) return;  // a disabled scaler saves nothing, like Python's {}
  archive.write("scale", c10::IValue(s.scale));
  archive.write("growth_factor", c10::IValue(s.growth_factor));
  archive.write("backoff_factor", c10::IValue(s.backoff_factor));
  archive.write("growth_interval", c10::IValue(s.growth_interval));
  archive.write("_growth_tracker", c10::IValue(s.growth_tracker));
}

void GradScaler::load(torch::serialize::InputArchive& archive) {
  if (!enabled_) return;
  GradScalerState s;
  c10::IValue v;
  s.enabled = archive.try_read("scale", v);
  TORCH_CHECK(s.enabled,
              "The source state dict is empty, possibly because it was saved from a disabled instance "
              "of GradScaler.");
  s.scale = v.toDouble();
  archive.read("growth_factor", v);
  s.growth_factor = v.toDouble();
  archive.read("backoff_factor", v);
  s.backoff_factor = v.toDouble();
  archive.read("growth_interval", v);
  s.growth_interval = v.toInt();
  archive.read("_growth_tracker", v);
  s.growth_tracker = v.toInt();
  load_state_dict(s);
}

torch::serialize::OutputArchive& operator<<(torch::serialize::OutputArchive& archive,
                                            const GradScaler& scaler) {
  scaler.save(archive);
  return archive;
}

torch::serialize::InputArchive& operator>>(torch::serialize::InputArchive& archive, GradScaler& scaler) {
  scaler.load(archive);
  return archive;
}

}  // namespace amp
}  // namespace libtorch_tidy
