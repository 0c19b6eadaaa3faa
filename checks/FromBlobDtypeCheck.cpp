//===--- FromBlobDtypeCheck.cpp - libtorch-tidy ---------------------------===//
//
// collect: the from_blob calls of a function; for each, the element type of
// the memory its data pointer points to (the pointer's static type, through
// casts to void*) and the dtype its options give (a constant of LibTorch's,
// kFloat when the options give none, unknown for a variable or a call);
// decide: the two differ, and the memory is not a buffer of bytes given an
// explicit dtype (a deliberate reinterpretation); in a template instantiation,
// the call does not depend on the template's parameters;
// diagnose: the call, a note at the variable that holds the memory, and the
// dtype of the memory as a fix-it: appended as the options when there are
// none, or in place of the constant that names the wrong one.
//
//===----------------------------------------------------------------------===//

#include "FromBlobDtypeCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/ClangTidyCompat.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include <optional>

namespace clang::tidy::torch_check {

namespace {

/// The memory a from_blob call wraps, as the data pointer's type tells.
struct Memory {
  QualType Element;                  ///< the element type, as spelled
  llvm::StringRef Dtype;             ///< its ScalarType enumerator ("Double")
  const ValueDecl *Holder = nullptr; ///< the variable the pointer comes from
  /// The pointer is a class's type-erased buffer: a data member (`cv::Mat::data`,
  /// `uchar *` whatever the matrix holds) or the result of a method of a class
  /// outside the standard library (`QImage::bits()`).
  bool Erased = false;
};

bool isTypeErasedBuffer(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return isa<FieldDecl>(ME->getMemberDecl());
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXRecordDecl *RD = MC->getRecordDecl();
    return RD && !RD->isInStdNamespace();
  }
  return false;
}

/// The dtype a from_blob call's options give.
struct Dtype {
  enum Source { Unknown, Default, Explicit } From = Unknown;
  llvm::StringRef Name;                   ///< ScalarType enumerator ("Float")
  const DeclRefExpr *Spelled = nullptr;   ///< the LibTorch constant written, if any
  bool NoOptions = false;                 ///< the call passes no options at all
};

Dtype defaultDtype() { return {Dtype::Default, "Float", nullptr, false}; }

/// \p T for the message: a member typedef (`std::array<double, 4>::value_type`,
/// Eigen's `Scalar`) is spelled as what it names, `int64_t` stays.
QualType displayType(QualType T) {
  while (const auto *TT = T->getAs<TypedefType>()) {
    if (!TT->getDecl()->getDeclContext()->isRecord())
      break;
    T = TT->desugar();
  }
  return T.getUnqualifiedType();
}

const ValueDecl *holderOf(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) // v.data(), m.data()
    return namedVariable(MC->getImplicitObjectArgument());
  return namedVariable(E);
}

/// The element type of the memory \p Data points to: its static type after
/// implicit casts and explicit casts to void* (a cast to another pointer type
/// is the user's statement of the element type). None for void*, a dependent
/// type, or an element type without a dtype.
std::optional<Memory> memoryOf(const Expr *Data, const ASTContext &Ctx) {
  const Expr *E = Data->IgnoreParenImpCasts();
  while (const auto *Cast = dyn_cast<ExplicitCastExpr>(E)) {
    if (!Cast->getType()->isVoidPointerType())
      break;
    E = Cast->getSubExpr()->IgnoreParenImpCasts();
  }
  QualType T = E->getType();
  if (T.isNull() || T->isDependentType())
    return std::nullopt;
  QualType Element;
  if (const auto *PT = T->getAs<PointerType>())
    Element = PT->getPointeeType();
  else if (T->isArrayType()) // a C array, before its decay
    Element = T;
  else
    return std::nullopt;
  Element = Ctx.getBaseElementType(Element).getUnqualifiedType(); // float[3][224][224]
  llvm::StringRef Name = scalarTypeOfElement(Element, Ctx);
  if (Name.empty())
    return std::nullopt;
  return Memory{displayType(Element), Name, holderOf(E), isTypeErasedBuffer(E)};
}

Dtype readScalarType(const Expr *E) {
  const DeclRefExpr *Spelled = nullptr;
  if (const EnumConstantDecl *EC = scalarTypeConstant(E, &Spelled))
    return {Dtype::Explicit, EC->getName(), Spelled, false};
  return {};
}

/// `dtype(kDouble)` or `dtype<double>()`, the member or the free function.
Dtype readDtypeCall(const CallExpr *Call, const FunctionDecl *FD, const ASTContext &Ctx) {
  if (Call->getNumArgs() == 1)
    return readScalarType(Call->getArg(0));
  const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs();
  if (Call->getNumArgs() != 0 || !Args || Args->size() != 1 ||
      Args->get(0).getKind() != TemplateArgument::Type)
    return {};
  llvm::StringRef Name = scalarTypeOfElement(Args->get(0).getAsType(), Ctx);
  return Name.empty() ? Dtype{} : Dtype{Dtype::Explicit, Name, nullptr, false};
}

