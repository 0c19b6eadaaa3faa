//===--- DefUse.h - libtorch-tidy -------------------------------*- C++ -*-===//
//
// Where the variables of one function body get their values: the body's
// definitions and modifications, per variable. Built once per function, on
// first use, from the nodes the analysis core's one walk kept
// (FunctionFacts::defUse()), so a check asks instead of walking the body.
//
// What counts as a source of a variable's value:
//   - its initialiser, the right side of an assignment to it (`v = e`,
//     `v += e`, `std::tie(a, b) = e` for each variable named on the left);
//   - the arguments of an in-place tensor method on it (`v.add_(e)`) and of a
//     non-const method of a container that may hold tensors (`v.push_back(e)`);
//   - the range of a range-for loop, for its loop variable (rangeOf).
// What counts as a modification after the declaration: all of the above but
// the initialiser (not an in-place method without arguments, `v.relu_()`,
// which brings no value in), `++`/`--`, and handing the variable by non-const lvalue
// reference to a call (not a forward pass, nor a template whose parameters
// forward): what the callee stores there is unknown (isOpaquelyModified).
//
// Flow-insensitive: order questions go to the body's ExecutionOrder
// (FunctionFacts::order()). Lambdas spelled in the body are walked too.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_DEFUSE_H
#define LIBTORCH_TIDY_CHECKS_UTILS_DEFUSE_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch_check {

class DefUse {
public:
  /// Fills a DefUse from the nodes of a body in the order of a walk of it
  /// (FunctionFacts::defUse() hands it the nodes its one walk kept).
  class Recorder {
  public:
    explicit Recorder(DefUse &F) : F(F) {}
    /// A variable's declaration (its initialiser is a source).
    void variable(const VarDecl *VD);
    /// A statement: a range-for, an assignment, `++`/`--`, a call; other
    /// statements record nothing.
    void statement(const Stmt *S);

  private:
    void rangeFor(const CXXForRangeStmt *RF);
    void binaryOperator(const BinaryOperator *BO);
    void unaryOperator(const UnaryOperator *UO);
    void call(const CallExpr *Call);
    /// Every variable named in \p Target (a variable, std::tie(a, b),
    /// obj.member) may get its value from \p Source(s). \p PlainAssignment
    /// is the `v = expr` expression when this is one.
    void noteModified(const Stmt *Site, const Expr *Target, const Expr *Source,
                      const Expr *PlainAssignment = nullptr);
    void noteModified(const Stmt *Site, const Expr *Target, llvm::ArrayRef<const Expr *> Sources,
                      const Expr *PlainAssignment = nullptr);
    DefUse &F;
  };

  /// The variable \p E names: a local, parameter or global (a structured
  /// binding resolves to the variable it decomposes); looks through
  /// parentheses and implicit casts only. Null otherwise.
  static const VarDecl *variableNamed(const Expr *E);

  /// The expressions \p VD's value comes from (see the file comment).
  llvm::ArrayRef<const Expr *> sources(const VarDecl *VD) const { return find(Sources, VD); }
  /// Every variable with a source, with its sources.
  const llvm::DenseMap<const VarDecl *, llvm::SmallVector<const Expr *, 2>> &allSources() const {
    return Sources;
  }
  /// \p VD is assigned or modified after its declaration.
  bool isModified(const VarDecl *VD) const { return Modified.contains(VD); }
  /// The plain whole assignments `v = e` to \p VD: the assignment and e.
  llvm::ArrayRef<std::pair<const Expr *, const Expr *>> assignments(const VarDecl *VD) const {
    return find(Assignments, VD);
  }
  /// \p VD is modified in a way other than a plain whole assignment.
  bool isOtherwiseModified(const VarDecl *VD) const { return OtherwiseModified.contains(VD); }
  /// Where \p VD is modified after its declaration (assignments, in-place
  /// calls, insertions, calls taking it by non-const reference).
  llvm::ArrayRef<const Stmt *> modificationSites(const VarDecl *VD) const {
    return find(ModSites, VD);
  }
  /// \p VD is handed by non-const reference to a call.
  bool isOpaquelyModified(const VarDecl *VD) const { return OpaquelyModified.contains(VD); }
  /// \p VD is the variable of a range-for loop.
  bool isRangeVariable(const VarDecl *VD) const { return RangeOf.count(VD) != 0; }
  /// The range a range-for loop variable iterates (null when it has none).
  const Expr *rangeOf(const VarDecl *VD) const { return RangeOf.lookup(VD); }

private:
  template <typename Map>
  static auto find(const Map &M, const VarDecl *VD)
      -> llvm::ArrayRef<typename Map::mapped_type::value_type> {
    auto It = M.find(VD);
    if (It == M.end())
      return {};
    return It->second;
  }

  llvm::DenseMap<const VarDecl *, llvm::SmallVector<const Expr *, 2>> Sources;
  llvm::SmallPtrSet<const VarDecl *, 8> Modified;
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<std::pair<const Expr *, const Expr *>, 2>>
      Assignments;
  llvm::SmallPtrSet<const VarDecl *, 8> OtherwiseModified;
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<const Stmt *, 2>> ModSites;
  llvm::SmallPtrSet<const VarDecl *, 8> OpaquelyModified;
  llvm::DenseMap<const VarDecl *, const Expr *> RangeOf;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_DEFUSE_H
