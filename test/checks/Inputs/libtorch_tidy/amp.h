// Mock of the runtime companion's <libtorch_tidy/amp.h> (runtime/include).
#pragma once
#include "../torch/mock_core.h"

namespace torch::optim {
class Optimizer;
}

namespace libtorch_tidy::amp {
class AutocastGuard {
public:
  AutocastGuard(c10::DeviceType device_type, c10::ScalarType dtype, bool enabled = true,
                bool cache_enabled = true);
  ~AutocastGuard();
};
class GradScaler {
public:
  explicit GradScaler(double init_scale = 65536.0, double growth_factor = 2.0,
                      double backoff_factor = 0.5, int64_t growth_interval = 2000,
                      bool enabled = true);
  at::Tensor scale(const at::Tensor &outputs);
  void unscale_(torch::optim::Optimizer &optimizer);
  void step(torch::optim::Optimizer &optimizer);
  void update();
  double get_scale() const;
};
} // namespace libtorch_tidy::amp
