//===--- Verify.cpp - libtorch-tidy ---------------------------------------===//

#include "Verify.h"
#include "AtomicWrite.h"
#include "CompileDatabase.h"
#include "Findings.h"
#include "Fixes.h"
#include "Process.h"
#include "CrashIsolation.h"
#include "TidyRunner.h"
#include "Project.h"
#include "Series.h"
#include "Toolchain.h"
#include "VerifyConfig.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>

extern char **environ;

namespace cl = llvm::cl;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace libtorch_tidy::verify {

VerifySubCommand Command("verify",
                       "Prove the memory fix-its on a program: fix a copy, run both, compare "
                       "memory per iteration");

static cl::OptionCategory Category("verify options");
static cl::opt<std::string> File(cl::Positional, cl::desc("<file with main()>"), cl::sub(Command),
                                 cl::cat(Category));
static cl::opt<std::string> TargetName("target",
                                       cl::desc("verify this executable target of the CMake build "
                                                "given with -p: its sources that hold findings are "
                                                "copied, fixed and linked with its other objects"),
                                       cl::value_desc("name"), cl::sub(Command), cl::cat(Category));
static cl::opt<std::string> BuildDir("p", cl::desc("build directory with compile_commands.json"),
                                     cl::value_desc("dir"), cl::sub(Command), cl::cat(Category));
static cl::opt<unsigned> Iterations("iterations",
                                    cl::desc("iterations of the instrumented loop to run"),
                                    cl::init(60), cl::sub(Command), cl::cat(Category));
static cl::opt<std::string> Device("device", cl::desc("cpu or cuda (default: cpu)"),
                                   cl::init("cpu"), cl::sub(Command), cl::cat(Category));
static cl::opt<std::string> JsonOut("json", cl::desc("write the results as JSON"),
                                    cl::value_desc("file"), cl::sub(Command), cl::cat(Category));
static cl::opt<std::string> PlotOut("plot", cl::desc("write an SVG of memory per iteration"),
                                    cl::value_desc("file.svg"), cl::sub(Command),
                                    cl::cat(Category));
static cl::opt<unsigned> Timeout("timeout",
                                 cl::desc("wall-clock seconds each step may run: clang-tidy, the "
                                          "instrumenter, each compile and link, each run of the "
                                          "program; past it the step's whole process group is "
                                          "killed (default 300)"),
                                 cl::init(300), cl::sub(Command), cl::cat(Category));
static cl::opt<unsigned> MemoryLimit(
    "memory-limit",
    cl::desc("address space of each run of the program in MiB (RLIMIT_AS); 0: none (default "
             "32768 with --device cpu, none with --device cuda, whose driver reserves more "
             "address space than the GPU has)"),
    cl::value_desc("MiB"), cl::sub(Command), cl::cat(Category));
static cl::opt<std::string> WorkDir("work-dir",
                                    cl::desc("where verify creates its work directory, the only "
                                             "place it writes besides --json and --plot (default: "
                                             "$TMPDIR, else /tmp)"),
                                    cl::value_desc("dir"), cl::sub(Command), cl::cat(Category));
static cl::opt<std::string> CxxOpt("cxx",
                                   cl::desc("the C++ compiler that builds the copies (default: "
                                            "the one libtorch-tidy was built with)"),
                                   cl::value_desc("path"), cl::sub(Command), cl::cat(Category));
static cl::opt<std::string> InstrumentOpt("instrument",
                                          cl::desc("the libtorch-tidy-instrument to use (default: "
                                                   "the one beside libtorch-tidy)"),
                                          cl::value_desc("path"), cl::sub(Command),
                                          cl::cat(Category));
static cl::opt<bool> KeepTemp("keep-temp", cl::desc("keep the temporary directory"),
                              cl::sub(Command), cl::cat(Category));
static cl::opt<std::string> ClangTidyOpt("clang-tidy", cl::desc("the clang-tidy to use"),
                                         cl::sub(Command), cl::cat(Category));

/// The checks whose mistakes grow memory per iteration.
static constexpr const char *MemoryChecks[] = {
    "torch-accumulated-history", "torch-carried-history", "torch-eval-without-no-grad",
    "torch-history-in-container", "torch-unneeded-retain-graph"};

namespace {

/// A finding of the driver's findings model (Findings.h) and the
/// instrumented loop that holds it.
struct Finding : libtorch_tidy::Finding {
  std::string Label;     ///< the instrumented loop, "" when none holds it
  unsigned LoopLine = 0; ///< the loop's first line: its probe site is "function:LoopLine"
};

/// Runs a step of verify: \p Args (Args[0] found on PATH if not a path) in
/// \p Dir with extra environment \p Env, under \p Limits (Process.h: its
/// own process group, killed whole on timeout or interrupt); its output kept
/// in the work directory \p Temp. Why it did not exit by itself (a crash,
/// the timeout) ends the output, for firstErrorLine.
ProcessResult runStep(const std::vector<std::string> &Args, llvm::StringRef Dir,
                      const std::vector<std::string> &Env, ProcessOptions Limits,
                      llvm::StringRef Temp) {
  Limits.Directory = Dir.str();
  Limits.Env = Env;
  Limits.OutputDir = Temp.str();
  ProcessResult R = runProcess(Args.front(), Args, Limits);
  if (!R.Error.empty() && !R.Interrupted)
    R.Output += "\n" + R.Error;
  return R;
}

/// The exit status, or minus the signal that ended it.
int returnCode(const ProcessResult &R) { return R.Signal ? -R.Signal : R.ExitCode; }

/// The limits of a tool's run (clang-tidy, the instrumenter, the compiler).
ProcessOptions toolLimits(unsigned Seconds) {
  ProcessOptions L;
  L.TimeoutSeconds = Seconds;
  return L;
}

std::string firstErrorLine(llvm::StringRef Output) {
  llvm::SmallVector<llvm::StringRef, 32> Lines;
  Output.split(Lines, '\n');
  // The linker's own line names the missing symbol; collect2's summary does not.
  for (llvm::StringRef Needle : {"undefined reference", "error:"})
    for (llvm::StringRef L : Lines)
      if (L.contains(Needle) && !L.contains("ld returned"))
        return L.trim().str();
  for (auto It = Lines.rbegin(); It != Lines.rend(); ++It)
    if (!It->trim().empty())
      return It->trim().str();
  return "(no output)";
}

std::string absolute(llvm::StringRef P) {
  llvm::SmallString<256> Abs(P);
  fs::make_absolute(Abs);
  path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}

std::string humanBytes(double B) {
  double A = B < 0 ? -B : B;
  if (A >= 1024.0 * 1024.0)
    return llvm::formatv("{0:F2} MiB", B / (1024.0 * 1024.0)).str();
  if (A >= 1024.0)
    return llvm::formatv("{0:F1} KiB", B / 1024.0).str();
  return llvm::formatv("{0:F0} B", B).str();
}

struct Outcome {
  Finding F;
  LoopStats Before, After;
  std::string Verdict;
};

/// What grew per iteration in the original program (the runtime's evidence:
/// allocation sites, autograd node types) and whether the fix removed it;
/// "" when the original did not grow or the runtime named nothing.
std::string evidenceText(const Outcome &O, size_t Max = 3) {
  if (!O.Before.Growing || O.Before.Evidence.empty())
    return "";
  std::vector<Grown> Still;
  for (const auto &[G, Remains] : grownAfterFix(O.Before, O.After))
    if (Remains)
      Still.push_back(G);
  std::string Text = grownText(O.Before.Evidence, Max);
  if (!O.After.Present)
    return Text;
  if (Still.empty())
    return Text + ": gone after the fix";
  return Text + ": still after the fix: " + grownText(Still, Max);
}

std::string xmlEscape(llvm::StringRef S) {
  std::string Out;
  for (char C : S) {
    if (C == '<')
      Out += "&lt;";
    else if (C == '>')
      Out += "&gt;";
    else if (C == '&')
      Out += "&amp;";
    else
      Out += C;
  }
  return Out;
}

void writeSvg(llvm::raw_ostream &OS, const std::vector<Outcome> &Outcomes) {
  std::vector<const Outcome *> Panels;
  std::vector<std::string> Seen;
  for (const Outcome &O : Outcomes)
    if (!O.F.Label.empty() && !llvm::is_contained(Seen, O.F.Label)) {
      Seen.push_back(O.F.Label);
      Panels.push_back(&O);
    }
  const int W = 760, PH = 296, M = 70;
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\""
     << PH * std::max<size_t>(1, Panels.size()) << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  OS << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  for (size_t P = 0; P < Panels.size(); ++P) {
    const Outcome &O = *Panels[P];
    int Top = int(P) * PH + 46, Bottom = int(P + 1) * PH - 40, Left = M, Right = W - 20;
    double MaxY = 1, MaxX = 1;
    for (const auto *S : {&O.Before.Samples, &O.After.Samples})
      for (const Sample &X : *S) {
        MaxY = std::max(MaxY, X.LiveBytes);
        MaxX = std::max(MaxX, double(X.Iteration));
      }
    auto PX = [&](double X) { return Left + (Right - Left) * X / MaxX; };
    auto PY = [&](double Y) { return Bottom - (Bottom - Top) * Y / MaxY; };
    std::string Checks;
    for (const Outcome &Other : Outcomes)
      if (Other.F.Label == O.F.Label && !llvm::StringRef(Checks).contains(Other.F.Check))
        Checks += (Checks.empty() ? "" : ", ") + Other.F.Check;
    OS << "<text x=\"" << Left << "\" y=\"" << Top - 26 << "\" font-weight=\"bold\">"
       << O.F.Label << " (" << Checks << "): " << O.Verdict << "</text>\n";
    // What grew before the fix (the runtime's evidence), and whether it is gone.
    std::string Grew;
    for (const Outcome &Other : Outcomes)
      if (Other.F.Label == O.F.Label && Grew.empty())
        Grew = evidenceText(Other, 2); // the panel's width
    if (!Grew.empty())
      OS << "<text x=\"" << Left << "\" y=\"" << Top - 10 << "\" font-size=\"11\">grew: "
         << xmlEscape(Grew) << "</text>\n";
    OS << "<line x1=\"" << Left << "\" y1=\"" << Bottom << "\" x2=\"" << Right << "\" y2=\""
       << Bottom << "\" stroke=\"black\"/>\n";
    OS << "<line x1=\"" << Left << "\" y1=\"" << Top << "\" x2=\"" << Left << "\" y2=\"" << Bottom
       << "\" stroke=\"black\"/>\n";
    for (int T = 0; T <= 4; ++T) {
      double Y = MaxY * T / 4;
      OS << "<text x=\"" << Left - 5 << "\" y=\"" << PY(Y) + 4 << "\" text-anchor=\"end\">"
         << humanBytes(Y) << "</text>\n";
    }
    OS << "<text x=\"" << (Left + Right) / 2 << "\" y=\"" << Bottom + 30
       << "\" text-anchor=\"middle\">iteration (max " << int(MaxX)
       << "); live bytes after each iteration</text>\n";
    const char *Colors[] = {"#d62728", "#2ca02c"};
    const char *Names[] = {"before", "after fix"};
    int K = 0;
    for (const auto *S : {&O.Before.Samples, &O.After.Samples}) {
      OS << "<polyline fill=\"none\" stroke=\"" << Colors[K] << "\" stroke-width=\"2\" points=\"";
      for (const Sample &X : *S)
        OS << llvm::formatv("{0:F1},{1:F1} ", PX(double(X.Iteration)), PY(X.LiveBytes));
      OS << "\"/>\n";
      OS << "<text x=\"" << Left + 12 << "\" y=\"" << Top + 15 * (K + 1) << "\" fill=\""
         << Colors[K] << "\">" << Names[K] << "</text>\n";
      ++K;
    }
  }
  OS << "</svg>\n";
}

class TempDir {
public:
  TempDir() {
    llvm::SmallString<256> Prefix;
    if (!WorkDir.empty()) {
      Prefix = WorkDir.getValue();
      fs::make_absolute(Prefix);
    } else {
      path::system_temp_directory(/*ErasedOnReboot=*/true, Prefix);
    }
    path::append(Prefix, "libtorch-tidy-verify");
    if (fs::createUniqueDirectory(Prefix, Path))
      Path.clear();
  }
  ~TempDir() {
    if (!KeepTemp && !Path.empty())
      fs::remove_directories(Path);
  }
  llvm::StringRef str() const { return Path; }

private:
  llvm::SmallString<256> Path;
};

std::string joinArgs(const std::vector<std::string> &Args) {
  std::string S;
  for (const std::string &A : Args)
    S += (S.empty() ? "" : " ") + A;
  return S;
}

std::vector<std::string> splitFlags(llvm::StringRef Flags) {
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  Flags.split(Parts, ' ', -1, false);
  return std::vector<std::string>(Parts.begin(), Parts.end());
}

/// One source file that verify analyses: its compile flags and, once it
/// holds findings, its instrumented copy (before) and fixed copy (after).
struct Unit {
  std::string File; ///< absolute
  CompileCommand Cmd;
  std::vector<std::string> Flags; ///< compileFlags(Cmd), -iquote its directory, the runtime's includes
  const TargetUnit *InTarget = nullptr;
  std::vector<Finding> Findings;
  std::string BeforeFile, AfterFile;
};

/// The table on stdout: one row per finding, columns as wide as their contents.
void printTable(const std::vector<Outcome> &Outcomes) {
  std::vector<std::vector<std::string>> Rows = {{"check", "location", "loop", "before/iter",
                                                 "after/iter", "peak before", "peak after",
                                                 "history nodes/iter", "verdict",
                                                 "what grew (before the fix)"}};
  for (const Outcome &O : Outcomes)
    Rows.push_back(
        {O.F.Check, path::filename(O.F.Loc.File).str() + ":" + std::to_string(O.F.Loc.Line), O.F.Label.empty() ? "-" : O.F.Label,
         humanBytes(O.Before.Bytes.Slope), humanBytes(O.After.Bytes.Slope),
         humanBytes(O.Before.PeakBytes), humanBytes(O.After.PeakBytes),
         O.Before.History.Measured || O.After.History.Measured
             ? llvm::formatv("{0:F1} -> {1:F1}", O.Before.History.Slope, O.After.History.Slope).str()
             : std::string("-"),
         O.Verdict, evidenceText(O).empty() ? std::string("-") : evidenceText(O)});
  std::vector<size_t> Widths(Rows.front().size(), 0);
  for (const auto &Row : Rows)
    for (size_t C = 0; C < Row.size(); ++C)
      Widths[C] = std::max(Widths[C], Row[C].size());
  for (const auto &Row : Rows) {
    for (size_t C = 0; C < Row.size(); ++C) {
      bool Numeric = C >= 3 && C <= 7;
      size_t Pad = Widths[C] - Row[C].size();
      if (Numeric)
        llvm::outs().indent(Pad) << Row[C];
      else
        llvm::outs() << Row[C] << (C + 1 < Row.size() ? std::string(Pad, ' ') : "");
      if (C + 1 < Row.size())
        llvm::outs() << "  ";
    }
    llvm::outs() << "\n";
  }

}

/// The exit status that ends verify early; nothing: go on.
using Stop = std::optional<int>;

int fail(int Code, const llvm::Twine &Msg) {
  llvm::errs() << "libtorch-tidy verify: error: " << Msg << "\n";
  return Code;
}

int interrupted() {
  int Sig = interruptSignal();
  llvm::errs() << "libtorch-tidy verify: error: interrupted by signal " << Sig
               << ": stopped, work directory removed, no file of yours changed\n";
  return 128 + Sig;
}

/// One run of verify, phase by phase: the options and the units (FILE, or
/// the sources of --target), the memory findings on the user's files, the
/// instrumented copy of each unit that holds some and its fixed copy, both
/// programs built, both run, the verdicts reported. Each phase returns the
/// exit status that ends verify, or nothing.
class Verification {
public:
  explicit Verification(const Toolchain &TC) : TC(TC) {}
  int run(llvm::ArrayRef<std::string> ProgramArgs);

private:
  Stop checkOptions();
  Stop findUnits();
  Stop buildTarget();
  Stop findFindings();
  Stop instrument(Unit &U, unsigned Copy, bool &InLoop);
  Stop fixCopy(Unit &U);
  Stop buildPrograms();
  Stop buildAlone(int I);
  Stop relinkTarget(int I);
  Stop runPrograms(llvm::ArrayRef<std::string> ProgramArgs);
  std::vector<Outcome> judge();
  Stop report(const std::vector<Outcome> &Outcomes);
  Stop writeJson(const std::vector<Outcome> &Outcomes);
  TidyResult runTidy(const TidyOptions &O, const Unit &U, llvm::StringRef Path);
  std::string compilerError(const TidyResult &R);

