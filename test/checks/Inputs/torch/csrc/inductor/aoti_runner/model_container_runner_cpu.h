// Mock of <torch/csrc/inductor/aoti_runner/model_container_runner_cpu.h>.
#pragma once
#include "model_container_runner.h"

namespace torch::inductor {
class AOTIModelContainerRunnerCpu : public AOTIModelContainerRunner {
public:
  AOTIModelContainerRunnerCpu(const std::string &model_so_path, size_t num_models = 1,
                              const bool run_single_threaded = false);
  AOTIModelContainerRunnerCpu(const std::string &model_so_path, size_t num_models,
                              std::unordered_map<std::string, at::Tensor> &constants);
  ~AOTIModelContainerRunnerCpu() override;
};
} // namespace torch::inductor
