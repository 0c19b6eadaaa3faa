// Mock of <torch/script.h> for the lit tests: TorchScript modules.
#pragma once
#include "torch.h"

namespace c10 {
struct IValue {
  IValue();
  IValue(at::Tensor);
  IValue(double);
  IValue(int64_t);
  at::Tensor toTensor() const &;
  bool isTensor() const;
};
} // namespace c10

namespace torch {
namespace jit {
using c10::IValue;
using Kwargs = std::vector<std::pair<std::string, IValue>>;
struct Object {
  Object();
};
struct Module : public Object {
  Module();
  IValue forward(std::vector<IValue> inputs, const Kwargs &kwargs = Kwargs());
  IValue operator()(std::vector<IValue> inputs);
  void train(bool on = true);
  void eval();
  bool is_training() const;
  void to(at::Device device, bool non_blocking = false);
  std::vector<at::Tensor> parameters(bool recurse = true) const;
};
Module load(const std::string &filename, c10::optional<c10::Device> device = c10::nullopt);
namespace script {
using Module = ::torch::jit::Module;
} // namespace script
} // namespace jit
} // namespace torch
