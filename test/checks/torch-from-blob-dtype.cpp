// RUN: %check_torch_tidy %s torch-from-blob-dtype %t
#include <torch/torch.h>
#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

// --- Positives ----------------------------------------------------------------

torch::Tensor vector_of_double(int64_t n) {
  std::vector<double> v(n);
  return torch::from_blob(v.data(), {n}).clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::from_blob reads 'double' elements as kFloat (no dtype given): the tensor's values are garbage and it covers half of the buffer; pass the dtype of the memory (torch::kDouble) [torch-from-blob-dtype]
}
// CHECK-FIXES: {{^}}  return torch::from_blob(v.data(), {n}, torch::kDouble).clone();{{$}}

torch::Tensor int_pointer(int *labels, int64_t n) {
  return torch::from_blob(labels, {n});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::from_blob reads 'int' elements as kFloat (no dtype given): the tensor's values are garbage; pass the dtype of the memory (torch::kInt)
}
// CHECK-FIXES: {{^}}  return torch::from_blob(labels, {n}, torch::kInt);{{$}}

torch::Tensor int64_array() {
  int64_t ids[8] = {};
  return torch::from_blob(ids, {8}, torch::kInt).clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::from_blob reads 'int64_t' (aka 'long') elements as kInt: the tensor's values are garbage and it covers half of the buffer; pass the dtype of the memory (torch::kLong)
}
// CHECK-FIXES: {{^}}  return torch::from_blob(ids, {8}, torch::kLong).clone();{{$}}

torch::Tensor image_without_dtype(uint8_t *pixels, int64_t h, int64_t w) {
  return torch::from_blob(pixels, {h, w, 3});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::from_blob reads 'uint8_t' (aka 'unsigned char') elements as kFloat (no dtype given): the tensor's values are garbage and it reads 4 times as many bytes as the buffer holds, past its end; pass the dtype of the memory (torch::kByte)
}
// CHECK-FIXES: {{^}}  return torch::from_blob(pixels, {h, w, 3}, torch::kByte);{{$}}

torch::Tensor std_array_of_double() {
  std::array<double, 4> a{};
  return torch::from_blob(a.data(), {4}, torch::TensorOptions().dtype(torch::kFloat)).clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::from_blob reads 'double' elements as kFloat: the tensor's values are garbage and it covers half of the buffer; pass the dtype of the memory (torch::kDouble)
}
// CHECK-FIXES: {{^}}  return torch::from_blob(a.data(), {4}, torch::TensorOptions().dtype(torch::kDouble)).clone();{{$}}

struct MatrixXd { // an Eigen-like matrix
  double *data();
  int64_t rows() const;
  int64_t cols() const;
};

torch::Tensor eigen_like(MatrixXd &m) {
  return at::from_blob(m.data(), {m.rows(), m.cols()}, at::dtype(at::kFloat).device(at::kCPU));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: at::from_blob reads 'double' elements as kFloat: the tensor's values are garbage and it covers half of the buffer; pass the dtype of the memory (at::kDouble)
}
// CHECK-FIXES: {{^}}  return at::from_blob(m.data(), {m.rows(), m.cols()}, at::dtype(at::kDouble).device(at::kCPU));{{$}}

torch::Tensor strides_and_deleter(float *p, int64_t *q) {
  auto a = torch::from_blob(static_cast<void *>(q), {4}, {1}, torch::kFloat64);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::from_blob reads 'int64_t' (aka 'long') elements as kDouble: the tensor's values are garbage; pass the dtype of the memory (torch::kLong)
  auto b = torch::from_blob(p, {4}, [](void *m) { delete[] static_cast<float *>(m); },
                            torch::TensorOptions(torch::kDouble).requires_grad(false));
  // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: torch::from_blob reads 'float' elements as kDouble: the tensor's values are garbage and it reads twice as many bytes as the buffer holds, past its end; pass the dtype of the memory (torch::kFloat)
  auto c = torch::from_blob(q, {4}, {1}, [](void *) {});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::from_blob reads 'int64_t' (aka 'long') elements as kFloat (no dtype given)
  return a + b + c;
}
// CHECK-FIXES: {{^}}  auto a = torch::from_blob(static_cast<void *>(q), {4}, {1}, torch::kLong);{{$}}
// CHECK-FIXES: {{^}}                            torch::TensorOptions(torch::kFloat).requires_grad(false));{{$}}
// CHECK-FIXES: {{^}}  auto c = torch::from_blob(q, {4}, {1}, [](void *) {}, torch::kLong);{{$}}

torch::Tensor device_only_options(std::vector<int64_t> &v) {
  // A device but no dtype: kFloat. No fix-it: the options are not one constant.
  return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::TensorOptions().device(torch::kCUDA));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::from_blob reads 'long' elements as kFloat (no dtype given): the tensor's values are garbage and it covers half of the buffer; pass the dtype of the memory (torch::kLong)
}

torch::Tensor enumerator_and_complex(std::complex<float> *z, bool *mask) {
  auto a = torch::from_blob(z, {4}, at::ScalarType::Float);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::from_blob reads 'std::complex<float>' elements as kFloat
  auto b = torch::from_blob(mask, {4});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: torch::from_blob reads 'bool' elements as kFloat (no dtype given)
  return a + b;
}
// CHECK-FIXES: {{^}}  auto a = torch::from_blob(z, {4}, at::ScalarType::ComplexFloat);{{$}}
// CHECK-FIXES: {{^}}  auto b = torch::from_blob(mask, {4}, torch::kBool);{{$}}

