//===--- FunctionFacts.h - libtorch-tidy ------------------------*- C++ -*-===//
//
// What one function body does, gathered in one walk (FunctionFacts), and the
// helpers that say which variable an expression names and which argument a
// parameter receives.
//
// Design:
//   - One walk of the body gathers its facts: forward passes, losses,
//     backward / autograd::grad, optimizer steps, zero_grad, grad-mode guards
//     and set_enabled, eval() / train(), in-place tensor writes (t.add_(x),
//     t += x, indexed assignment `k[0] = f(x)`), views, container inserts,
//     device syncs, host clock readings, TorchScript loads, and calls of the
//     user's functions (keyed by their template pattern: Callees.h's
//     patternKey), the names it calls or constructs, the overloaded operators
//     it spells, whether it spells a lambda or constructs an optimizer, and
//     every call and construction (calls()), so that a check asking about
//     calls alone needs no walk of its own. The walk includes the lambdas
//     spelled in the body (marked InLambda). The same walk indexes the
//     body's variables (each one's references and declaration, the lambdas
//     spelled in it, the data members named: references, declaration,
//     lambdas, memberReferences), records every named declaration
//     (namedDeclarations) and keeps every node it meets, in order, each
//     statement's with the end of its subtree (nodes, nodeIndex): the other
//     analyses of a body, and the queries on one of its expressions, read
//     them instead of walking it again.
//     It is the only walk of a body (checks/utils/README.md, "One walk of a
//     body"); a constructor's member initialisers, outside the body, are
//     recorded on first use by the same node recorder (initializerNodes).
//   - The body's parent map (parents), execution order (order: the CFGs of
//     the body and of the lambda bodies spelled in it, ExecutionOrder.h),
//     definitions per variable (defUse: DefUse.h, read from the nodes) and
//     guards (isGuarded: GradGuards.h) are built on first use and kept with
//     the facts.
//   - The analysis core (AnalysisCore.h) builds the facts of a function once,
//     when a check first asks, and shares them; the call graph (CallGraph.h)
//     and the summaries (Summaries.h) are built from them.
//   - One helper per question: which variable an expression names
//     (namedVariable), which variable's storage it writes (storageVariable),
//     which argument a parameter receives (Callees.h: argumentFor,
//     parameterIndexFor).
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_FUNCTIONFACTS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_FUNCTIONFACTS_H

#include "Callees.h"
#include "DefUse.h"
#include "ExecutionOrder.h"
#include "GradGuards.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <bitset>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace clang::tidy::torch_check {

/// One thing a function body does that a check may ask about.
struct Fact {
  enum Kind {
    Forward,         ///< a module's forward pass (isForwardCall)
    Loss,            ///< a LibTorch loss function (isLossFunctionCall)
    Backward,        ///< tensor.backward(), torch::autograd::backward
    Grad,            ///< torch::autograd::grad
    Step,            ///< optimizer.step()
    ZeroGrad,        ///< optimizer.zero_grad(), module->zero_grad()
    GradOff,         ///< NoGradGuard / InferenceMode / AutoGradMode(false) / set_enabled(false)
    GradOn,          ///< AutoGradMode(true) / set_enabled(true)
    GradUnknown,     ///< a guard or set_enabled whose argument is not a constant
    Eval,            ///< module.eval(), module.train(false)
    Train,           ///< module.train(), train(true), train(x)
    InPlace,         ///< t.add_(x), t.copy_(x), t += x: writes Object's storage
    IndexedAssign,   ///< k[0] = f(x), k.index({...}) = f(x), k.index_put_({...}, f(x)):
                     ///< writes Object's storage
    View,            ///< t.view(...), t.select(...), t[0]: a view of Object
    ContainerInsert, ///< v.push_back(x), m.insert(...), m.emplace(...)
    Sync,            ///< t.item(), t.cpu(), t.to(kCPU), `os << t`, torch::cuda::synchronize(),
                     ///< a CUDA stream's or event's synchronize(), cudaDeviceSynchronize()
    EmptyCache,      ///< CUDACachingAllocator::emptyCache()
    Load,            ///< torch::jit::load(...)
    UserCall,        ///< a call of a function defined in the translation unit
    ClockRead,       ///< std::chrono::steady_clock::now() (any std clock), clock()
    ParamsFrozen,    ///< `for (auto &p : m->parameters()) p.requires_grad_(false);`:
                     ///< the range-for; Object is the module
    ParamsThawed,    ///< the same loop with requires_grad_(true)
    Release,         ///< `delete p`, `delete[] p`, `free(p)` (the C library's): releases the
                     ///< memory p points to; Object is p
  };
  Kind K;
  /// The call, operator call or variable declaration.
  const Stmt *S;
  /// The object acted on (the module, optimizer, tensor or container), with
  /// `->`, `*`, parentheses and casts stripped; null when none.
  const Expr *Object = nullptr;
  /// The variable or member Object names (storageVariable); null when none.
  const ValueDecl *ObjectDecl = nullptr;
  /// The value written or inserted (IndexedAssign, InPlace, ContainerInsert).
  const Expr *Value = nullptr;
  /// UserCall: the callee's key (SummaryTable::key: the template pattern's
  /// canonical declaration); its definition is Definition.
  const FunctionDecl *Callee = nullptr;
  const FunctionDecl *Definition = nullptr;
  /// Spelled inside a lambda of the body (runs where the lambda is called).
  bool InLambda = false;
};

