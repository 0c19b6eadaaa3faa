// Mock torch::nn, torch::optim and torch::data: declarations only.
#pragma once
#include "mock_core.h"

namespace torch {
namespace nn {
template <typename Contained> class ModuleHolder;
class Module : public std::enable_shared_from_this<Module> {
public:
  Module();
  explicit Module(std::string name);
  virtual ~Module();
  virtual void train(bool on = true);
  void eval();
  virtual bool is_training() const noexcept;
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);
  virtual void zero_grad(bool set_to_none = true);
  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, std::shared_ptr<ModuleType> module);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, ModuleHolder<ModuleType> module_holder);
  Tensor &register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor &register_buffer(std::string name, Tensor tensor);
};

template <typename Contained> class ModuleHolder {
protected:
  std::shared_ptr<Contained> impl_;

public:
  ModuleHolder();
  ModuleHolder(std::nullptr_t);
  template <typename Head, typename... Tail>
  explicit ModuleHolder(Head &&head, Tail &&...tail)
      : impl_(new Contained(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}
  explicit operator bool() const noexcept;
  Contained *operator->() { return impl_.get(); }
  const Contained *operator->() const { return impl_.get(); }
  Contained &operator*();
  const std::shared_ptr<Contained> &ptr() const;
  Contained *get();
  template <typename... Args>
  auto operator()(Args &&...args)
      -> decltype(std::declval<Contained &>().forward(std::forward<Args>(args)...)) {
    return impl_->forward(std::forward<Args>(args)...);
  }
};

template <typename Derived> class Cloneable : public Module {
public:
  using Module::Module;
  virtual void reset() = 0;
};

#define TORCH_MODULE_IMPL(Name, ImplType)                                                          \
  class Name : public torch::nn::ModuleHolder<ImplType> { /* NOLINT */                            \
  public:                                                                                          \
    using torch::nn::ModuleHolder<ImplType>::ModuleHolder;                                         \
    using torch::nn::ModuleHolder<ImplType>::get;                                                  \
  }
#define TORCH_MODULE(Name) TORCH_MODULE_IMPL(Name, Name##Impl)

struct LinearOptions {
  LinearOptions(int64_t in, int64_t out);
  LinearOptions &bias(bool);
};
class LinearImpl : public Cloneable<LinearImpl> {
public:
  LinearImpl(int64_t in, int64_t out);
  explicit LinearImpl(const LinearOptions &options);
  void reset() override;
  Tensor forward(const Tensor &input);
  Tensor weight, bias;
};
TORCH_MODULE(Linear);

struct Conv2dOptions {
  Conv2dOptions(int64_t in, int64_t out, int64_t kernel);
  Conv2dOptions &stride(int64_t);
  Conv2dOptions &padding(int64_t);
};
class Conv2dImpl : public Cloneable<Conv2dImpl> {
public:
  Conv2dImpl(int64_t in, int64_t out, int64_t kernel);
  explicit Conv2dImpl(Conv2dOptions options);
  void reset() override;
  Tensor forward(const Tensor &input);
};
TORCH_MODULE(Conv2d);

class DropoutImpl : public Cloneable<DropoutImpl> {
public:
  explicit DropoutImpl(double p = 0.5);
  void reset() override;
  Tensor forward(Tensor input);
};
TORCH_MODULE(Dropout);

class BatchNorm2dImpl : public Cloneable<BatchNorm2dImpl> {
public:
  explicit BatchNorm2dImpl(int64_t features);
  void reset() override;
  Tensor forward(const Tensor &input);
};
TORCH_MODULE(BatchNorm2d);

class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
public:
  EmbeddingImpl(int64_t num, int64_t dim);
  void reset() override;
  Tensor forward(const Tensor &indices);
};
TORCH_MODULE(Embedding);

class ReLUImpl : public Cloneable<ReLUImpl> {
public:
  ReLUImpl();
  void reset() override;
  Tensor forward(Tensor input);
};
TORCH_MODULE(ReLU);

struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size);
  LSTMOptions &num_layers(int64_t);
  LSTMOptions &batch_first(bool);
};
class LSTMImpl : public Cloneable<LSTMImpl> {
public:
  LSTMImpl(int64_t input_size, int64_t hidden_size);
  explicit LSTMImpl(const LSTMOptions &options);
  void reset() override;
  std::tuple<Tensor, std::tuple<Tensor, Tensor>>
  forward(const Tensor &input, c10::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
};
TORCH_MODULE(LSTM);

class GRUImpl : public Cloneable<GRUImpl> {
public:
  GRUImpl(int64_t input_size, int64_t hidden_size);
  void reset() override;
  std::tuple<Tensor, Tensor> forward(const Tensor &input, Tensor hx = {});
};
TORCH_MODULE(GRU);

class LSTMCellImpl : public Cloneable<LSTMCellImpl> {
public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size);
  void reset() override;
  std::tuple<Tensor, Tensor> forward(const Tensor &input,
                                     c10::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
};
TORCH_MODULE(LSTMCell);

class GRUCellImpl : public Cloneable<GRUCellImpl> {
public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size);
  void reset() override;
  Tensor forward(const Tensor &input, Tensor hx = {});
};
TORCH_MODULE(GRUCell);

class AnyModule {
public:
  AnyModule();
  template <typename ModuleType> explicit AnyModule(std::shared_ptr<ModuleType> module);
  template <typename ModuleType> explicit AnyModule(const ModuleHolder<ModuleType> &module);
  template <typename... ArgumentTypes> Tensor forward(ArgumentTypes &&...arguments);
};

class SequentialImpl : public Cloneable<SequentialImpl> {
public:
  SequentialImpl();
  template <typename... Modules> explicit SequentialImpl(Modules &&...modules);
  void reset() override;
  template <typename ModuleType> void push_back(ModuleType module);
  template <typename ReturnType = Tensor, typename... InputTypes>
  ReturnType forward(InputTypes &&...inputs);
};
class Sequential : public ModuleHolder<SequentialImpl> {
public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential();
  template <typename... Modules> explicit Sequential(Modules &&...modules);
};

class CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
public:
  CrossEntropyLossImpl();
  void reset() override;
  Tensor forward(const Tensor &input, const Tensor &target);
};
TORCH_MODULE(CrossEntropyLoss);
class MSELossImpl : public Cloneable<MSELossImpl> {
public:
  MSELossImpl();
  void reset() override;
  Tensor forward(const Tensor &input, const Tensor &target);
};
TORCH_MODULE(MSELoss);
class NLLLossImpl : public Cloneable<NLLLossImpl> {
public:
  NLLLossImpl();
  void reset() override;
  Tensor forward(const Tensor &input, const Tensor &target);
};
TORCH_MODULE(NLLLoss);

namespace functional {
Tensor mse_loss(const Tensor &input, const Tensor &target);
Tensor l1_loss(const Tensor &input, const Tensor &target);
Tensor nll_loss(const Tensor &input, const Tensor &target);
Tensor cross_entropy(const Tensor &input, const Tensor &target);
Tensor binary_cross_entropy(const Tensor &input, const Tensor &target);
Tensor binary_cross_entropy_with_logits(const Tensor &input, const Tensor &target);
Tensor smooth_l1_loss(const Tensor &input, const Tensor &target);
Tensor kl_div(const Tensor &input, const Tensor &target);
Tensor relu(const Tensor &input);
Tensor log_softmax(const Tensor &input, int64_t dim);
Tensor softmax(const Tensor &input, int64_t dim);
Tensor dropout(const Tensor &input);
} // namespace functional

namespace utils {
double clip_grad_norm_(std::vector<Tensor> parameters, double max_norm, double norm_type = 2.0);
} // namespace utils
} // namespace nn

