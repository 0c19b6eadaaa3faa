// Mock LibTorch for the lit tests: declarations only, in the namespaces and
// shapes real LibTorch (1.13 .. 2.x) gives them. Nothing here is real code.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace c10 {
template <class T> using optional = std::optional<T>;
constexpr std::nullopt_t nullopt = std::nullopt;
using nullopt_t = std::nullopt_t;
template <class T> class ArrayRef {
public:
  ArrayRef();
  ArrayRef(const std::vector<T> &);
  ArrayRef(std::initializer_list<T>);
  ArrayRef(const T &);
};
using IntArrayRef = ArrayRef<int64_t>;
// c10/util/irange.h: `for (const auto i : c10::irange(n))`.
template <typename I> struct integer_range {
  struct iterator {
    I operator*() const;
    iterator &operator++();
    bool operator!=(const iterator &) const;
  };
  iterator begin() const;
  iterator end() const;
};
template <typename I> integer_range<I> irange(I end);
template <typename I1, typename I2> integer_range<I2> irange(I1 begin, I2 end);
// c10/core/ScalarType.h (AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS order)
enum class ScalarType : int8_t {
  Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat, ComplexDouble, Bool,
  QInt8, QUInt8, QInt32, BFloat16, Undefined };
// c10/util/Half.h, c10/util/BFloat16.h, c10/util/complex.h
struct alignas(2) Half { unsigned short x; };
struct alignas(2) BFloat16 { uint16_t x; };
template <typename T> struct alignas(sizeof(T) * 2) complex { T real_, imag_; };
enum class DeviceType : int8_t {
  CPU = 0, CUDA = 1, XLA = 9, XPU = 12, HPU = 15, IPU = 18, MTIA = 19, PrivateUse1 = 20 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kXPU = DeviceType::XPU;
struct Device {
  Device(DeviceType type, int8_t index = -1);
  int8_t index() const noexcept;
  Device(const std::string &);
  DeviceType type() const noexcept;
  bool is_cuda() const;
  bool is_cpu() const;
};
class Scalar {
public:
  Scalar(double);
  Scalar(int);
  Scalar(int64_t);
  Scalar(float);
  Scalar(bool);
  template <typename T> T to() const;
  double toDouble() const;
  float toFloat() const;
  int64_t toLong() const;
};
struct TensorOptions {
  TensorOptions();
  TensorOptions(ScalarType);
  TensorOptions(Device);
  TensorOptions(DeviceType);
  TensorOptions dtype(c10::optional<ScalarType>) const;
  template <typename T> TensorOptions &dtype();
  TensorOptions device(Device) const;
  TensorOptions layout(int) const;
  TensorOptions pinned_memory(bool = true) const;
  TensorOptions requires_grad(bool = true) const;
};

// c10/core/TensorOptions.h: the free functions that start an options chain
inline TensorOptions dtype(ScalarType dtype) { return TensorOptions().dtype(dtype); }
template <typename T> TensorOptions dtype();
inline TensorOptions device(Device device) { return TensorOptions().device(device); }
inline TensorOptions requires_grad(bool requires_grad = true) { return TensorOptions().requires_grad(requires_grad); }
#define C10_DEFINE_CONSTANT(name) constexpr ScalarType k##name = ScalarType::name;
C10_DEFINE_CONSTANT(Byte) C10_DEFINE_CONSTANT(Char) C10_DEFINE_CONSTANT(Short) C10_DEFINE_CONSTANT(Int)
C10_DEFINE_CONSTANT(Long) C10_DEFINE_CONSTANT(Half) C10_DEFINE_CONSTANT(Float) C10_DEFINE_CONSTANT(Double)
C10_DEFINE_CONSTANT(ComplexHalf) C10_DEFINE_CONSTANT(ComplexFloat) C10_DEFINE_CONSTANT(ComplexDouble)
C10_DEFINE_CONSTANT(Bool) C10_DEFINE_CONSTANT(BFloat16)
#undef C10_DEFINE_CONSTANT

// c10/core/GradMode.h
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};
struct AutoGradMode {
  AutoGradMode(bool enabled);
  ~AutoGradMode();
  bool prev_mode;
};
struct NoGradGuard : public AutoGradMode {
  NoGradGuard() : AutoGradMode(/*enabled=*/false) {}
};
// c10/core/InferenceMode.h
struct InferenceMode {
  InferenceMode(bool enabled = true);
  ~InferenceMode();
  static bool is_enabled();
};
} // namespace c10