  static constexpr const char *Which[2] = {"original", "fixed"};
  const Toolchain &TC;
  ProcessOptions ProgramLimits;
  uint64_t MemoryMiB = 0;
  std::string FilePath;      ///< FILE, absolute ("" without)
  bool ProjectMode = false;  ///< --target
  std::string Subject;       ///< FILE or the target, for messages
  std::optional<CompileDatabase> Database;
  Target Program;            ///< --target's link and sources
  std::vector<Unit> Units;
  std::optional<TempDir> Tmp;
  TidyOptions Tidy;
  SourceCache Sources;
  std::string Bins[2];       ///< the original and the fixed program
  std::map<unsigned, LoopStats> Series[2];
};

int Verification::run(llvm::ArrayRef<std::string> ProgramArgs) {
  // SIGINT/SIGTERM/SIGHUP: the running step's process group is killed, every
  // later step returns at once, and the work directory is removed on the way
  // out; the user's files are never opened for writing at any step.
  installInterruptHandlers();
  if (Stop S = checkOptions())
    return *S;
  if (Stop S = findUnits())
    return *S;
  Tmp.emplace();
  if (Tmp->str().empty())
    return fail(UsageError, "cannot create a work directory in " +
                                (WorkDir.empty() ? std::string("the temporary directory")
                                                 : "'" + WorkDir.getValue() + "'"));
  // clang-tidy runs as the analysis runs it (TidyRunner.h: its exported
  // diagnostics, one findings model), on a file with a unit's flags, bounded
  // by --timeout, its temporary files in the work directory.
  Tidy.ClangTidy = TC.ClangTidy;
  Tidy.Plugin = TC.Plugin;
  Tidy.Checks = "-*";
  for (const char *C : MemoryChecks)
    Tidy.Checks += std::string(",") + C;
  Tidy.TimeoutSeconds = Timeout;
  Tidy.TempDir = Tmp->str().str();

  if (Stop S = findFindings())
    return *S;
  unsigned Copied = 0;
  bool InLoop = false;
  for (Unit &U : Units) {
    if (U.Findings.empty())
      continue;
    if (Stop S = instrument(U, Copied++, InLoop))
      return *S;
    if (Stop S = fixCopy(U))
      return *S;
  }
  if (!InLoop)
    return fail(NothingFound, "nothing to verify: no memory finding in " + Subject + " is inside a loop");
  if (Stop S = buildPrograms())
    return *S;
  if (Stop S = runPrograms(ProgramArgs))
    return *S;
  std::vector<Outcome> Outcomes = judge();
  if (Stop S = report(Outcomes))
    return *S;
  bool AllGood = llvm::all_of(Outcomes, [](const Outcome &O) {
    return O.Verdict == "fixed" || O.Verdict == "no growth observed";
  });
  return AllGood ? Fixed : NotFixed;
}

/// The options, the tools and the compile database, before any step runs.
Stop Verification::checkOptions() {
  if (File.empty() && TargetName.empty())
    return fail(UsageError, "no file or target given: libtorch-tidy verify FILE [-p BUILD_DIR] or "
                            "libtorch-tidy verify -p BUILD_DIR --target NAME");
  if (!TargetName.empty() && BuildDir.empty())
    return fail(UsageError, "--target needs the build directory: -p BUILD_DIR");
  if (Device != "cpu" && Device != "cuda")
    return fail(UsageError, "--device must be cpu or cuda, not '" + Device + "'");
  if (Iterations < 5)
    return fail(UsageError, "--iterations must be at least 5");
  if (Iterations > 1000000)
    return fail(UsageError, "--iterations must be at most 1000000");
  if (Timeout == 0)
    return fail(UsageError, "--timeout must be at least 1 second");
  if (!WorkDir.empty() && !fs::is_directory(WorkDir))
    return fail(UsageError, "--work-dir '" + WorkDir + "' is not a directory");
  ProgramLimits.TimeoutSeconds = Timeout;
  MemoryMiB = MemoryLimit.getNumOccurrences() ? uint64_t(MemoryLimit) : (Device == "cpu" ? 32768 : 0);
  ProgramLimits.AddressSpaceBytes = MemoryMiB << 20;
  FilePath = File.empty() ? std::string() : absolute(File);
  if (!File.empty() && !fs::is_regular_file(FilePath))
    return fail(UsageError, "no such file: " + File);
  for (const std::string *Tool : {&TC.ClangTidy, &TC.Plugin, &TC.Instrument})
    if (!fs::exists(*Tool))
      return fail(UsageError, "missing tool '" + *Tool + "' (is libtorch-tidy installed completely?)");
  if (TC.RuntimeLinkFlags.empty())
    return fail(UsageError, "this libtorch-tidy was built without the runtime companion (no LibTorch "
                            "at build time): verify cannot run programs");
  // The compile database, as the analysis finds it (-p, else from FILE's
  // directory upward).
  auto DbPath = findCompileDatabase(BuildDir, File.empty() ? "" : path::parent_path(FilePath));
  if (!DbPath)
    return fail(UsageError, llvm::toString(DbPath.takeError()));
  auto Db = loadCompileDatabase(*DbPath);
  if (!Db)
    return fail(UsageError, llvm::toString(Db.takeError()));
  Database = std::move(*Db);
  ProjectMode = !TargetName.empty();
  Subject = ProjectMode ? "target '" + TargetName + "'" : "'" + File + "'";
  return std::nullopt;
}

/// The files to analyse: FILE, or the translation units of --target (only
/// FILE among them when both are given), each with its flags.
Stop Verification::findUnits() {
  if (ProjectMode) {
    if (Stop S = buildTarget())
      return S;
    for (const TargetUnit &TU : Program.Units) {
      if (!FilePath.empty() && TU.Command.File != FilePath)
        continue;
      Unit U;
      U.File = TU.Command.File;
      U.InTarget = &TU;
      Units.push_back(std::move(U));
    }
    if (Units.empty())
      return fail(UsageError, "'" + File + "' is not a source of target '" + TargetName + "'");
  } else {
    Unit U;
    U.File = FilePath;
    Units.push_back(std::move(U));
  }
  for (Unit &U : Units) {
    const CompileCommand *Cmd = commandFor(*Database, U.File);
    if (!Cmd)
      return fail(UsageError, "no compile command for '" + U.File + "' in '" + Database->Path + "'");
    U.Cmd = *Cmd;
    U.Flags = compileFlags(U.Cmd);
    U.Flags.push_back("-iquote");
    U.Flags.push_back(path::parent_path(U.File).str());
    U.Flags.push_back("-I" + TC.RuntimeIncludeDir);
  }
  return std::nullopt;
}

/// --target: its link and sources, and the project's own objects, built as
/// the project builds them.
Stop Verification::buildTarget() {
  TargetError Why;
  if (!findTarget(BuildDir, TargetName, *Database, Program, Why))
    return fail(Why.What == TargetError::BuildSystem ? BuildOrRun : UsageError, Why.Message);
  auto CMake = llvm::sys::findProgramByName("cmake");
  if (!CMake)
    return fail(UsageError, "cmake not found on PATH (needed to build --target)");
  TempDir BuildTmp;
  // No time limit: --timeout bounds the programs' runs, not the project's build.
  ProcessResult Built = runStep({*CMake, "--build", BuildDir, "--target", TargetName}, "", {},
                                ProcessOptions(), BuildTmp.str());
  if (Built.Interrupted)
    return interrupted();
  if (returnCode(Built) != 0)
    return fail(BuildOrRun, "target '" + TargetName + "' does not build: " + firstErrorLine(Built.Output));
  return std::nullopt;
}

TidyResult Verification::runTidy(const TidyOptions &O, const Unit &U, llvm::StringRef Path) {
  TidyRunExtras X;
  X.CompileFlags = U.Flags;
  X.Directory = U.Cmd.Directory;
  TidyResult R = runClangTidy(O, Path, X);
  // A crashing check costs its own findings, not the program's proof
  // (CrashIsolation.h); its report outlives the work directory.
  if (crashed(R))
    R = isolateCrashes(O, Path, X, std::move(R), "");
  for (const CheckCrash &C : R.Crashes)
    llvm::errs() << "libtorch-tidy: check crashed: " << Path << ": " << C.Check << ": " << C.Signal
                 << "; its findings are missing\nlibtorch-tidy: crash report: " << C.Report << "\n";
  return R;
}

/// The first compiler error of a run, as clang prints it; "" when none.
std::string Verification::compilerError(const TidyResult &R) {
  for (const libtorch_tidy::Finding &F : R.Findings)
    if (F.isCompilerError()) {
      Location L = F.Loc;
      Sources.locate(L);
      return L.File + ":" + std::to_string(L.Line) + ":" + std::to_string(L.Column) + ": error: " + F.Message;
    }
  return "";
}

/// The memory findings, on the user's files as they are: the warnings in
/// each file itself (not in the headers it includes).
Stop Verification::findFindings() {
  size_t FindingCount = 0;
  for (Unit &U : Units) {
    TidyResult R = runTidy(Tidy, U, U.File);
    if (R.Interrupted)
      return interrupted();
    if (R.TimedOut)
      return fail(BuildOrRun, "clang-tidy ran past " + llvm::Twine(Timeout.getValue()) + " s on '" + U.File + "'");
    std::string Error = compilerError(R);
    if (!Error.empty())
      return fail(BuildOrRun, "'" + U.File + "' does not compile: " + Error);
    if (R.Failed)
      return fail(BuildOrRun, "clang-tidy failed on '" + U.File + "': " + R.Error);
    for (libtorch_tidy::Finding &F : R.Findings) {
      if (F.Level != "warning" || F.Loc.File != U.File)
        continue;
      Finding Found;
      static_cast<libtorch_tidy::Finding &>(Found) = std::move(F);
      Sources.locate(Found.Loc);
      U.Findings.push_back(std::move(Found));
    }
    FindingCount += U.Findings.size();
  }
  if (FindingCount == 0)
    return fail(NothingFound, "nothing to verify: no memory finding in " + Subject);
  return std::nullopt;
}

/// The copy before the fix: the unit with the loops that hold its findings
/// instrumented (the instrumenter's report names each finding's loop).
Stop Verification::instrument(Unit &U, unsigned Copy, bool &InLoop) {
  llvm::SmallString<256> BeforeDir(Tmp->str()), AfterDir(Tmp->str());
  path::append(BeforeDir, "before");
  path::append(AfterDir, "after");
  if (ProjectMode) { // one directory per copy: two sources may share a name
    path::append(BeforeDir, std::to_string(Copy));
    path::append(AfterDir, std::to_string(Copy));
  }
  fs::create_directories(BeforeDir);
  fs::create_directories(AfterDir);
  std::string Name = path::filename(U.File).str();
  U.BeforeFile = (BeforeDir + "/" + Name).str();
  U.AfterFile = (AfterDir + "/" + Name).str();
  std::string ReportFile = (Tmp->str() + "/instrument.json").str();
  fs::remove(ReportFile);
  std::vector<std::string> InstArgs = {TC.Instrument, U.File, "-o", U.BeforeFile, "--report", ReportFile};
  for (const Finding &F : U.Findings)
    InstArgs.push_back("--line=" + std::to_string(F.Loc.Line));
  InstArgs.push_back("--");
  InstArgs.insert(InstArgs.end(), U.Flags.begin(), U.Flags.end());
  ProcessResult Inst = runStep(InstArgs, U.Cmd.Directory, {}, toolLimits(Timeout), Tmp->str());
  if (Inst.Interrupted)
    return interrupted();
  if (returnCode(Inst) == 2 || !fs::exists(ReportFile))
    return fail(BuildOrRun, "cannot instrument '" + U.File + "': " + firstErrorLine(Inst.Output));
  auto ReportBuf = llvm::MemoryBuffer::getFile(ReportFile);
  auto Report = ReportBuf ? llvm::json::parse((*ReportBuf)->getBuffer())
                          : llvm::Expected<llvm::json::Value>(
                                llvm::createStringError(llvm::inconvertibleErrorCode(), "unreadable"));
  if (!Report || !Report->getAsObject())
    return fail(BuildOrRun, "cannot read the instrumentation report");
  if (!ProjectMode && !Report->getAsObject()->getBoolean("has_main").value_or(false))
    return fail(UsageError, "'" + File + "' has no main(): verify runs a program; for a program "
                            "of several files name its target: -p BUILD_DIR --target NAME");
  if (const llvm::json::Array *Loops = Report->getAsObject()->getArray("loops"))
    for (const llvm::json::Value &L : *Loops)
      if (const llvm::json::Object *O = L.getAsObject())
        for (Finding &F : U.Findings)
          if (O->getInteger("line") == int64_t(F.Loc.Line)) {
            F.Label = O->getString("label").value_or("").str();
            F.LoopLine = unsigned(O->getInteger("loop_line").value_or(0));
          }
  InLoop |= llvm::any_of(U.Findings, [](const Finding &F) { return !F.Label.empty(); });
  return std::nullopt;
}

/// The fixed copy: the same instrumented text with the fix-its applied, as
/// --fix applies them (Fixes.h), and only those wholly inside the copy: a
/// header filter that matches the work directory alone, and no replacement
/// outside the copy (the user's headers).
Stop Verification::fixCopy(Unit &U) {
  if (auto Err = fs::copy_file(U.BeforeFile, U.AfterFile))
    return fail(UsageError, "cannot copy to the temporary directory: " + Err.message());
  TidyOptions FixTidy = Tidy;
  FixTidy.HeaderFilter = "^" + llvm::Regex::escape(Tmp->str()) + "/";
  TidyResult R = runTidy(FixTidy, U, U.AfterFile);
  if (R.Interrupted)
    return interrupted();
  if (!compilerError(R).empty()) // clang-tidy --fix too leaves a copy with errors
    return std::nullopt;
  std::vector<libtorch_tidy::Finding> Fixable;
  for (const libtorch_tidy::Finding &F : R.Findings)
    if (F.Level == "warning" &&
        llvm::all_of(F.Fix, [&](const Replacement &Rep) { return Rep.File == U.AfterFile; }))
      Fixable.push_back(F);
  if (auto Applied = applyFixPlan(planFixes(Fixable)); !Applied)
    return fail(BuildOrRun, "cannot apply the fix-its to the copy of '" + U.File +
                                "': " + llvm::toString(Applied.takeError()));
  return std::nullopt;
}

/// Both programs: FILE compiled and linked alone, or the target's link with
/// the copies' objects in place of the project's.
Stop Verification::buildPrograms() {
  for (int I = 0; I < 2; ++I) {
    Bins[I] = (Tmp->str() + "/" + (I ? "after" : "before") + ".bin").str();
    if (Stop S = ProjectMode ? relinkTarget(I) : buildAlone(I))
      return S;
  }
  return std::nullopt;
}

Stop Verification::buildAlone(int I) {
  const Unit &U = Units.front();
  std::vector<std::string> CxxArgs = {TC.Cxx};
  CxxArgs.insert(CxxArgs.end(), U.Flags.begin(), U.Flags.end());
  CxxArgs.push_back("-g"); // line tables: the runtime names allocation sites by line
  CxxArgs.push_back(I ? U.AfterFile : U.BeforeFile);
  CxxArgs.push_back("-o");
  CxxArgs.push_back(Bins[I]);
  for (const std::string &F : splitFlags(TC.RuntimeLinkFlags))
    CxxArgs.push_back(F);
  for (const std::string &F : splitFlags(TC.TorchLinkFlags))
    CxxArgs.push_back(F);
  ProcessResult Build = runStep(CxxArgs, U.Cmd.Directory, {}, toolLimits(Timeout), Tmp->str());
  if (Build.Interrupted)
    return interrupted();
  if (returnCode(Build) != 0)
    return fail(BuildOrRun, llvm::Twine("the ") + Which[I] + " program does not build: " +
                                firstErrorLine(Build.Output));
  return std::nullopt;
}

Stop Verification::relinkTarget(int I) {
  std::map<std::string, std::string> Swaps;
  for (const Unit &U : Units) {
    if (U.BeforeFile.empty())
      continue;
    std::string Source = I ? U.AfterFile : U.BeforeFile;
    std::string Object = Source + ".o";
    std::vector<std::string> Extra = {"-iquote", path::parent_path(U.File).str(), "-I" + TC.RuntimeIncludeDir,
                                      "-g"};
    ProcessResult Build = runStep(recompileCommand(*U.InTarget, Source, Object, Extra), U.Cmd.Directory, {},
                                  toolLimits(Timeout), Tmp->str());
    if (Build.Interrupted)
      return interrupted();
    if (returnCode(Build) != 0)
      return fail(BuildOrRun, llvm::Twine("the ") + Which[I] + " copy of '" + U.File +
                                  "' does not compile: " + firstErrorLine(Build.Output));
    Swaps[U.InTarget->Object] = Object;
  }
  ProcessResult Link = runStep(relinkCommand(Program, Swaps, Bins[I], splitFlags(TC.RuntimeLinkFlags)),
                               Program.LinkDirectory, {}, toolLimits(Timeout), Tmp->str());
  if (Link.Interrupted)
    return interrupted();
  if (returnCode(Link) != 0)
    return fail(BuildOrRun, llvm::Twine("the ") + Which[I] + " program of target '" + TargetName +
                                "' does not link: " + firstErrorLine(Link.Output));
  return std::nullopt;
}

/// Both programs run with the iteration cap and the program's arguments, in
/// the current directory; their series collected.
Stop Verification::runPrograms(llvm::ArrayRef<std::string> ProgramArgs) {
  for (int I = 0; I < 2; ++I) {
    std::string Json = (Tmp->str() + "/" + (I ? "after" : "before") + ".json").str();
    std::vector<std::string> Env = {"LIBTORCH_TIDY_MAX_ITERATIONS=" + std::to_string(Iterations),
                                    "LIBTORCH_TIDY_REPORT=" + Json, "LIBTORCH_TIDY_DEVICE=" + Device.getValue(),
                                    "LIBTORCH_TIDY_TRACE=1"}; // allocation sites: the evidence column
    if (Device == "cpu")
      Env.push_back("CUDA_VISIBLE_DEVICES=");
    std::vector<std::string> RunArgs = {Bins[I]};
    RunArgs.insert(RunArgs.end(), ProgramArgs.begin(), ProgramArgs.end());
    ProcessResult Run = runStep(RunArgs, "", Env, ProgramLimits, Tmp->str());
    if (Run.Interrupted)
      return interrupted();
    if (Run.TimedOut)
      return fail(BuildOrRun, llvm::Twine("the ") + Which[I] + " program ran past " +
                                  llvm::Twine(Timeout.getValue()) + " s (--timeout); its process group was killed");
    if (!fs::exists(Json))
      return fail(BuildOrRun, llvm::Twine("the ") + Which[I] + " program failed (exit " +
                                  llvm::Twine(returnCode(Run)) + "): " + firstErrorLine(Run.Output));
    auto Parsed = readProbeReport(Json, Device == "cuda");
    if (!Parsed)
      return fail(BuildOrRun, llvm::Twine("unreadable report of the ") + Which[I] +
                                  " program: " + llvm::toString(Parsed.takeError()));
    Series[I] = std::move(*Parsed);
  }
  return std::nullopt;
}

/// Each finding's verdict from its loop's series before and after the fix.
std::vector<Outcome> Verification::judge() {
  std::vector<Outcome> Outcomes;
  for (const Unit &U : Units)
    for (const Finding &F : U.Findings) {
      Outcome O;
      O.F = F;
      if (F.Label.empty()) {
        O.Verdict = "not in a loop";
      } else {
        O.Before = Series[0][F.LoopLine];
        O.After = Series[1][F.LoopLine];
        O.Verdict = !O.Before.Present || !O.After.Present ? "loop not reached" : compareLoops(O.Before, O.After);
      }
      Outcomes.push_back(std::move(O));
    }
  return Outcomes;
}

/// --json: per finding, the series' figures before and after, the verdict and
/// the evidence.
Stop Verification::writeJson(const std::vector<Outcome> &Outcomes) {
  // Per finding: what grew in the original (sites, node types) and whether
  // the fix removed each, the runtime's culprits and notes.
  auto EvidenceJson = [](const Outcome &O) {
    llvm::json::Array Grew;
    for (const auto &[G, Remains] : grownAfterFix(O.Before, O.After))
      Grew.push_back(llvm::json::Object{{"what", G.What},
                                        {"kind", G.Site ? "allocation site" : "node type"},
                                        {"per_iteration", G.PerIter},
                                        {"after_fix", Remains ? "still growing" : "gone"}});
    llvm::json::Array Messages;
    for (const LoopStats *S : {&O.Before, &O.After})
      for (const std::string &M : S->Messages)
        Messages.push_back(M);
    return llvm::json::Object{{"culprit_before", O.Before.Culprit},
                              {"culprit_after", O.After.Culprit},
                              {"grew", std::move(Grew)},
                              {"messages", std::move(Messages)}};
  };
  llvm::json::Array Items;
  for (const Outcome &O : Outcomes) {
    auto Stats = [](const LoopStats &S) {
      llvm::json::Array Live;
      for (const Sample &X : S.Samples)
        Live.push_back(X.LiveBytes);
      return llvm::json::Object{
          {"bytes_per_iteration", S.Bytes.Slope},
          {"peak_bytes", S.PeakBytes},
          {"history_nodes_per_iteration",
           S.History.Measured ? llvm::json::Value(S.History.Slope) : llvm::json::Value(nullptr)},
          {"verdict", S.Present ? (S.Growing ? "growing" : "flat") : "not reached"},
          {"live_bytes", std::move(Live)}};
    };
    Items.push_back(llvm::json::Object{{"check", O.F.Check},
                                       {"file", O.F.Loc.File},
                                       {"line", O.F.Loc.Line},
                                       {"column", O.F.Loc.Column},
                                       {"message", O.F.Message},
                                       {"loop", O.F.Label},
                                       {"before", Stats(O.Before)},
                                       {"after", Stats(O.After)},
                                       {"verdict", O.Verdict},
                                       {"evidence", EvidenceJson(O)}});
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"file", ProjectMode ? llvm::json::Value(nullptr)
                                                        : llvm::json::Value(FilePath)},
                                   {"target", ProjectMode ? llvm::json::Value(TargetName.getValue())
                                                          : llvm::json::Value(nullptr)},
                                   {"iterations", Iterations.getValue()},
                                   {"limits", llvm::json::Object{
                                                  {"timeout_seconds", Timeout.getValue()},
                                                  {"iterations", Iterations.getValue()},
                                                  {"address_space_mib", MemoryMiB}}},
                                   {"device", Device.getValue()},
                                   {"findings", std::move(Items)}}))
     << "\n";
  if (auto E = writeFileAtomically(JsonOut, OS.str()))
    return fail(UsageError, llvm::toString(std::move(E)));
  return std::nullopt;
}

