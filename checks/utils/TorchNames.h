//===--- TorchNames.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// The one place where LibTorch's qualified names are spelled, and the
// predicates that recognise LibTorch classes, types and calls. Matching is done
// on canonical declarations, so the aliases of LibTorch 1.13 .. 2.x
// (torch::NoGradGuard -> at::NoGradGuard -> c10::NoGradGuard, torch::Tensor ->
// at::Tensor, torch::jit::script::Module -> torch::jit::Module) all resolve.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_TORCHNAMES_H
#define LIBTORCH_TIDY_CHECKS_UTILS_TORCHNAMES_H

#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace clang::tidy::torch_check::names {

// Classes.
inline constexpr llvm::StringLiteral Tensor = "::at::Tensor";
inline constexpr llvm::StringLiteral TensorBase = "::at::TensorBase";
inline constexpr llvm::StringLiteral Module = "::torch::nn::Module";
inline constexpr llvm::StringLiteral ModuleHolder = "::torch::nn::ModuleHolder";
inline constexpr llvm::StringLiteral AnyModule = "::torch::nn::AnyModule";
inline constexpr llvm::StringLiteral JitModule = "::torch::jit::Module";
inline constexpr llvm::StringLiteral Optimizer = "::torch::optim::Optimizer";
inline constexpr llvm::StringLiteral NoGradGuard = "::c10::NoGradGuard";
inline constexpr llvm::StringLiteral AutoGradMode = "::c10::AutoGradMode";
inline constexpr llvm::StringLiteral InferenceMode = "::c10::InferenceMode";
inline constexpr llvm::StringLiteral GradMode = "::c10::GradMode";
/// AOTInductor (LibTorch 2.x): the loader of a compiled .pt2 package
/// (torch/csrc/inductor/aoti_package/model_package_loader.h) and the base of
/// the runners of a compiled model library, AOTIModelContainerRunnerCpu /
/// Cuda / Xpu / Mps (torch/csrc/inductor/aoti_runner/).
inline constexpr llvm::StringLiteral AOTIModelPackageLoader =
    "::torch::inductor::AOTIModelPackageLoader";
inline constexpr llvm::StringLiteral AOTIModelContainerRunner =
    "::torch::inductor::AOTIModelContainerRunner";
/// ATen/autocast_mode.h: at::autocast::set_enabled, set_autocast_enabled, ...
inline constexpr llvm::StringLiteral AutocastNamespace = "::at::autocast";

// Functions.
inline constexpr llvm::StringLiteral JitLoad = "::torch::jit::load";
/// torch::from_blob (torch/csrc/autograd/generated/variable_factories.h) and
/// at::from_blob (ATen/Functions.h / ATen/ops/from_blob.h).
inline constexpr llvm::StringLiteral TorchFromBlob = "::torch::from_blob";
inline constexpr llvm::StringLiteral AtFromBlob = "::at::from_blob";
/// at::indexing::TensorIndex (ATen/TensorIndexing.h): one index of
/// Tensor::index / index_put_ (an integer, a Slice, None, Ellipsis, a bool,
/// a tensor).
inline constexpr llvm::StringLiteral TensorIndex = "::at::indexing::TensorIndex";
/// The factories that make a tensor from sizes or a range and take its
/// TensorOptions (`at::TensorOptions options = {}`, `= at::kLong` for randint
/// and randperm) in torch/csrc/autograd/generated/variable_factories.h and
/// ATen/Functions.h of LibTorch 1.13 .. 2.x, in namespaces torch and at. Not
/// tensor() (host values), from_blob() (host memory), the *_like factories.
inline constexpr llvm::StringLiteral SizedFactories[] = {
    "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm",
    "arange", "linspace", "logspace", "eye", "normal"};
inline constexpr llvm::StringLiteral TorchNamespace = "::torch";
inline constexpr llvm::StringLiteral AtNamespace = "::at";
inline constexpr llvm::StringLiteral C10Namespace = "::c10";
/// torch::load(value, path) (torch/serialize.h).
inline constexpr llvm::StringLiteral TorchLoad = "::torch::load";
/// torch::serialize::InputArchive (load_from / load).
inline constexpr llvm::StringLiteral InputArchive = "::torch::serialize::InputArchive";
inline constexpr llvm::StringLiteral AutogradBackward = "::torch::autograd::backward";
inline constexpr llvm::StringLiteral AutogradGrad = "::torch::autograd::grad";
inline constexpr llvm::StringLiteral EmptyCache = "::c10::cuda::CUDACachingAllocator::emptyCache";
inline constexpr llvm::StringLiteral CudaSynchronize = "::torch::cuda::synchronize";
inline constexpr llvm::StringLiteral MakeDataLoader = "::torch::data::make_data_loader";
inline constexpr llvm::StringLiteral CUDACachingAllocatorNamespace =
    "::c10::cuda::CUDACachingAllocator";