void in_lambda(std::vector<double> &buf) {
  auto wrap = [&] { return torch::from_blob(buf.data(), {3}); };
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: torch::from_blob reads 'double' elements as kFloat
  wrap();
}
// CHECK-FIXES: {{^}}  auto wrap = [&] { return torch::from_blob(buf.data(), {3}, torch::kDouble); };{{$}}

// A template whose data pointer does not depend on its parameter: one
// finding, however many instantiations.
template <typename T> torch::Tensor fixed_type(std::vector<double> &v, T n) {
  return torch::from_blob(v.data(), {static_cast<int64_t>(n)});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::from_blob reads 'double' elements as kFloat
}
// CHECK-FIXES: {{^}}  return torch::from_blob(v.data(), {static_cast<int64_t>(n)}, torch::kDouble);{{$}}
template torch::Tensor fixed_type<int>(std::vector<double> &, int);
template torch::Tensor fixed_type<long>(std::vector<double> &, long);

#define WRAP(p, n) torch::from_blob(p, {n})
torch::Tensor in_macro(double *p) {
  // Reported, no fix-it inside a macro.
  return WRAP(p, 4);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: torch::from_blob reads 'double' elements as kFloat
}
// CHECK-FIXES: {{^}}  return WRAP(p, 4);{{$}}

// --- Negatives ----------------------------------------------------------------

torch::Tensor matching(float *f, std::vector<double> &d, std::vector<int64_t> &l, int32_t *i, uint8_t *u,
                       int8_t *c, bool *b, int16_t *s, at::Half *h, c10::BFloat16 *bf,
                       std::complex<double> *z, c10::complex<float> *cz) {
  auto t = torch::from_blob(f, {1}) + torch::from_blob(f, {1}, torch::kFloat) +
           torch::from_blob(d.data(), {1}, torch::kDouble) +
           torch::from_blob(d.data(), {1}, torch::kFloat64) +
           torch::from_blob(d.data(), {1}, torch::dtype(torch::kDouble)) +
           torch::from_blob(d.data(), {1}, torch::TensorOptions().dtype(at::kDouble)) +
           torch::from_blob(d.data(), {1}, torch::TensorOptions(torch::kDouble)) +
           torch::from_blob(d.data(), {1}, torch::dtype<double>()) +
           torch::from_blob(d.data(), {1}, torch::kF64) +
           torch::from_blob(l.data(), {1}, torch::kLong) + torch::from_blob(l.data(), {1}, torch::kInt64) +
           torch::from_blob(i, {1}, torch::kInt) + torch::from_blob(u, {1}, torch::kByte) +
           torch::from_blob(u, {1}, torch::kUInt8) + torch::from_blob(c, {1}, torch::kChar) +
           torch::from_blob(b, {1}, torch::kBool) + torch::from_blob(s, {1}, torch::kShort) +
           torch::from_blob(h, {1}, torch::kHalf) + torch::from_blob(bf, {1}, torch::kBFloat16) +
           torch::from_blob(z, {1}, torch::kComplexDouble) + torch::from_blob(cz, {1}, torch::kComplexFloat);
  float grid[3][4][4] = {};
  return t + torch::from_blob(grid, {3, 4, 4}).clone();
}

torch::Tensor unknown_element_type(void *p, const std::vector<char> &bytes, std::byte *raw, unsigned *u,
                                   long double *ld) {
  struct Pixel { float r, g, b; };
  std::vector<Pixel> pixels(4);
  return torch::from_blob(p, {4}) + torch::from_blob(const_cast<char *>(bytes.data()), {4}) +
         torch::from_blob(raw, {4}) + torch::from_blob(u, {4}) + torch::from_blob(ld, {4}) +
         torch::from_blob(pixels.data(), {4, 3});
}

torch::Tensor dtype_not_constant(std::vector<double> &v, torch::ScalarType t, torch::TensorOptions opts,
                                 torch::ScalarType (*pick)()) {
  torch::ScalarType local = torch::kFloat;
  return torch::from_blob(v.data(), {1}, t) + torch::from_blob(v.data(), {1}, opts) +
         torch::from_blob(v.data(), {1}, torch::TensorOptions().dtype(local)) +
         torch::from_blob(v.data(), {1}, pick());
}

struct Mat { // cv::Mat: `uchar *data`
  unsigned char *data;
  int rows, cols;
};

struct QImage {
  unsigned char *bits();
};

torch::Tensor raw_bytes_reinterpreted(const Mat &m, std::vector<uint8_t> &file, bool *mask, QImage &q) {
  // An explicit dtype over bytes, sizes counted with sizeof, or a class's
  // type-erased buffer (cv::Mat::data after convertTo(CV_32F)): deliberate.
  return torch::from_blob(m.data, {m.rows, m.cols}, torch::kFloat) +
         torch::from_blob(m.data, {m.rows, m.cols, 3}) + torch::from_blob(q.bits(), {4}) +
         torch::from_blob(file.data(), {(int64_t)(file.size() / sizeof(float))}) +
         torch::from_blob(reinterpret_cast<float *>(file.data()), {4}) +
         torch::from_blob(mask, {4}, torch::kByte);
}

template <typename T> torch::Tensor dependent(std::vector<T> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()});
}
template <typename T> torch::Tensor dependent_uninstantiated(T *p) { return torch::from_blob(p, {4}); }
template <typename T> struct Holder {
  std::vector<T> buf;
  torch::Tensor tensor() { return torch::from_blob(buf.data(), {4}); }
};
torch::Tensor instantiations(std::vector<double> &v, Holder<int64_t> &h) {
  return dependent(v) + h.tensor();
}

namespace mylib {
struct Blob {};
torch::Tensor from_blob(double *data, c10::IntArrayRef sizes);
} // namespace mylib
torch::Tensor own_from_blob(double *d) { return mylib::from_blob(d, {4}); }
