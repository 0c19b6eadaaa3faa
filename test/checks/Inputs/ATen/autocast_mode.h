// Mock of <ATen/autocast_mode.h>: the autocast API of LibTorch 2.x (the
// device-generic functions and the per-device ones it keeps as deprecated
// wrappers), or, with -DMOCK_LIBTORCH_1_13, exactly the API of LibTorch 1.13
// (per-device functions only: set_enabled is CUDA's).
#pragma once
#include "../torch/mock_core.h"

namespace at {
namespace autocast {
void clear_cache();
int increment_nesting();
int decrement_nesting();
bool is_autocast_cache_enabled();
void set_autocast_cache_enabled(bool enabled);

#ifdef MOCK_LIBTORCH_1_13
bool is_enabled();
void set_enabled(bool enabled);
bool is_cpu_enabled();
void set_cpu_enabled(bool enabled);
at::ScalarType get_autocast_gpu_dtype();
at::ScalarType get_autocast_cpu_dtype();
void set_autocast_gpu_dtype(at::ScalarType dtype);
void set_autocast_cpu_dtype(at::ScalarType dtype);
bool is_xpu_enabled();
void set_xpu_enabled(bool enabled);
at::ScalarType get_autocast_xpu_dtype();
void set_autocast_xpu_dtype(at::ScalarType dtype);
#else
bool is_autocast_enabled(at::DeviceType device_type);
void set_autocast_enabled(at::DeviceType device_type, bool enabled);
at::ScalarType get_autocast_dtype(at::DeviceType device_type);
void set_autocast_dtype(at::DeviceType device_type, at::ScalarType dtype);

[[deprecated]] inline bool is_enabled() { return is_autocast_enabled(at::kCUDA); }
[[deprecated]] inline void set_enabled(bool enabled) { set_autocast_enabled(at::kCUDA, enabled); }
[[deprecated]] inline at::ScalarType get_autocast_gpu_dtype() { return get_autocast_dtype(at::kCUDA); }
[[deprecated]] inline void set_autocast_gpu_dtype(at::ScalarType dtype) {
  set_autocast_dtype(at::kCUDA, dtype);
}
#define MOCK_DEPRECATED_AUTOCAST_APIS(name, device_type)                                           \
  [[deprecated]] inline bool is_##name##_enabled() { return is_autocast_enabled(device_type); }    \
  [[deprecated]] inline void set_##name##_enabled(bool enabled) {                                  \
    set_autocast_enabled(device_type, enabled);                                                    \
  }                                                                                                \
  [[deprecated]] inline at::ScalarType get_autocast_##name##_dtype() {                             \
    return get_autocast_dtype(device_type);                                                        \
  }                                                                                                \
  [[deprecated]] inline void set_autocast_##name##_dtype(at::ScalarType dtype) {                   \
    set_autocast_dtype(device_type, dtype);                                                        \
  }
MOCK_DEPRECATED_AUTOCAST_APIS(cpu, at::kCPU)
MOCK_DEPRECATED_AUTOCAST_APIS(mtia, c10::DeviceType::MTIA)
MOCK_DEPRECATED_AUTOCAST_APIS(xpu, at::kXPU)
MOCK_DEPRECATED_AUTOCAST_APIS(xla, c10::DeviceType::XLA)
MOCK_DEPRECATED_AUTOCAST_APIS(hpu, c10::DeviceType::HPU)
MOCK_DEPRECATED_AUTOCAST_APIS(ipu, c10::DeviceType::IPU)
MOCK_DEPRECATED_AUTOCAST_APIS(privateuseone, c10::DeviceType::PrivateUse1)
#undef MOCK_DEPRECATED_AUTOCAST_APIS
#endif
} // namespace autocast
} // namespace at
