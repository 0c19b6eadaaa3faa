// Mock of <torch/csrc/inductor/aoti_runner/model_container_runner_cuda.h>.
#pragma once
#include "model_container_runner.h"

namespace torch::inductor {
class AOTIModelContainerRunnerCuda : public AOTIModelContainerRunner {
public:
  // @param device_str: cuda device string, e.g. "cuda", "cuda:0"
  AOTIModelContainerRunnerCuda(const std::string &model_so_path, size_t num_models = 1,
                               const std::string &device_str = "cuda",
                               const std::string &cubin_dir = "",
                               const bool run_single_threaded = false);
  AOTIModelContainerRunnerCuda(const std::string &model_so_path, size_t num_models,
                               const std::string &device_str, const std::string &cubin_dir,
                               std::unordered_map<std::string, at::Tensor> &constants);
  ~AOTIModelContainerRunnerCuda() override;
};
} // namespace torch::inductor