/// A call or a construction spelled in a body (FunctionFacts::calls).
struct CallSite {
  /// A CallExpr (member and overloaded-operator calls included, and in a
  /// template the calls not yet resolved) or a CXXConstructExpr (a variable's,
  /// a temporary's, `T(x)`, the one inside `new`).
  const Expr *E;
  /// Spelled inside a lambda of the body (runs where the lambda is called).
  bool InLambda;
};

class FunctionFacts;
/// The facts of a function's definition, as the analysis core hands them to
/// the analyses it owns (AnalysisCore::factsLookup).
using FactsLookup = std::function<const FunctionFacts &(const FunctionDecl *)>;

/// The facts of one function body, in the order the walk meets them (source
/// order; use order() for execution order).
class FunctionFacts {
public:
  FunctionFacts(const FunctionDecl *FD, ASTContext &Ctx);

  const FunctionDecl *function() const { return FD; }
  const Stmt *body() const { return Body; }
  llvm::ArrayRef<Fact> all() const { return Facts; }
  /// The facts of kind \p K.
  llvm::SmallVector<const Fact *, 4> of(Fact::Kind K) const;
  bool has(Fact::Kind K) const;
  /// The fact recorded for \p S, or null.
  const Fact *factFor(const Stmt *S, Fact::Kind K) const;

  /// True when the body (its lambdas included) calls a function or method,
  /// or constructs an object of a class, whose own name \p Pred accepts: the
  /// name of its declaration (`from_blob`, `register_hook`, `set_enabled`),
  /// resolved or, in a template, not yet resolved. A check whose every
  /// finding needs such a call asks this first and skips the body otherwise
  /// (no loop over calls(), no walk of its own).
  bool callsNamed(llvm::function_ref<bool(llvm::StringRef)> Pred) const;
  bool callsNamed(llvm::StringRef Name) const {
    return callsNamed([Name](llvm::StringRef N) { return N == Name; });
  }
  /// True when the body calls a function that an analysis following calls
  /// would enter: one defined in the translation unit (followableCallee) or,
  /// through its linked summary, in another (externalCallee).
  bool followsCalls() const { return FollowsCalls; }
  /// True when the body (its lambdas included) spells an overloaded operator
  /// call of kind \p Op (`t += x`, `c[k] = v`, `m(x)`), resolved or, in a
  /// template, not yet resolved.
  bool usesOperator(OverloadedOperatorKind Op) const { return Operators.test(Op); }
  /// True when the body spells a lambda.
  bool spellsLambda() const { return !Names.Lambdas.empty(); }
  /// True when the body constructs an optimizer (a class derived from
  /// torch::optim::Optimizer, by its constructor with arguments, `new`, or
  /// std::make_unique / std::make_shared).
  bool constructsOptimizer() const { return Shape.OptimizerConstruction; }

