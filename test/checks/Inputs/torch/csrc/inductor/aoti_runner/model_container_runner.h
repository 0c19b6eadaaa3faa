// Mock of <torch/csrc/inductor/aoti_runner/model_container_runner.h> (LibTorch
// 2.x, AOTInductor) for the lit tests: the declarations the checks look at,
// spelled as in the real header.
#pragma once
#include "../../../torch.h"
#include <string>
#include <unordered_map>
#include <vector>

namespace torch::inductor {
class AOTIModelContainerRunner {
public:
  AOTIModelContainerRunner(const AOTIModelContainerRunner &other) = delete;
  AOTIModelContainerRunner(AOTIModelContainerRunner &&other) = delete;
  virtual ~AOTIModelContainerRunner();

  std::vector<at::Tensor> run(const std::vector<at::Tensor> &inputs, void *stream_handle = nullptr);
  std::vector<at::Tensor> boxed_run(std::vector<at::Tensor> &&inputs, void *stream_handle = nullptr);
  std::vector<std::string> get_call_spec();

protected:
  AOTIModelContainerRunner(const std::string &model_so_path, size_t num_models,
                           const std::string &device_str, const std::string &cubin_dir,
                           const bool run_single_threaded);
  AOTIModelContainerRunner();
};
} // namespace torch::inductor