inline constexpr llvm::StringLiteral DataLoaderOptions = "::torch::data::DataLoaderOptions";
/// The batch element a DataLoader yields (`torch::data::Example<Data, Target>`).
inline constexpr llvm::StringLiteral DataExample = "::torch::data::Example";

// Element types and tensor options (c10/core/ScalarType.h, c10/util/Half.h,
// c10/util/BFloat16.h, c10/util/complex.h, c10/core/TensorOptions.h). at::Half,
// at::BFloat16, at::ScalarType and at::TensorOptions are aliases of these.
inline constexpr llvm::StringLiteral ScalarTypeEnum = "::c10::ScalarType";
inline constexpr llvm::StringLiteral TensorOptions = "::c10::TensorOptions";
/// c10::Scalar (at::Scalar, torch::Scalar): a number handed to an operator.
inline constexpr llvm::StringLiteral ScalarClass = "::c10::Scalar";
inline constexpr llvm::StringLiteral Half = "::c10::Half";
inline constexpr llvm::StringLiteral BFloat16 = "::c10::BFloat16";
inline constexpr llvm::StringLiteral Complex = "::c10::complex";

// Devices.
inline constexpr llvm::StringLiteral KCPU = "::c10::kCPU";
inline constexpr llvm::StringLiteral KCUDA = "::c10::kCUDA";
inline constexpr llvm::StringLiteral DeviceClass = "::c10::Device";
inline constexpr llvm::StringLiteral DeviceTypeEnum = "::c10::DeviceType";

// CUDA streams (c10/cuda/CUDAStream.h, c10/cuda/CUDAGuard.h, c10/core/StreamGuard.h
// of LibTorch 1.13 .. 2.x). at::cuda::setCurrentCUDAStream and the rest are the
// c10::cuda functions (`namespace at::cuda { using namespace c10::cuda; }`).
inline constexpr llvm::StringLiteral CudaNamespace = "::c10::cuda";
inline constexpr llvm::StringLiteral SetCurrentCUDAStream = "::c10::cuda::setCurrentCUDAStream";
inline constexpr llvm::StringLiteral GetCurrentCUDAStream = "::c10::cuda::getCurrentCUDAStream";
inline constexpr llvm::StringLiteral GetDefaultCUDAStream = "::c10::cuda::getDefaultCUDAStream";
inline constexpr llvm::StringLiteral GetStreamFromPool = "::c10::cuda::getStreamFromPool";
inline constexpr llvm::StringLiteral CUDAStreamClass = "::c10::cuda::CUDAStream";
inline constexpr llvm::StringLiteral StreamClass = "::c10::Stream";
/// The guards that restore the current stream when they go out of scope.
inline constexpr llvm::StringLiteral StreamGuards[] = {
    "::c10::cuda::CUDAStreamGuard", "::c10::cuda::OptionalCUDAStreamGuard",
    "::c10::cuda::CUDAMultiStreamGuard", "::c10::StreamGuard", "::c10::OptionalStreamGuard"};
inline constexpr llvm::StringLiteral CUDAStreamGuard = "::c10::cuda::CUDAStreamGuard";
inline constexpr llvm::StringLiteral CUDAStreamGuardHeader = "<c10/cuda/CUDAGuard.h>";

// CUDA events (ATen/cuda/CUDAEvent.h, c10/core/Event.h) and the streams above:
// their synchronize() waits on the host.
inline constexpr llvm::StringLiteral CUDAEvent = "::at::cuda::CUDAEvent";
inline constexpr llvm::StringLiteral Event = "::c10::Event";
/// The CUDA runtime's host synchronisations (cuda_runtime_api.h, extern "C").
inline constexpr llvm::StringLiteral CudaRuntimeSyncs[] = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize"};

// Host clocks (not LibTorch's: the readings torch-unsynchronized-timing
// pairs). std::chrono's clocks live in an inline namespace of libstdc++
// (std::chrono::_V2); high_resolution_clock is an alias of one of them.
inline constexpr llvm::StringLiteral ChronoClocks[] = {
    "::std::chrono::steady_clock", "::std::chrono::system_clock",
    "::std::chrono::high_resolution_clock"};
/// clock() of <ctime> (C's, in the global namespace; std::clock is using'd).
inline constexpr llvm::StringLiteral CClock = "clock";

// The runtime companion's namespace (runtime/include/libtorch_tidy).
inline constexpr llvm::StringLiteral RuntimeNamespace = "libtorch_tidy";

