// A project's own autocast scope class (the option GuardType names it).
#pragma once
#include <torch/torch.h>

namespace amp {
struct Scope {
  Scope(c10::DeviceType device_type, c10::ScalarType dtype);
  ~Scope();
};
} // namespace amp