  /// The references to \p VD in the body (its lambdas' and its local
  /// classes' included), in the order the walk meets them: the DeclRefExprs
  /// naming it as written (an explicit lambda capture, `[v]`, included).
  /// Not included, as the walk does not visit them: the implicit ones (the
  /// captures of `[&]` and `[=]`, a range-for's hidden variables, default
  /// arguments).
  llvm::ArrayRef<const DeclRefExpr *> references(const VarDecl *VD) const {
    auto It = Names.References.find(VD);
    return It == Names.References.end() ? llvm::ArrayRef<const DeclRefExpr *>() : It->second;
  }
  /// The statement that declares \p VD, a variable declared in the body;
  /// null for a parameter or a variable declared elsewhere.
  const DeclStmt *declaration(const VarDecl *VD) const { return Names.Declarations.lookup(VD); }
  /// Every variable a statement of the body declares (its lambdas' and local
  /// classes' included), with that statement.
  const llvm::DenseMap<const VarDecl *, const DeclStmt *> &declarations() const {
    return Names.Declarations;
  }
  /// The data members (fields and static members) the body names through a
  /// member expression (`x.m`, `p->m`, `m` in a method), each with its
  /// member expressions in the order the walk meets them; members in the
  /// order of their first reference. Methods are not included.
  const llvm::MapVector<const ValueDecl *, llvm::SmallVector<const MemberExpr *, 2>> &
  memberReferences() const {
    return Names.Members;
  }
  /// The lambdas spelled in the body, in the order the walk meets them (an
  /// outer lambda before the lambdas spelled in it).
  llvm::ArrayRef<const LambdaExpr *> lambdas() const { return Names.Lambdas; }

  /// One node of the body as the walk meets it: a statement (expressions
  /// included) or a variable's declaration (every variable the body declares:
  /// those of its statements, its lambdas' and local classes' parameters,
  /// catch parameters, init-captures), with the innermost lambda of the
  /// body it is spelled in (null: the body itself; a lambda expression's own
  /// node belongs to the body or lambda it is spelled in).
  struct Node {
    const Stmt *S = nullptr;
    const VarDecl *Var = nullptr;
    const LambdaExpr *Lambda = nullptr;
    /// For a statement: one past the last node of its subtree (the nodes
    /// the walk met below it follow it, up to here). A query on one
    /// expression reads [its index, End) and skips a subtree it prunes by
    /// jumping to that node's End. Unset (0) for a variable's node.
    unsigned End = 0;
  };
  /// Every statement and variable declaration of the body, in the order the
  /// walk meets them (pre-order; lambdas' and local classes' bodies
  /// included; not template instantiations nor implicit code). An analysis
  /// that needs nodes the facts do not classify reads them here instead of
  /// walking the body again: same nodes, same order.
  llvm::ArrayRef<Node> nodes() const { return Names.Nodes; }
  /// Every declaration with a name the body spells, in the walk's order:
  /// its variables, its lambdas' parameters, local classes and their
  /// members, type aliases (not labels: a label takes no variable's name).
  /// What a fix-it's new name must not be.
  llvm::ArrayRef<const NamedDecl *> namedDeclarations() const { return Names.Named; }
  /// The nodes of a constructor's written member initialisers, walked as
  /// nodes() walks the body, on first use (none for other functions). The
  /// facts do not cover them.
  llvm::ArrayRef<Node> initializerNodes() const;
  /// Where \p S's own node is in nodes() (its subtree runs to its End), or
  /// std::nullopt when the walk did not meet it (implicit code, a statement
  /// outside the body). The index is built on first use.
  std::optional<unsigned> nodeIndex(const Stmt *S) const;

  /// The body's variables as the walk meets them (references, declaration,
  /// lambdas above).
  struct NameIndex {
    llvm::DenseMap<const VarDecl *, llvm::SmallVector<const DeclRefExpr *, 4>> References;
    llvm::DenseMap<const VarDecl *, const DeclStmt *> Declarations;
    llvm::MapVector<const ValueDecl *, llvm::SmallVector<const MemberExpr *, 2>> Members;
    llvm::SmallVector<const LambdaExpr *, 2> Lambdas;
    std::vector<Node> Nodes;
    std::vector<const NamedDecl *> Named;
  };

  /// What the walk notes about the body as a whole.
  struct BodyShape {
    bool FreezesParameters = false; ///< a ParamsFrozen fact (runsFrozen's pretest)
    bool OptimizerConstruction = false;
  };

  /// The calls of the user's functions (CallGraph.h's isUserFunction, the
  /// callee's canonical declaration), virtual ones included, in the order
  /// the walk meets them: what CallGraph::collect records.
  llvm::ArrayRef<std::pair<const CallExpr *, const FunctionDecl *>> userFunctionCalls() const {
    return UserFunctionCalls;
  }