/// The verdicts: the table, and --json and --plot when asked for.
Stop Verification::report(const std::vector<Outcome> &Outcomes) {
  printTable(Outcomes);
  if (!JsonOut.empty())
    if (Stop S = writeJson(Outcomes))
      return S;
  if (!PlotOut.empty()) {
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    writeSvg(OS, Outcomes);
    if (auto E = writeFileAtomically(PlotOut, OS.str()))
      return fail(UsageError, llvm::toString(std::move(E)));
    llvm::outs() << "plot: " << PlotOut << "\n";
  }
  return std::nullopt;
}

} // namespace

int run(llvm::ArrayRef<std::string> ProgramArgs) {
  Toolchain TC;
  auto Tidy = libtorch_tidy::findClangTidy(ClangTidyOpt);
  if (!Tidy)
    return fail(UsageError, llvm::toString(Tidy.takeError()));
  TC.ClangTidy = *Tidy;
  auto Plugin = libtorch_tidy::findPlugin("");
  if (!Plugin)
    return fail(UsageError, llvm::toString(Plugin.takeError()));
  TC.Plugin = *Plugin;
  TC.Instrument = InstrumentOpt.empty() ? libtorch_tidy::besideSelf("libtorch-tidy-instrument")
                                         : InstrumentOpt.getValue();
  TC.Cxx = CxxOpt.empty() ? std::string(LIBTORCH_TIDY_CXX) : CxxOpt.getValue();
  // Build tree first (runtime/include beside the sources), then the install tree.
  std::string Installed = libtorch_tidy::besideSelf("../include");
  TC.RuntimeIncludeDir = fs::exists(Installed + "/libtorch_tidy") ? Installed
                                                                   : LIBTORCH_TIDY_RUNTIME_INCLUDE;
  std::string RuntimeLibDir = libtorch_tidy::besideSelf("../" LIBTORCH_TIDY_LIBDIR);
  if (LIBTORCH_TIDY_HAVE_RUNTIME && fs::exists(RuntimeLibDir + "/libtorch_tidy_runtime.so"))
    TC.RuntimeLinkFlags =
        "-L" + RuntimeLibDir + " -Wl,-rpath," + RuntimeLibDir + " -ltorch_tidy_runtime";
  TC.TorchLinkFlags = LIBTORCH_TIDY_TORCH_LINK;
  return Verification(TC).run(ProgramArgs);
}

} // namespace libtorch_tidy::verify