namespace optim {
struct OptimizerOptions {
  virtual ~OptimizerOptions();
};
class Optimizer {
public:
  using LossClosure = std::function<Tensor()>;
  virtual ~Optimizer();
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  void zero_grad(bool set_to_none = true);
  std::vector<Tensor> &parameters() noexcept;
};
struct SGDOptions : OptimizerOptions {
  SGDOptions(double lr);
  SGDOptions &momentum(double);
  SGDOptions &weight_decay(double);
};
class SGD : public Optimizer {
public:
  explicit SGD(std::vector<Tensor> params, SGDOptions defaults);
  Tensor step(LossClosure closure = nullptr) override;
};
struct AdamOptions : OptimizerOptions {
  AdamOptions(double lr = 1e-3);
  AdamOptions &weight_decay(double);
};
class Adam : public Optimizer {
public:
  explicit Adam(std::vector<Tensor> params, AdamOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;
};
struct AdamWOptions : OptimizerOptions {
  AdamWOptions(double lr = 1e-3);
};
class AdamW : public Optimizer {
public:
  explicit AdamW(std::vector<Tensor> params, AdamWOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;
};
struct RMSpropOptions : OptimizerOptions {
  RMSpropOptions(double lr = 1e-2);
};
class RMSprop : public Optimizer {
public:
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;
};
struct LBFGSOptions : OptimizerOptions {
  LBFGSOptions(double lr = 1);
  LBFGSOptions &max_iter(int64_t);
};
class LBFGS : public Optimizer {
public:
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {});
  Tensor step(LossClosure closure) override;
};
class LRScheduler {
public:
  explicit LRScheduler(Optimizer &optimizer);
  virtual ~LRScheduler();
  void step();
};
class StepLR : public LRScheduler {
public:
  StepLR(Optimizer &optimizer, unsigned step_size, double gamma = 0.1);
};
} // namespace optim

namespace data {
template <typename Data = Tensor, typename Target = Tensor> struct Example {
  Data data;
  Target target;
};
namespace samplers {
class Sampler {
public:
  virtual ~Sampler();
};
class RandomSampler : public Sampler {
public:
  explicit RandomSampler(int64_t size);
};
class SequentialSampler : public Sampler {
public:
  explicit SequentialSampler(size_t size);
};
} // namespace samplers
namespace transforms {
template <typename T = Example<>> struct Stack {};
template <typename Target = Tensor> struct Normalize {
  Normalize(double mean, double stddev);
};
} // namespace transforms
namespace datasets {
template <typename Self, typename SingleExample = Example<>> class Dataset {
public:
  using ExampleType = SingleExample;
  virtual ~Dataset();
  virtual SingleExample get(size_t index) = 0;
  virtual c10::optional<size_t> size() const = 0;
  template <typename TransformType> Self map(TransformType transform) &&;
  template <typename TransformType> Self map(TransformType transform) const &;
};
class MNIST : public Dataset<MNIST> {
public:
  enum class Mode { kTrain, kTest };
  explicit MNIST(const std::string &root, Mode mode = Mode::kTrain);
  Example<> get(size_t index) override;
  c10::optional<size_t> size() const override;
};
class TensorDataset : public Dataset<TensorDataset> {
public:
  TensorDataset(const std::vector<Tensor> &tensors);
  TensorDataset(Tensor tensor);
  Example<> get(size_t index) override;
  c10::optional<size_t> size() const override;
};
} // namespace datasets

struct DataLoaderOptions {
  DataLoaderOptions();
  DataLoaderOptions(size_t batch_size);
  DataLoaderOptions &batch_size(size_t);
  DataLoaderOptions &workers(size_t);
  DataLoaderOptions &max_jobs(size_t);
  DataLoaderOptions &drop_last(bool);
  DataLoaderOptions &enforce_ordering(bool);
};

template <typename Batch> class Iterator {
public:
  Batch &operator*();
  Batch *operator->();
  Iterator &operator++();
  bool operator!=(const Iterator &) const;
  bool operator==(const Iterator &) const;
};
template <typename Dataset, typename Sampler> class StatelessDataLoader {
public:
  using BatchType = std::vector<Example<>>;
  Iterator<BatchType> begin();
  Iterator<BatchType> end();
};

template <typename Sampler = samplers::RandomSampler, typename Dataset>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>>
make_data_loader(Dataset dataset, DataLoaderOptions options = DataLoaderOptions());
// As in LibTorch, the overload with a sampler has no default options.
template <typename Dataset, typename Sampler>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>>
make_data_loader(Dataset dataset, Sampler sampler, DataLoaderOptions options);
} // namespace data

// torch/serialize/input-archive.h, torch/serialize.h
namespace serialize {
class InputArchive {
public:
  InputArchive();
  void load_from(const std::string &filename, c10::optional<at::Device> device = c10::nullopt);
  bool try_read(const std::string &key, at::Tensor &tensor, bool is_buffer = false);
  void read(const std::string &key, at::Tensor &tensor, bool is_buffer = false);
};
} // namespace serialize
template <typename Value, typename... LoadFromArgs> void load(Value &value, LoadFromArgs &&...args);
} // namespace torch