  /// Every call and construction the walk meets, in its order (pre-order:
  /// an outer call before the calls in its arguments): those of the body, of
  /// the lambdas spelled in it (InLambda) and of the methods of its local
  /// classes. Not included, as the walk does not visit them: template
  /// instantiations (a template's body is seen as written), implicit code
  /// (default arguments, default member initialisers, implicit constructors
  /// and destructors), destructor calls, and `new` / `delete` themselves (the
  /// construction inside a `new` is included). A check that needs only such
  /// calls reads them here instead of walking the body again.
  llvm::ArrayRef<CallSite> calls() const { return Calls; }

  /// The parent map of the body (built on first use).
  const ParentMap &parents() const;
  /// The execution order of the body and of its lambda bodies (their CFGs,
  /// each built on first use).
  const ExecutionOrder &order() const;
  /// Where the body's variables get their values (DefUse.h, read from
  /// nodes() on first use).
  const DefUse &defUse() const;
  /// True when autograd is (or may be) off where \p S runs
  /// (isGradDisabledAt; memoised).
  bool isGuarded(const Stmt *S) const;
  /// True when \p Call (a forward pass, or a call of the user's method on a
  /// module: `actor->dist(s)`) runs a module whose every parameter the body
  /// has switched to requires_grad(false) before it (a ParamsFrozen loop
  /// over its parameters, spelled earlier in the same code body, not
  /// followed by a ParamsThawed one): with its parameters frozen and data
  /// for input, the module records no graph.
  bool runsFrozen(const Stmt *Call) const;
  /// True when \p S runs when the body runs: it is not in the body of a
  /// lambda spelled in the body, or every lambda around it is one the body
  /// runs itself (runsLambda). A fact with InLambda set counts as the
  /// body's exactly when this holds for its statement.
  bool runsInBody(const Stmt *S) const;
  /// True when the body runs \p L (a lambda spelled in it) before it
  /// returns: called where it is spelled (`[&] { ... }()`), called through
  /// the local variable it initialises (`auto f = [&] { ... }; f();`, a
  /// std::function too), or handed, either way, to an optimizer's step()
  /// (the closure LBFGS calls) or to a standard algorithm that calls it
  /// (std::for_each, std::transform, std::sort, std::invoke, ...). A lambda
  /// stored, returned, handed to a thread, a hook or another function is
  /// not run here. Memoised.
  bool runsLambda(const LambdaExpr *L) const;

private:
  const FunctionDecl *FD;
  const Stmt *Body;
  ASTContext &Ctx;
  std::vector<Fact> Facts;
  std::vector<CallSite> Calls;
  llvm::SmallPtrSet<const IdentifierInfo *, 16> CalleeNames;
  llvm::SmallVector<std::pair<const CallExpr *, const FunctionDecl *>, 4> UserFunctionCalls;
  bool FollowsCalls = false;
  std::bitset<NUM_OVERLOADED_OPERATORS> Operators;
  BodyShape Shape;
  NameIndex Names;
  mutable std::unique_ptr<ParentMap> PM;
  mutable std::unique_ptr<std::vector<Node>> Initializers;
  mutable std::unique_ptr<llvm::DenseMap<const Stmt *, unsigned>> NodeIndex;
  mutable std::unique_ptr<ExecutionOrder> Order;
  mutable std::unique_ptr<DefUse> Defs;
  mutable std::unique_ptr<GradGuardCache> Guards;
  mutable llvm::DenseMap<const LambdaExpr *, bool> RunLambdas;
};

/// \p E without parentheses, implicit casts, temporaries, copies and moves,
/// functional casts, and `*`/`->` of pointers and smart pointers.
const Expr *stripCopies(const Expr *E);

/// The variable, parameter or data member (of `this`) \p E names, looking
/// through parentheses, implicit casts, copies and `*`/`->` of pointers and
/// smart pointers; null when \p E is not such a name.
const ValueDecl *namedVariable(const Expr *E);

/// The variable whose storage \p E denotes: LoopVariables.h's storageOf
/// (subscripts, members of a named object, std::get, `*p`), looking first
/// through tensor views (`k.select(0, i)`, `k.index({...})`, `k.narrow(...)`).
/// Null when it is not a name.
const ValueDecl *storageVariable(const Expr *E);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_FUNCTIONFACTS_H