// Namespaces whose code is LibTorch's own, never the user's.
inline constexpr llvm::StringLiteral LibraryNamespaces[] = {"at", "c10", "torch", "caffe2"};

// Spellings offered in fix-its.
inline constexpr llvm::StringLiteral NoGradGuardSpelling = "torch::NoGradGuard";
inline constexpr llvm::StringLiteral InferenceModeSpelling = "c10::InferenceMode";
inline constexpr llvm::StringLiteral CUDAStreamGuardSpelling = "c10::cuda::CUDAStreamGuard";

} // namespace clang::tidy::torch_check::names

namespace clang::tidy::torch_check {

/// True when \p D is the declaration named by \p QualifiedName ("::a::b::C"),
/// looking through inline namespaces. Compares identifiers, never builds strings.
bool isNamed(const NamedDecl *D, llvm::StringRef QualifiedName);

/// True when \p D is LibTorch's own: declared (directly or nested) in one of
/// LibTorch's namespaces at, c10, torch or caffe2, in LibTorch's headers (a
/// system header, or a file under ATen/, c10/, caffe2/, torch/csrc/). A
/// project's own code in `namespace torch` is the user's.
bool isInLibraryNamespace(const Decl *D);

/// \p RD, or one of its bases, is the class \p QualifiedName (or a
/// specialisation of the class template of that name).
bool isDerivedFromOrSame(const CXXRecordDecl *RD, llvm::StringRef QualifiedName);

/// The class of \p T after stripping references, pointers, cv and sugar.
const CXXRecordDecl *classOf(QualType T, bool LookThroughPointers = false);

/// at::Tensor (any spelling), by value or reference.
bool isTensorType(QualType T);
/// at::Tensor, or a class template specialisation with a Tensor argument
/// (std::tuple<Tensor, Tensor>, std::vector<Tensor>), or a dependent type.
bool mayHoldTensor(QualType T);
/// A class derived from torch::nn::Module (an "Impl" class).
bool isModuleClass(const CXXRecordDecl *RD);
/// A class derived from torch::nn::ModuleHolder<...> (TORCH_MODULE wrappers).
bool isModuleHolderClass(const CXXRecordDecl *RD);
/// torch::jit::Module (torch::jit::script::Module).
bool isJitModuleClass(const CXXRecordDecl *RD);
/// A class derived from torch::optim::Optimizer.
bool isOptimizerClass(const CXXRecordDecl *RD);

/// Anything that has eval()/train(): nn::Module subclasses, holders, jit modules.
bool isAnyModuleLike(const CXXRecordDecl *RD);
/// The construction of an optimizer: its constructor with arguments, not a
/// copy or a move (a variable, a temporary, `new`), or std::make_unique /
/// std::make_shared of an optimizer class with arguments.
bool isOptimizerConstruction(const Expr *E);

/// The kind of forward pass a call is.
enum class ForwardKind {
  None,
  ModuleForward,    ///< impl.forward(...) / holder->forward(...)
  HolderCall,       ///< holder(...)
  AnyModuleForward, ///< any_module.forward(...)
  JitForward,       ///< jit_module.forward(...) / jit_module(...)
};
/// Not a forward pass: run() of an AOTInductor loader or runner (its compiled
/// kernels record no autograd history; EvalWithoutNoGradCheck.cpp).
ForwardKind classifyForwardCall(const CallExpr *Call);
inline bool isForwardCall(const CallExpr *Call) {
  return classifyForwardCall(Call) != ForwardKind::None;
}
/// The object a forward pass is invoked on (the holder, the module, the jit
/// module), with implicit casts and operator-> stripped; null if not a forward.
const Expr *forwardCallObject(const CallExpr *Call);

/// tensor.backward(...), torch::autograd::backward(...), torch::autograd::grad(...).
bool isBackwardOrGradCall(const CallExpr *Call);
/// The member function called on a LibTorch module-like object, or "" when
/// \p Call is not such a call (e.g. "eval", "train", "to", "zero_grad").
llvm::StringRef moduleMethodName(const CallExpr *Call);
/// What a module call does to its training mode: eval() and train(false)
/// (a constant false) switch to evaluation, any other train(...) to training.
enum class ModeSwitch { None, Eval, Train };
ModeSwitch moduleModeSwitch(const CallExpr *Call, const ASTContext &Ctx);
/// What a call of GradMode::set_enabled(B) does (any of the torch::autograd,
/// at and c10 spellings); NotACall for any other call.
enum class SetGradEnabled { NotACall, Disables, Enables, Unknown };
SetGradEnabled classifySetGradEnabled(const CallExpr *Call, const ASTContext &Ctx);
/// torch::jit::load(...).
bool isJitLoadCall(const CallExpr *Call);
/// torch::from_blob(...) / at::from_blob(...) (any overload).
bool isFromBlobCall(const CallExpr *Call);
/// The index of the TensorOptions parameter of \p Call when it calls one of
/// LibTorch's SizedFactories (torch::zeros, at::randn, ...); none otherwise.
std::optional<unsigned> sizedFactoryOptionsParam(const CallExpr *Call);
/// The from_blob overloads that take a deleter (std::function<void(void*)>):
/// the tensor then owns (or at least manages) the memory.
bool fromBlobHasDeleter(const CallExpr *Call);
/// A call that loads a model or checkpoint from a file: torch::jit::load(path),
/// torch::load(value, path), InputArchive::load_from(path). Returns the
/// argument that names the file (or stream), or null when \p Call is none.
const Expr *modelLoadPathArg(const CallExpr *Call);
/// An AOTInductor loader or runner: torch::inductor::AOTIModelPackageLoader,
/// or a class derived from torch::inductor::AOTIModelContainerRunner.
bool isAOTILoaderClass(const CXXRecordDecl *RD);
/// True when \p Name may be the own name of a call or construction that
/// loads a model (FunctionFacts::callsNamed's prefilter): load, load_from,
/// the AOTInductor loader and runner classes, std::make_unique/make_shared.
bool mayNameModelLoad(llvm::StringRef Name);
/// The construction of an AOTInductor loader or runner, which loads the
/// compiled package or model library named by its first argument: the
/// constructor (a variable, a temporary, `new`), or std::make_unique /
/// std::make_shared of such a class. Returns that argument, or null when
/// \p E is none.
const Expr *aotiLoadPathArg(const Expr *E);
/// tensor.register_hook(...) / tensor.remove_hook(...) on an at::Tensor.
bool isRegisterHookCall(const CXXMemberCallExpr *Call);
bool isRemoveHookCall(const CXXMemberCallExpr *Call);
/// c10::cuda::CUDACachingAllocator::emptyCache(...) (any overload, any
/// namespace alias), and emptyCache() called on the allocator object of that
/// namespace (CUDACachingAllocator::get()->emptyCache()).
bool isEmptyCacheCall(const CallExpr *Call);
/// What a call of c10::cuda's stream functions (any of the c10::cuda and
/// at::cuda spellings) is.
enum class CudaStreamCall {
  None,        ///< not one of them
  Set,         ///< setCurrentCUDAStream(stream)
  GetCurrent,  ///< getCurrentCUDAStream(device = -1)
  GetDefault,  ///< getDefaultCUDAStream(device = -1)
  FromPool,    ///< getStreamFromPool(priority, device = -1)
  OtherApi,    ///< another function of c10::cuda, a member of CUDAStream or c10::Stream
};
CudaStreamCall classifyCudaStreamCall(const CallExpr *Call);
/// One of the guards that restore the current stream at the end of their
/// scope (names::StreamGuards), by value.
bool isStreamGuardType(QualType T);
/// torch::data::make_data_loader(...) (any overload).
bool isMakeDataLoaderCall(const CallExpr *Call);

/// An expression that names the CPU device: `torch::kCPU`, `c10::DeviceType::CPU`,
/// `torch::Device(torch::kCPU)`, `"cpu"`.
bool isCPUDeviceExpr(const Expr *E);
/// An expression that names a CUDA device: `torch::kCUDA`,
/// `c10::DeviceType::CUDA`, `torch::Device(torch::kCUDA, 0)`, `"cuda"`,
/// `"cuda:1"`.
bool isCUDADeviceExpr(const Expr *E);
/// A host clock reading: `std::chrono::steady_clock::now()` (also
/// system_clock, high_resolution_clock) and C's `clock()`.
bool isClockReading(const CallExpr *Call);
/// A call that waits on the host for CUDA work: torch::cuda::synchronize(),
/// synchronize() of a CUDA stream or event (c10::cuda::CUDAStream,
/// at::cuda::CUDAEvent, c10::Stream, c10::Event), cudaDeviceSynchronize(),
/// cudaStreamSynchronize(), cudaEventSynchronize().
bool isDeviceSynchronizeCall(const CallExpr *Call);

/// A LibTorch loss function: torch::nn::functional::*_loss, cross_entropy,
/// binary_cross_entropy(_with_logits), kl_div, and at::/torch:: *_loss,
/// nll_loss*, binary_cross_entropy*, kl_div. (Loss modules are forward calls.)
bool isLossFunctionCall(const CallExpr *Call);
/// A LibTorch operation whose result has no gradient: argmax/argmin,
/// comparisons (eq, ne, lt, gt, le, ge and their operators), logical ops,
/// isnan/isinf, the *_like factories, Tensor::grad(), Tensor::data() (graph-free).
bool isNoGradientCall(const CallExpr *Call);
/// `std::get<1>(t)` where \p t is the (values, indices) result of one of
/// LibTorch's max, min, sort, topk, kthvalue, mode, median, nanmedian, cummax
/// or cummin (function or Tensor method), spelled at the call or through a
/// local variable that such a call initialises: the indices, without
/// gradient.
bool isReductionIndices(const CallExpr *Call);
/// The enumerator of c10::ScalarType that \p E names: an enumerator
/// (`at::ScalarType::Double`), or one of LibTorch's own constants followed to
/// its initializer (`torch::kDouble`, `torch::kFloat64`, `at::kF64`), through
/// implicit conversions and one-argument constructions (`TensorOptions(kLong)`,
/// `optional<ScalarType>`). Null when \p E is no such constant (a variable,
/// a call, the user's own constant). \p Spelled, when given, receives the name
/// as written in \p E (the first DeclRefExpr met).
const EnumConstantDecl *scalarTypeConstant(const Expr *E, const DeclRefExpr **Spelled = nullptr);
/// The ScalarType enumerator name ("Double", "Long", "ComplexFloat") of the
/// tensor elements that C++ type \p T holds, as LibTorch maps them
/// (AT_FORALL_SCALAR_TYPES_WITH_COMPLEX: uint8_t Byte, int8_t Char, int16_t
/// Short, int Int, int64_t Long, at::Half, float, double, c10::complex<...>,
/// bool, at::BFloat16; std::complex<float/double> share c10::complex's layout);
/// "" for a type without a dtype (a class, `long double`, an unsigned type
/// wider than a byte, plain `char`, a dependent type).
llvm::StringRef scalarTypeOfElement(QualType T, const ASTContext &Ctx);
/// The size in bytes of an element of the ScalarType enumerator \p Name (one
/// that scalarTypeOfElement returns), 0 when unknown.
unsigned scalarTypeSize(llvm::StringRef Name);
/// c10::TensorOptions (any spelling), by value or reference.
bool isTensorOptionsType(QualType T);
/// c10::Device or c10::DeviceType (any spelling), by value or reference.
bool isDeviceOrDeviceTypeType(QualType T);
/// The device that the first argument \p Arg of `Tensor::to` names, as
/// written: a Device or DeviceType expression, seen through the implicit
/// conversions to TensorOptions (LibTorch's `to(TensorOptions, ...)` is what
/// `.to(device)` and `.to(torch::kCUDA)` call) and copies, not through a
/// conversion the user wrote (`torch::TensorOptions(device)`). Null for a
/// dtype, a tensor, an options object.
const Expr *toArgumentDevice(const Expr *Arg);
/// c10::ScalarType (any spelling).
bool isScalarTypeType(QualType T);
/// An expression naming an integral or bool ScalarType (torch::kLong,
/// at::ScalarType::Bool, ...): tensors of those types never have gradients.
bool isIntegralScalarTypeExpr(const Expr *E);

/// Element access (torch-elementwise-access-in-loop). When \p E is one step
/// of indexing a tensor by integers, appends the integer indices of that step
/// to \p Indices (in source order) and returns the tensor indexed: `t[i]`
/// (Tensor::operator[] with an integer index, not a Scalar or a tensor),
/// `t.index({i, j})` (every TensorIndex made from an integer: no Slice,
/// None, Ellipsis, bool or tensor). Null, with \p Indices unchanged, for
/// anything else. Parentheses and implicit nodes around \p E are not
/// stripped.
const Expr *tensorIntegerIndexStep(const Expr *E, llvm::SmallVectorImpl<const Expr *> &Indices);
/// `t.index_put_({i, j}, v)` with integer indices (as tensorIntegerIndexStep)
/// and a Scalar value: appends the indices and returns the value as written
/// (before its conversion to Scalar); null otherwise.
const Expr *tensorIndexPutScalar(const CXXMemberCallExpr *Call,
                                 llvm::SmallVectorImpl<const Expr *> &Indices);
/// The value \p E converts to c10::Scalar (an implicit or written-out
/// construction of a Scalar from one argument), as written; \p E itself
/// when it is no such conversion.
const Expr *scalarConversionSource(const Expr *E);

/// Strip parens, implicit casts, temporaries and the operator-> of a holder.
const Expr *stripHolderArrow(const Expr *E);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_TORCHNAMES_H