/// The options setters and factories that leave the dtype alone.
bool setsOtherThanDtype(llvm::StringRef Name) {
  return Name == "device" || Name == "device_index" || Name == "layout" || Name == "requires_grad" ||
         Name == "pinned_memory" || Name == "memory_format";
}

/// A TensorOptions built from something other than a dtype: a device, a
/// device type, a device string, a layout or a memory format.
bool isNonDtypeOption(QualType T) {
  T = T.getNonReferenceType();
  if (const auto *ET = T->getAs<EnumType>())
    return !isScalarTypeType(T) && isInLibraryNamespace(ET->getDecl());
  if (const CXXRecordDecl *RD = classOf(T))
    return isNamed(RD, names::DeviceClass) || (RD->isInStdNamespace() && RD->getName() == "basic_string");
  QualType Pointee = T->isPointerType() ? T->getPointeeType()
                     : T->isArrayType() ? QualType(T->getPointeeOrArrayElementType(), 0)
                                        : QualType();
  return !Pointee.isNull() && Pointee->isCharType();
}

/// The dtype a TensorOptions expression \p E gives: `torch::kDouble`
/// (converted), `TensorOptions(kDouble)`, `TensorOptions().dtype(kDouble)`,
/// `torch::dtype(kDouble).device(kCUDA)`, `torch::dtype<double>()`, or the
/// default for `TensorOptions()`, `torch::kCUDA`, `torch::device(...)`.
Dtype readOptions(const Expr *E, const ASTContext &Ctx) {
  // A loop over the chain of setters, one step per call of the chain.
  while (E) {
    E = stripWrappers(E, wrappers::Temporaries | wrappers::FunctionalCasts);
    if (isScalarTypeType(E->getType()))
      return readScalarType(E);
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      if (!isTensorOptionsType(CE->getType()))
        return {};
      if (CE->getNumArgs() == 0)
        return defaultDtype();
      const Expr *Arg = CE->getArg(0);
      if (isTensorOptionsType(Arg->getType())) {
        E = Arg; // a copy
        continue;
      }
      if (isScalarTypeType(Arg->getType()))
        return readScalarType(Arg);
      return CE->getNumArgs() == 1 && isNonDtypeOption(Arg->getType()) ? defaultDtype() : Dtype{};
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      const Expr *Object = MC->getImplicitObjectArgument();
      if (!MD || !MD->getIdentifier() || !Object || !isTensorOptionsType(Object->getType()))
        return {};
      if (MD->getName() == "dtype")
        return readDtypeCall(MC, MD, Ctx);
      if (!setsOtherThanDtype(MD->getName()))
        return {};
      E = Object;
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (!FD || !FD->getIdentifier() || !isInLibraryNamespace(FD) ||
          !isTensorOptionsType(FD->getReturnType()))
        return {};
      if (FD->getName() == "dtype")
        return readDtypeCall(Call, FD, Ctx);
      return setsOtherThanDtype(FD->getName()) ? defaultDtype() : Dtype{};
    }
    return {}; // a variable, a parameter, a call of the user's
  }
  return {};
}

/// The dtype of \p Call's options argument (the parameter of type
/// TensorOptions, wherever the overload puts it).
Dtype dtypeOf(const CallExpr *Call, const ASTContext &Ctx) {
  const FunctionDecl *FD = Call->getDirectCallee();
  for (unsigned I = 0, N = std::min<unsigned>(FD->getNumParams(), Call->getNumArgs()); I < N; ++I) {
    if (!isTensorOptionsType(FD->getParamDecl(I)->getType()))
      continue;
    const Expr *Arg = Call->getArg(I);
    if (isa<CXXDefaultArgExpr>(Arg)) {
      Dtype D = defaultDtype();
      D.NoOptions = true;
      return D;
    }
    return readOptions(Arg, Ctx);
  }
  return {};
}

bool mentionsSizeof(const Expr *E) {
  return anyStmt(E, [](const Stmt *S) {
    const auto *U = dyn_cast<UnaryExprOrTypeTraitExpr>(S);
    return U && U->getKind() == UETT_SizeOf;
  });
}

/// A reading of the memory that is deliberate: a buffer of bytes (unsigned
/// char, uint8_t) given an explicit dtype, with sizes computed with sizeof,
/// or that is a class's type-erased buffer (cv::Mat::data of a CV_32F matrix);
/// bool memory read as bytes (the same values).
bool isDeliberate(const Memory &M, const Dtype &D, const CallExpr *Call) {
  if (M.Dtype == "Byte")
    return D.From == Dtype::Explicit || M.Erased || mentionsSizeof(Call->getArg(1));
  return M.Dtype == "Bool" && D.From == Dtype::Explicit && D.Name == "Byte";
}

