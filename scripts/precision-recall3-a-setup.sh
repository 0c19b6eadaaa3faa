#!/usr/bin/env bash
# Lays out the projects of recall round 3, half a (RL, GANs / VAEs, generative models) for
# scripts/precision-projects.sh: one directory per repository under PROJECTS, holding the parts of the repository
# that were analysed, its audit-units / audit-flags / audit-header-filter files and the stand-ins (_stubs/) for
# headers Debian does not have.
#
#   scripts/precision-recall3-a-setup.sh CLONES PROJECTS
#
# CLONES holds one copy per repository, named <owner>_<repo>, of the commit the table names: a clone (its commit
# is checked) or an exported tree (`git archive COMMIT | tar -x`, not checked). Debian packages used as real
# headers: libeigen3-dev, nlohmann-json3-dev, libboost-dev (filesystem, type_index), libgtest-dev / libgmock-dev,
# libpython3.11-dev.
set -euo pipefail
CLONES=$(realpath "${1:?usage: precision-recall3-a-setup.sh CLONES PROJECTS}")
PROJECTS=$(realpath -m "${2:?usage: precision-recall3-a-setup.sh CLONES PROJECTS}")
mkdir -p "$PROJECTS"

# name  commit  paths to copy (relative to the clone)
read -r -d '' TABLE <<'EOF' || true
mhubii_ppo_libtorch 7e40b47da56d Models.h ProximalPolicyOptimization.h TestEnvironment.h TrainPPO.cpp TestPPO.cpp
zjeffer_alphazero-general-cpp 0e6aa3297b8a src test
jamesbut_NeuroEvo b2120ae60575 include src
ianlienfa_BBGym-RL 0de0a89ac4f0 include src
EOF

# shellcheck source=scripts/precision-layout.sh
source "$(dirname "$0")/precision-layout.sh"
layout_projects precision-recall3-a-setup.sh 1 <<<"$TABLE"

cd "$PROJECTS"

# --- mhubii: PPO (Gaussian actor-critic) on a 2-D goal-reaching toy environment; a training program and a test
# program, both header-only apart from main; real Eigen (TestEnvironment.h)
P=mhubii_ppo_libtorch
printf '%s\n' TrainPPO.cpp TestPPO.cpp > $P/audit-units
printf '%s\n' '-I$PROJECT' -I/usr/include/eigen3 > $P/audit-flags
echo '^$PROJECT/[^/]*\.h$' > $P/audit-header-filter

# --- zjeffer: AlphaZero (MCTS self-play + a residual policy/value network) for tic-tac-toe; every unit of the
# CMake project (src/Game.cpp, src/main.cpp, src/lib/**/*.cpp) and the GoogleTest units. The project is C++23;
# LibTorch 1.13 does not compile as C++20 under clang (see precision-recall2-a-setup.sh, cemlyn007), so it is
# analysed as C++17 with 10 lines adapted (marked `// audit:`, line numbers kept): the three `requires` clauses
# of DataManager.hpp 18 and Helpers.hpp 76, 105 are commented out (constraints only, no other effect), and 7
# lines below. test/Tests/test_randomGenerator.cpp is left out (it includes src/lib/Utilities/Functions.hpp,
# which the snapshot no longer has).
# g3log is not in Debian: stand-ins (_stubs/g3log/*, interface only). nlohmann/json: Debian's;
# -DJSON_HAS_RANGES=0 as the CMake file sets.
P=zjeffer_alphazero-general-cpp
(cd $P && { printf '%s\n' src/main.cpp src/Game.cpp; find src/lib -name '*.cpp' | sort; find test -name '*.cpp' ! -name test_randomGenerator.cpp | sort; } > audit-units)
sed -i -e '18s|^\(    \)\(requires std::is_base_of_v<Move, MoveType>\)$|\1/* \2 */ // audit: C++20 constraint|' \
  $P/src/lib/DataManager/DataManager.hpp
sed -i -e '76s|^\(  \)\(requires std::is_base_of_v<Move, MoveType>\)$|\1/* \2 */ // audit: C++20 constraint|' \
  -e '105s|^\(  \)\(requires std::is_same_v<MoveType, Move>\)$|\1/* \2 */ // audit: C++20 constraint|' \
  $P/src/lib/DataManager/Helpers.hpp
[[ $(grep -c '// audit: C++20 constraint' $P/src/lib/DataManager/DataManager.hpp $P/src/lib/DataManager/Helpers.hpp | \
  awk -F: '{s+=$2} END {print s}') == 3 ]] || { echo "zjeffer: requires clauses not adapted" >&2; exit 2; }
