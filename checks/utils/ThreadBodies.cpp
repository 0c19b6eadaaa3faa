//===--- ThreadBodies.cpp - libtorch-tidy ---------------------------------===//

#include "ThreadBodies.h"
#include "GradGuards.h"

#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace clang::tidy::torch_check {

static bool isThreadClass(const CXXRecordDecl *RD) {
  return RD && RD->isInStdNamespace() && RD->getIdentifier() &&
         (RD->getName() == "thread" || RD->getName() == "jthread");
}

// A thread pool by its class name: the name (or the name of a class it is
// nested in, as boost::asio::thread_pool::executor_type), lower-cased and
// without underscores, contains "threadpool" or "workerpool":
// boost::asio::thread_pool, BS::thread_pool, progschj's ThreadPool,
// folly::CPUThreadPoolExecutor, c10::ThreadPool, ctpl::thread_pool. An
// executor that is not a pool by its name (folly::InlineExecutor runs the task
// on the calling thread) is not one.
static bool isThreadPoolClass(const CXXRecordDecl *RD) {
  for (const DeclContext *DC = RD; DC; DC = DC->getParent()) {
    const auto *R = dyn_cast<CXXRecordDecl>(DC);
    if (!R)
      break;
    if (!R->getIdentifier())
      continue;
    std::string Name;
    for (char C : R->getName())
      if (C != '_')
        Name += static_cast<char>(llvm::toLower(C));
    if (StringRef(Name).contains("threadpool") || StringRef(Name).contains("workerpool"))
      return true;
  }
  return false;
}

static const CXXRecordDecl *classOf(const Expr *E) {
  if (!E)
    return nullptr;
  QualType T = E->getType();
  if (T->isPointerType())
    T = T->getPointeeType();
  return T->getAsCXXRecordDecl(); // pool->submit(...): the pointee, also through a smart pointer's operator->
}

// The member functions of a thread pool that run their callable argument on
// one of the pool's threads.
static bool isPoolSubmit(StringRef Name) {
  return llvm::is_contained({"enqueue", "submit", "submit_task", "detach_task", "push", "push_task", "post",
                             "run", "execute", "add", "add_task", "schedule", "spawn", "async", "commit"},
                            Name);
}

// boost::asio::post / dispatch / defer (or standalone asio's) to a thread pool
// or its executor.
static bool isAsioPostToPool(const CallExpr *Call, const FunctionDecl *FD) {
  if (!FD->getIdentifier() || !llvm::is_contained({"post", "dispatch", "defer"}, FD->getName()) ||
      Call->getNumArgs() < 2)
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(FD->getEnclosingNamespaceContext());
  if (!NS || !NS->getIdentifier() || NS->getName() != "asio")
    return false;
  return isThreadPoolClass(classOf(Call->getArg(0)->IgnoreParenImpCasts()));
}

/// True when the std::async call \p Call names the policy std::launch::deferred
/// alone (not combined with std::launch::async).
static bool isDeferredPolicy(const CallExpr *Call) {
  if (Call->getNumArgs() == 0)
    return false;
  const auto *DRE = dyn_cast<DeclRefExpr>(Call->getArg(0)->IgnoreParenImpCasts());
  const auto *E = DRE ? dyn_cast<EnumConstantDecl>(DRE->getDecl()) : nullptr;
  return E && E->getIdentifier() && E->getName() == "deferred";
}

const LambdaExpr *threadBodyLambda(const Stmt *S, const ParentMap &PM, bool OwnThreadOnly) {
  const LambdaExpr *L = nullptr;
  for (const Stmt *P = PM.getParent(S); P; P = PM.getParent(P))
    if ((L = dyn_cast<LambdaExpr>(P)))
      break;
  if (!L)
    return nullptr;
  const Stmt *Cur = L;
  for (const Stmt *P = PM.getParent(Cur); P; Cur = P, P = PM.getParent(P)) {
    if (isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr, ParenExpr,
            CXXFunctionalCastExpr>(P))
      continue;
    if (const auto *CE = dyn_cast<CXXConstructExpr>(P)) {
      if (isThreadClass(CE->getConstructor()->getParent()))
        return L;
      continue; // a std::function or a copy of the closure
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(P)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      // pool.enqueue(lambda), pool->submit_task(lambda) on a thread pool.
      if (!OwnThreadOnly && MD && MD->getIdentifier() && isPoolSubmit(MD->getName()) &&
          (isThreadPoolClass(MD->getParent()) || isThreadPoolClass(classOf(MC->getImplicitObjectArgument()))))
        return L;
      // workers.emplace_back(lambda) on a container of threads.
      const auto *Spec = MC->getImplicitObjectArgument()
                             ? dyn_cast_or_null<ClassTemplateSpecializationDecl>(
                                   MC->getImplicitObjectArgument()->getType()->getAsCXXRecordDecl())
                             : nullptr;
      if (MD && MD->getIdentifier() && Spec && Spec->getTemplateArgs().size() > 0 &&
          Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type &&
          (MD->getName() == "emplace_back" || MD->getName() == "emplace" ||
           MD->getName() == "emplace_front") &&
          isThreadClass(Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl()))
        return L;
      return nullptr;
    }
    if (const auto *Call = dyn_cast<CallExpr>(P)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (FD && FD->isInStdNamespace() && FD->getIdentifier()) {
        if (FD->getName() == "async" && !OwnThreadOnly)
          // std::launch::deferred runs the task on the thread that calls
          // get() or wait(): not another thread.
          return isDeferredPolicy(Call) ? nullptr : L;
        if (FD->getName() == "move")
          continue;
      }
      if (!OwnThreadOnly && FD && isAsioPostToPool(Call, FD))
        return L;
    }
    return nullptr;
  }
  return nullptr;
}

bool isGradDisabledInThreadBody(const Stmt *S, const LambdaExpr *L, const ASTContext &Ctx) {
  ParentMap BodyPM(L->getBody());
  return isGradDisabledAt(S, BodyPM, Ctx);
}

const VarDecl *enclosingGradGuard(const Stmt *S, const ParentMap &PM, const ASTContext &Ctx) {
  const Stmt *Cur = S;
  for (const Stmt *P = PM.getParent(Cur); P; Cur = P, P = PM.getParent(P)) {
    const auto *Block = dyn_cast<CompoundStmt>(P);
    if (!Block)
      continue;
    const VarDecl *Found = nullptr;
    for (const Stmt *Child : Block->body()) {
      if (Child == Cur)
        break;
      if (const auto *DS = dyn_cast<DeclStmt>(Child))
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D); VD && guardVarEffect(VD, Ctx) == GradEffect::Disables)
            Found = VD;
    }
    if (Found)
      return Found;
  }
  return nullptr;
}

} // namespace clang::tidy::torch_check