namespace at {
using c10::Device;
using c10::DeviceType;
using c10::IntArrayRef;
using c10::kCPU;
using c10::kCUDA;
using c10::kXPU;
using c10::Scalar;
using c10::ScalarType;
using c10::TensorOptions;
using namespace c10; // c10/macros/Macros.h: kFloat, kDouble..., dtype(), device()
using c10::BFloat16;
using c10::Half;

// ATen/core/grad_mode.h
using GradMode = c10::GradMode;
using AutoGradMode = c10::AutoGradMode;
using NoGradGuard = c10::NoGradGuard;

class Tensor;
using TensorList = c10::ArrayRef<Tensor>;

// ATen/core/TensorAccessor.h: element access without the dispatcher.
template <typename T, size_t N> class TensorAccessor {
public:
  TensorAccessor<T, N - 1> operator[](int64_t i);
  const TensorAccessor<T, N - 1> operator[](int64_t i) const;
  int64_t size(int64_t i) const;
};
template <typename T> class TensorAccessor<T, 1> {
public:
  T &operator[](int64_t i);
  const T &operator[](int64_t i) const;
  int64_t size(int64_t i) const;
};

// ATen/TensorIndexing.h: the indices of Tensor::index / index_put_.
namespace indexing {
struct EllipsisIndexType {};
constexpr EllipsisIndexType Ellipsis;
constexpr c10::nullopt_t None = c10::nullopt;
struct Slice {
  Slice(c10::optional<int64_t> start = c10::nullopt, c10::optional<int64_t> stop = c10::nullopt,
        c10::optional<int64_t> step = c10::nullopt);
};
class TensorIndex {
public:
  TensorIndex(c10::nullopt_t);
  TensorIndex(EllipsisIndexType);
  TensorIndex(const char *str);
  TensorIndex(int64_t integer);
  TensorIndex(int integer);
  template <class T, class = typename std::enable_if<std::is_same<bool, T>::value>::type>
  TensorIndex(T boolean);
  TensorIndex(Slice slice);
  TensorIndex(Tensor tensor);
};
} // namespace indexing

class TensorBase {
public:
  TensorBase();
  int64_t dim() const;
  int64_t numel() const;
  bool defined() const;
  bool requires_grad() const;
  bool is_cuda() const;
  c10::IntArrayRef sizes() const;
  int64_t size(int64_t dim) const;
  ScalarType scalar_type() const;
  Device device() const;
  template <typename T> T *data_ptr() const;
  bool is_contiguous() const;
  template <typename T, size_t N> TensorAccessor<T, N> accessor() const &;
  template <typename T, size_t N> TensorAccessor<T, N> accessor() && = delete;
  void reset();
};

class Tensor : public TensorBase {
public:
  Tensor();
  Tensor(const Tensor &);
  Tensor(Tensor &&);
  Tensor &operator=(const Tensor &) &;
  Tensor &operator=(Tensor &&) &;
  Tensor &operator=(const Scalar &) &;
  // Assigning to a temporary (`k[0] = v`, `k.select(0, i) = v`) copies into
  // the viewed storage, as in LibTorch.
  Tensor &operator=(const Tensor &) &&;
  Tensor &operator=(Tensor &&) &&;
  Tensor &operator=(const Scalar &) &&;

  void backward(const Tensor &gradient = {}, c10::optional<bool> retain_graph = c10::nullopt,
                bool create_graph = false, c10::optional<TensorList> inputs = c10::nullopt) const;
  Tensor detach() const;
  Tensor &detach_();
  Scalar item() const;
  template <typename T> T item() const;
  Tensor grad() const;
  Tensor &grad();
  Tensor &mutable_grad() const;
  Tensor data() const;
  const Tensor &requires_grad_(bool requires_grad = true) const;
  Tensor &set_requires_grad(bool requires_grad);
  using TensorBase::requires_grad;

  Tensor operator[](Scalar index) const;
  Tensor operator[](Tensor index) const;
  Tensor operator[](int64_t index) const;
  Tensor index(c10::ArrayRef<at::indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<at::indexing::TensorIndex> indices) const;
  Tensor &index_put_(c10::ArrayRef<at::indexing::TensorIndex> indices, const Tensor &rhs);
  Tensor &index_put_(c10::ArrayRef<at::indexing::TensorIndex> indices, const Scalar &v);
  Tensor &index_put_(std::initializer_list<at::indexing::TensorIndex> indices, const Tensor &rhs);
  Tensor &index_put_(std::initializer_list<at::indexing::TensorIndex> indices, const Scalar &v);
  Tensor operator-() const;
  Tensor &operator+=(const Tensor &other);
  Tensor &operator+=(const Scalar &other);
  Tensor &operator-=(const Tensor &other);
  Tensor &operator-=(const Scalar &other);
  Tensor &operator*=(const Tensor &other);
  Tensor &operator*=(const Scalar &other);
  Tensor &operator/=(const Tensor &other);
  Tensor &operator/=(const Scalar &other);