# std::string::starts_with (C++20) in Configuration.ipp 13, 28: `key.rfind("/", 0) == 0`; Tensor::where(cond, Scalar)
# (a LibTorch 2.x overload; 1.13 takes a tensor) in MemoryElement.hpp 34-36 and Environment_TicTacToe.cpp 186-187:
# the 0 becomes `torch::scalar_tensor(0, board.options())` (the same values)
sed -i -e '13s|key.starts_with("/")|key.rfind("/", 0) == 0 /* audit: was key.starts_with("/") */|' \
  -e '28s|key.starts_with("/")|key.rfind("/", 0) == 0 /* audit: was key.starts_with("/") */|' \
  $P/src/lib/Configuration/Configuration.ipp
sed -i -e '34,36s|\(board\.where(board == static_cast<int>([A-Za-z:_0-9]*)\), 0);$|\1, torch::scalar_tensor(0, board.options())); // audit: was , 0) (LibTorch 2.x)|' \
  $P/src/lib/DataManager/MemoryElement.hpp
sed -i -e '186,187s|\(m_board\.where(m_board == static_cast<int>([A-Za-z:_0-9]*)\), 0);$|\1, torch::scalar_tensor(0, m_board.options())); // audit: was , 0) (LibTorch 2.x)|' \
  $P/src/lib/Environment/Environment_TicTacToe.cpp
[[ $(cat $P/src/lib/Configuration/Configuration.ipp $P/src/lib/DataManager/MemoryElement.hpp \
  $P/src/lib/Environment/Environment_TicTacToe.cpp | grep -c 'audit: was') == 7 ]] || { echo "zjeffer: lines not adapted" >&2; exit 2; }
printf '%s\n' -DJSON_HAS_RANGES=0 > $P/audit-flags
echo '^$PROJECT/(src|test)/' > $P/audit-header-filter
mkdir -p $P/_stubs/g3log
cat > $P/_stubs/g3log/loglevels.hpp <<'EOF'
// stand-in: g3log's log levels (interface only)
#pragma once
#include <string>
struct LEVELS {
  LEVELS(int id, const std::string &idtext);
  int value;
  std::string text;
};
namespace g3 {
static const int kDebugValue = 100, kInfoValue = 300, kWarningValue = 500, kFatalValue = 1000;
namespace internal { bool wasFatal(const LEVELS &level); }
} // namespace g3
extern const LEVELS G3LOG_DEBUG, INFO, WARNING, FATAL;
EOF
cat > $P/_stubs/g3log/logmessage.hpp <<'EOF'
// stand-in: g3log's LogMessage (interface only)
#pragma once
#include <g3log/loglevels.hpp>
#include <string>
namespace g3 {
struct LogMessage {
  LEVELS _level;
  std::string timestamp(const std::string &time_format = "") const;
  std::string level() const;
  std::string file() const;
  std::string line() const;
  std::string message() const;
  std::string toString() const;
  template <typename F> std::string toString(F formatter) const;
};
struct MoveOnCopy_LogMessage { LogMessage &get(); };
typedef MoveOnCopy_LogMessage LogMessageMover;
} // namespace g3
EOF
cat > $P/_stubs/g3log/g3log.hpp <<'EOF'
// stand-in: g3log's LOG macro (interface only): a stream that discards what it is given
#pragma once
#include <g3log/loglevels.hpp>
#include <ostream>
namespace g3 { std::ostream &log_stream(const LEVELS &level, const char *file, int line); }
#define DEBUG G3LOG_DEBUG
#define LOG(level) ::g3::log_stream(level, __FILE__, __LINE__)
EOF
cat > $P/_stubs/g3log/logworker.hpp <<'EOF'
// stand-in: g3log's LogWorker (interface only)
#pragma once
#include <g3log/logmessage.hpp>
#include <memory>
#include <string>
namespace g3 {
template <class T> struct SinkHandle {};
class LogWorker {
public:
  static std::unique_ptr<LogWorker> createLogWorker();
  template <typename T, typename DefaultLogCall>
  std::unique_ptr<SinkHandle<T>> addSink(std::unique_ptr<T> real_sink, DefaultLogCall call);
  template <typename T> std::unique_ptr<SinkHandle<T>> addSink(std::unique_ptr<T> real_sink);
  void removeAllSinks();
};
void initializeLogging(LogWorker *logger);
} // namespace g3
EOF
cat > $P/_stubs/g3log/filesink.hpp <<'EOF'
// stand-in: g3log's FileSink (interface only)
#pragma once
#include <g3log/logmessage.hpp>
#include <string>
namespace g3 {
class FileSink {
public:
  FileSink(const std::string &log_prefix, const std::string &log_directory, const std::string &logger_id = "g3log");
  void fileWrite(LogMessageMover message);
};
} // namespace g3
EOF

