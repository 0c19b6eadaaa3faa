// Mock of <torch/csrc/inductor/aoti_package/model_package_loader.h> (LibTorch
// 2.x, AOTInductor): the loader of a .pt2 package, spelled as in the real
// header.
#pragma once
#include "../aoti_runner/model_container_runner.h"
#include <c10/core/Stream.h> // c10::DeviceIndex

namespace torch::inductor {
class AOTIModelPackageLoader {
public:
  AOTIModelPackageLoader(const std::string &model_package_path,
                         const std::string &model_name = "model",
                         const bool run_single_threaded = false, const size_t num_runners = 1,
                         const c10::DeviceIndex device_index = -1,
                         const bool use_stream_affinity = false);
  ~AOTIModelPackageLoader();

  AOTIModelContainerRunner *get_runner();
  std::unordered_map<std::string, std::string> get_metadata();

  std::vector<at::Tensor> run(const std::vector<at::Tensor> &inputs, void *stream_handle = nullptr);
  // boxed_run will steal the ownership of the input tensors
  std::vector<at::Tensor> boxed_run(std::vector<at::Tensor> &&inputs, void *stream_handle = nullptr);
  std::vector<std::string> get_call_spec();
};
} // namespace torch::inductor