/// from_blob calls of a template's pattern that depend on its parameters
/// (not yet resolved, or with a dependent data pointer or options): in an
/// instantiation the element type is the template argument's, not a mistake
/// of the code as written.
llvm::DenseSet<SourceLocation> dependentCalls(const Stmt *PatternBody) {
  llvm::DenseSet<SourceLocation> Locs;
  forEachStmt(PatternBody, [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call)
      return;
    if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(Call->getCallee()->IgnoreParenImpCasts())) {
      const IdentifierInfo *II = ULE->getName().getAsIdentifierInfo();
      if (II && II->getName() == "from_blob")
        Locs.insert(Call->getBeginLoc());
      return;
    }
    if (!isFromBlobCall(Call))
      return;
    for (const Expr *Arg : Call->arguments())
      if (Arg->isInstantiationDependent() && !isa<CXXDefaultArgExpr>(Arg) &&
          (Arg == Call->getArg(0) || isTensorOptionsType(Arg->getType())))
        Locs.insert(Call->getBeginLoc());
  });
  return Locs;
}

/// What reading \p M as \p D costs besides garbage values.
std::string sizeCost(unsigned MemorySize, unsigned DtypeSize) {
  if (MemorySize == DtypeSize || !MemorySize || !DtypeSize)
    return "";
  if (MemorySize > DtypeSize) {
    unsigned R = MemorySize / DtypeSize;
    return R == 2   ? " and it covers half of the buffer"
           : R == 4 ? " and it covers a quarter of the buffer"
           : R == 8 ? " and it covers an eighth of the buffer"
                    : " and it covers 1/" + std::to_string(R) + " of the buffer";
  }
  unsigned R = DtypeSize / MemorySize;
  return (R == 2 ? std::string(" and it reads twice") : " and it reads " + std::to_string(R) + " times") +
         " as many bytes as the buffer holds, past its end";
}

} // namespace

/// A mismatch to report: the memory and the dtype it is read as.
struct FromBlobDtypeCheck::Finding {
  Memory Mem;
  Dtype Read;
};

void FromBlobDtypeCheck::onStartOfTranslationUnit() {
  CoreCheck::onStartOfTranslationUnit();
  Reported.clear();
}

void FromBlobDtypeCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  if (!core().facts(FD, Ctx).callsNamed("from_blob"))
    return;
  llvm::DenseSet<SourceLocation> Dependent;
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    if (const Stmt *PatternBody = Pattern->getBody())
      Dependent = dependentCalls(PatternBody);

  forEachStmt(Body, [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call || !isFromBlobCall(Call) || Call->getNumArgs() < 2 || Dependent.contains(Call->getBeginLoc()))
      return;
    std::optional<Memory> M = memoryOf(Call->getArg(0), Ctx);
    if (!M)
      return;
    Dtype D = dtypeOf(Call, Ctx);
    if (D.From == Dtype::Unknown || D.Name == M->Dtype || isDeliberate(*M, D, Call))
      return;
    if (!Reported.insert(Call->getBeginLoc()).second)
      return; // the same call of another instantiation
    diagnose(Call, Finding{*M, D}, Ctx);
  });
}

void FromBlobDtypeCheck::diagnose(const CallExpr *Call, const Finding &F, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const QualType Element = F.Mem.Element;
  const llvm::StringRef MemoryDtype = F.Mem.Dtype, ReadDtype = F.Read.Name;
  const bool Defaulted = F.Read.From == Dtype::Default, NoOptions = F.Read.NoOptions;
  const DeclRefExpr *Spelled = F.Read.Spelled;
  const ValueDecl *Holder = F.Mem.Holder;
  const bool Torch = isNamed(Call->getDirectCallee(), names::TorchFromBlob);
  const std::string Wanted = (Torch ? "torch::k" : "at::k") + MemoryDtype.str();
  const std::string Read = "k" + ReadDtype.str() + (Defaulted ? " (no dtype given)" : "");
  {
    auto D = diag(compat::beginLoc(Call),
                  "%0 reads %1 elements as %2: the tensor's values are garbage%3; pass the dtype of the "
                  "memory (%4)")
             << (Torch ? "torch::from_blob" : "at::from_blob") << Element << Read
             << sizeCost(unsigned(Ctx.getTypeSizeInChars(Element).getQuantity()),
                         scalarTypeSize(ReadDtype))
             << Wanted << Call->getSourceRange();
    const bool InMacro = Call->getBeginLoc().isMacroID() || Call->getEndLoc().isMacroID();
    CharSourceRange CallRange = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Call->getSourceRange()), SM, getLangOpts());
    if (!InMacro && CallRange.isValid()) {
      if (NoOptions && Call->getRParenLoc().isFileID()) {
        D << FixItHint::CreateInsertion(Call->getRParenLoc(), ", " + Wanted);
      } else if (Spelled && !Spelled->getLocation().isMacroID()) {
        CharSourceRange Token = Lexer::makeFileCharRange(
            CharSourceRange::getTokenRange(Spelled->getLocation()), SM, getLangOpts());
        // An enumerator (ScalarType::Float) is replaced by an enumerator, a
        // constant (kFloat, kFloat32) by a constant.
        std::string Text = isa<EnumConstantDecl>(Spelled->getDecl()) ? MemoryDtype.str()
                                                                      : "k" + MemoryDtype.str();
        if (Token.isValid())
          D << FixItHint::CreateReplacement(Token, Text);
      }
    }
  }
  if (Holder && Holder->getLocation().isValid())
    diag(Holder->getLocation(), "%0 holds %1 elements", DiagnosticIDs::Note) << Holder << Element;
}

} // namespace clang::tidy::torch_check