# --- jamesbut: NeuroEvo, a neuroevolution library whose utilities train LibTorch models (GAN, VAE, autoencoder,
# supervised model); the 14 units the CMake file builds only WITH_TORCH (models, torch utilities, schedulers,
# TorchNetwork). Real Boost (filesystem, type_index), Eigen and nlohmann/json of Debian (the eigen and libfort
# submodules are empty in the snapshot); stand-in for libfort's fort.hpp (interface only). The CMake file's
# definitions are passed (-DUSE_TORCH=1 -DSFML_FOUND=0 -DDATA_PATH -DNEURO_EVO_CMAKE_SRC_DIR). The project is
# C++20 by its CMake file; analysed as C++17.
P=jamesbut_NeuroEvo
(cd $P && { find src/util/models -name '*.cpp'; find src/util/torch -name '*.cpp'; echo src/phenotype/neural_network/torch_network.cpp; } | sort > audit-units)
# reduce_lr_on_plateau.h uses std::optional without <optional> (the other units get it through their includes):
# -include optional
printf '%s\n' '-I$PROJECT/include' -I/usr/include/eigen3 -DUSE_TORCH=1 -DSFML_FOUND=0 '-DDATA_PATH="/tmp/data"' \
  '-DNEURO_EVO_CMAKE_SRC_DIR="/tmp"' -include optional > $P/audit-flags
echo '^$PROJECT/(src|include)/' > $P/audit-header-filter
# Lines adapted (marked `// audit:`): include/data/json.h 30, 31, 36, 43, 55, 93 declare
# `std::vector<const std::string>`, which libstdc++ 12 rejects (a vector of const elements; older libstdc++ let it
# through): `std::vector<std::string>`; include/phenotype/neural_network/torch_network.h 32 `void zero_grad() override`
# overrides a LibTorch before 1.7 (1.13's is `zero_grad(bool set_to_none = true)`): `override` dropped
sed -i -e '30,93s|^\(.*\)std::vector<const std::string>\(.*\)$|\1std::vector<std::string>\2 // audit: was std::vector<const std::string>|' \
  $P/include/data/json.h
sed -i -e '32s|^    void zero_grad() override;$|    void zero_grad(); // audit: was zero_grad() override|' \
  $P/include/phenotype/neural_network/torch_network.h
# and src/util/models/trainable_model.cpp 66 `file.path().string().ends_with(".pt")` (C++20) as
# `file.path().extension() == ".pt"` (8 lines in all)
sed -i -e '66s|^        if(file.path().string().ends_with(".pt"))$|        if(file.path().extension() == ".pt") // audit: was if(file.path().string().ends_with(".pt"))|' \
  $P/src/util/models/trainable_model.cpp
[[ $(cat $P/include/data/json.h $P/include/phenotype/neural_network/torch_network.h $P/src/util/models/trainable_model.cpp | \
  grep -c '// audit: was') == 8 ]] || { echo "jamesbut: lines not adapted" >&2; exit 2; }
mkdir -p $P/_stubs
cat > $P/_stubs/fort.hpp <<'EOF'
// stand-in: libfort's C++ table, the members factory.h uses (interface only)
#pragma once
#include <string>
namespace fort {
enum class row_type { common, header };
struct table_manipulator { explicit table_manipulator(int i); };
extern const table_manipulator header, endr;
class char_table {
public:
  struct cell_ref { void set_cell_span(std::size_t n); };
  struct row_ref { void set_cell_row_type(row_type t); cell_ref operator[](std::size_t col_idx); };
  template <typename T> char_table &operator<<(const T &arg);
  row_ref operator[](std::size_t row_idx);
  std::string to_string() const;
};
} // namespace fort
EOF

# --- ianlienfa: BBGym-RL, a branch-and-bound search (1|r_j|sum C_j scheduling) whose node-labelling function is
# learnt by reinforcement learning (DDPG-like "DDPR" and PPO labelers); every unit of the CMake project but
# include/util/pybind_wrapper.cpp (pybind11, Python bindings, no training code) and src/plt.cpp (matplotlib
# demo); the test program src/Gtest.cpp with real GoogleTest. Real Python 3.11 headers; -DWITHOUT_NUMPY as the
# CMake file sets when NumPy is not found. The project is C++20 by its CMake file; analysed as C++17 unchanged
# (designated initializers are accepted by clang as an extension).
P=ianlienfa_BBGym-RL
(cd $P && { find include -name '*.cpp' ! -name pybind_wrapper.cpp ! -path '*/third_party/*'; \
  printf '%s\n' src/main.cpp src/net.cpp src/histrack.cpp src/load.cpp src/Gtest.cpp; } | sort > audit-units)
printf '%s\n' '-I$PROJECT/include' -I/usr/include/python3.11 -I/usr/include/eigen3 -DWITHOUT_NUMPY > $P/audit-flags
echo '^$PROJECT/(src|include/(BB_engine|branch_modules|problem_parser|prune_modules|search_modules|user_def|util))/' \
  > $P/audit-header-filter

ls "$PROJECTS"
