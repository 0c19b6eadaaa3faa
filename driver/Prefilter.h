//===--- Prefilter.h - Does a translation unit involve LibTorch? ----------===//
//
// A fast textual scan, no preprocessing: the file's #include directives, and
// those of the project headers it includes, transitively. A header is a
// project header when it resolves in the includer's directory or an -I/-iquote
// directory of the compile command (never -isystem or the compiler's own
// directories). An include spelled torch/..., ATen/..., c10/... or caffe2/...
// is LibTorch. Conditional compilation is ignored (an include under #if counts)
// and an include through a macro counts as LibTorch: when the scan cannot
// tell, the translation unit is analysed.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_PREFILTER_H
#define LIBTORCH_TIDY_DRIVER_PREFILTER_H

#include "CompileDatabase.h"
#include "llvm/ADT/StringMap.h"
#include <memory>
#include <string>
#include <vector>

namespace libtorch_tidy {

struct IncludeScan {
  bool UsesLibTorch = false;
  std::string Evidence;                  // "a.h includes <torch/torch.h>"
  std::vector<std::string> ProjectFiles; // the TU's file and every project header reached
};

class IncludeScanner {
public:
  IncludeScan scan(const CompileCommand &Command);

private:
  struct Directive {
    std::string Name;
    bool Angled = false;
    bool Macro = false;
  };
  const std::vector<Directive> &directives(const std::string &File);
  llvm::StringMap<std::vector<Directive>> Cache;
};

/// True for an include name of LibTorch: torch/, ATen/, c10/, caffe2/.
bool isLibTorchInclude(llvm::StringRef Name);

} // namespace libtorch_tidy

#endif