  Tensor add(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor &add_(const Tensor &other, const Scalar &alpha = 1);
  Tensor &add_(const Scalar &other, const Scalar &alpha = 1);
  Tensor sub(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor &sub_(const Tensor &other, const Scalar &alpha = 1);
  Tensor mul(const Tensor &other) const;
  Tensor mul(const Scalar &other) const;
  Tensor &mul_(const Tensor &other);
  Tensor &mul_(const Scalar &other);
  Tensor div(const Tensor &other) const;
  Tensor div(const Scalar &other) const;
  Tensor &div_(const Tensor &other);
  Tensor &div_(const Scalar &other);
  Tensor &zero_();
  Tensor &copy_(const Tensor &src, bool non_blocking = false);
  Tensor &fill_(const Scalar &value);
  Tensor sum() const;
  Tensor sum(int64_t dim, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(int64_t dim, bool keepdim = false) const;
  Tensor max() const;
  Tensor min() const;
  Tensor abs() const;
  Tensor clamp(const Scalar &min, const Scalar &max) const;
  Tensor permute(c10::IntArrayRef dims) const;
  Tensor pow(const Scalar &exponent) const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor tanh() const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;
  Tensor matmul(const Tensor &other) const;
  Tensor t() const;
  Tensor view(c10::IntArrayRef size) const;
  Tensor reshape(c10::IntArrayRef shape) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor argmax(c10::optional<int64_t> dim = c10::nullopt, bool keepdim = false) const;
  Tensor argmin(c10::optional<int64_t> dim = c10::nullopt, bool keepdim = false) const;
  Tensor eq(const Tensor &other) const;
  Tensor eq(const Scalar &other) const;
  Tensor ne(const Tensor &other) const;
  Tensor lt(const Tensor &other) const;
  Tensor gt(const Tensor &other) const;
  Tensor le(const Tensor &other) const;
  Tensor ge(const Tensor &other) const;
  // ATen/core/TensorBody.h: a device (or device type) reaches to() through
  // TensorOptions' implicit construction from it.
  Tensor to(TensorOptions options = {}, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor &other, bool non_blocking = false, bool copy = false) const;
  Tensor toType(ScalarType t) const;
  Tensor cpu() const;
  Tensor cuda() const;
  Tensor to_dense() const;
  Tensor float_() const;
  // torch/csrc/autograd: hooks on a tensor (the hook is any callable).
  template <typename T> unsigned register_hook(T &&hook) const { return 0; }
  void remove_hook(unsigned pos) const;
};

// ATen/core/Formatting.h: printing copies the values to the host.
std::ostream &operator<<(std::ostream &out, const Tensor &t);
Tensor operator+(const Tensor &a, const Tensor &b);
Tensor operator+(const Tensor &a, const Scalar &b);
Tensor operator+(const Scalar &a, const Tensor &b);
Tensor operator-(const Tensor &a, const Tensor &b);
Tensor operator-(const Tensor &a, const Scalar &b);
Tensor operator-(const Scalar &a, const Tensor &b);
Tensor operator*(const Tensor &a, const Tensor &b);
Tensor operator*(const Tensor &a, const Scalar &b);
Tensor operator*(const Scalar &a, const Tensor &b);
Tensor operator/(const Tensor &a, const Tensor &b);
Tensor operator/(const Tensor &a, const Scalar &b);
Tensor operator==(const Tensor &a, const Tensor &b);
Tensor operator<(const Tensor &a, const Tensor &b);
Tensor operator>(const Tensor &a, const Tensor &b);
// ATen/TensorOperators.h: comparisons with a scalar.
Tensor operator==(const Tensor &a, const Scalar &b);
Tensor operator!=(const Tensor &a, const Scalar &b);
Tensor operator<(const Tensor &a, const Scalar &b);
Tensor operator>(const Tensor &a, const Scalar &b);

Tensor mse_loss(const Tensor &self, const Tensor &target, int64_t reduction = 1);
Tensor l1_loss(const Tensor &self, const Tensor &target, int64_t reduction = 1);
Tensor nll_loss(const Tensor &self, const Tensor &target);
Tensor cross_entropy_loss(const Tensor &self, const Tensor &target);
Tensor binary_cross_entropy(const Tensor &self, const Tensor &target);
Tensor binary_cross_entropy_with_logits(const Tensor &self, const Tensor &target);
Tensor smooth_l1_loss(const Tensor &self, const Tensor &target);
Tensor kl_div(const Tensor &self, const Tensor &target);
Tensor relu(const Tensor &self);
Tensor sigmoid(const Tensor &self);
Tensor tanh(const Tensor &self);
Tensor softmax(const Tensor &self, int64_t dim);
Tensor log_softmax(const Tensor &self, int64_t dim);
Tensor matmul(const Tensor &a, const Tensor &b);
Tensor stack(TensorList tensors, int64_t dim = 0);
// ATen/ops/zeros.h, ATen/ops/randn.h (ATen/Functions.h)
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor randn(IntArrayRef size, TensorOptions options = {});
// ATen/ops/from_blob.h
Tensor from_blob(void *data, IntArrayRef sizes, const TensorOptions &options = TensorOptions());
Tensor cat(TensorList tensors, int64_t dim = 0);
Tensor sum(const Tensor &self);
Tensor mean(const Tensor &self);
Tensor argmax(const Tensor &self, c10::optional<int64_t> dim = c10::nullopt, bool keepdim = false);
std::tuple<Tensor, Tensor> max(const Tensor &self, int64_t dim, bool keepdim = false);
Tensor dropout(const Tensor &input, double p, bool train);
} // namespace at

namespace torch {
using namespace at; // torch/types.h
constexpr auto kFloat16 = at::kHalf; // torch/types.h
constexpr auto kUInt8 = at::kByte;
constexpr auto kInt8 = at::kChar;
constexpr auto kInt16 = at::kShort;
constexpr auto kInt32 = at::kInt;
constexpr auto kInt64 = at::kLong;
constexpr auto kFloat32 = at::kFloat;
constexpr auto kFloat64 = at::kDouble;
constexpr auto kF64 = kFloat64;
Tensor zeros(c10::IntArrayRef size, TensorOptions options = {});
Tensor ones(c10::IntArrayRef size, TensorOptions options = {});
Tensor randn(c10::IntArrayRef size, TensorOptions options = {});
Tensor rand(c10::IntArrayRef size, TensorOptions options = {});
Tensor randint(int64_t high, c10::IntArrayRef size, TensorOptions options = at::kLong);
Tensor randint(int64_t low, int64_t high, c10::IntArrayRef size, TensorOptions options = at::kLong);
Tensor randperm(int64_t n, TensorOptions options = at::kLong);
Tensor full(c10::IntArrayRef size, const Scalar &fill_value, TensorOptions options = {});
Tensor arange(const Scalar &end, TensorOptions options = {});
Tensor arange(const Scalar &start, const Scalar &end, TensorOptions options = {});
Tensor linspace(const Scalar &start, const Scalar &end, int64_t steps, TensorOptions options = {});
Tensor logspace(const Scalar &start, const Scalar &end, int64_t steps, double base = 10.0,
                TensorOptions options = {});
Tensor eye(int64_t n, TensorOptions options = {});
Tensor empty(c10::IntArrayRef size, TensorOptions options = {});
Tensor tensor(std::initializer_list<float> values, TensorOptions options = {});
Tensor tensor(double value, TensorOptions options = {});
Tensor zeros_like(const Tensor &self);
Tensor ones_like(const Tensor &self);
// torch/csrc/autograd/generated/variable_factories.h
using Deleter = std::function<void(void *)>;
Tensor from_blob(void *data, at::IntArrayRef sizes, at::IntArrayRef strides, const Deleter &deleter,
                 const at::TensorOptions &options = at::TensorOptions());
Tensor from_blob(void *data, at::IntArrayRef sizes, at::IntArrayRef strides,
                 const at::TensorOptions &options = at::TensorOptions());
Tensor from_blob(void *data, at::IntArrayRef sizes, const Deleter &deleter,
                 const at::TensorOptions &options = at::TensorOptions());
Tensor from_blob(void *data, at::IntArrayRef sizes,
                 const at::TensorOptions &options = at::TensorOptions());
using NoGradGuard = at::NoGradGuard; // torch/utils.h
using InferenceMode = c10::InferenceMode;

namespace autograd {
using Variable = at::Tensor;
using variable_list = std::vector<Variable>;
using GradMode = at::GradMode;
using AutoGradMode = at::AutoGradMode;
void backward(const variable_list &tensors, const variable_list &grad_tensors = {},
              c10::optional<bool> retain_graph = c10::nullopt, bool create_graph = false,
              const variable_list &inputs = {});
variable_list grad(const variable_list &outputs, const variable_list &inputs,
                   const variable_list &grad_outputs = {},
                   c10::optional<bool> retain_graph = c10::nullopt, bool create_graph = false,
                   bool allow_unused = false);
} // namespace autograd

namespace cuda {
bool is_available();
int64_t device_count();
void synchronize(int64_t device_index = -1);
} // namespace cuda
} // namespace torch
