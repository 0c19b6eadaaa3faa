#!/usr/bin/env bash
# Lays out the six projects of half b of the second recall round (LLM tutorials, NeRF, GNNs) for
# scripts/precision-projects.sh: one directory per repository under PROJECTS, holding the parts of the
# repository that were analysed, its audit-units / audit-flags / audit-header-filter files and the few
# stand-ins (_stubs/) for headers Debian does not have.
#
#   scripts/precision-recall2-b-setup.sh CLONES PROJECTS
#
# CLONES holds one copy per repository, named <owner>_<repo>, of the commit the table names: a clone
# (its commit is checked) or an exported tree (`git archive COMMIT | tar -x`, not checked: two of these
# repositories commit binaries and data the audit does not need). Debian packages used as real headers:
# libopencv-dev (OpenCV 4.6), libyaml-cpp-dev, python3-dev (for torch/extension.h).
set -euo pipefail
CLONES=$(realpath "${1:?usage: precision-recall2-b-setup.sh CLONES PROJECTS}")
PROJECTS=$(realpath -m "${2:?usage: precision-recall2-b-setup.sh CLONES PROJECTS}")
mkdir -p "$PROJECTS"

# name  commit  paths to copy (relative to the clone)
read -r -d '' TABLE <<'EOF' || true
P1ayer-1_Llama-LibTorch 274bcf6b846a source
jiabinnn_transformer-libtorch afb7edc909cc include src tools
xiaokb123_C-Transformer-Implementation-with-LibTorch c52d449d1069 main.cpp model
Gatsby23_nerf-libtorch cdd73392dad6 src
Edamame0011_SchNet_LibTorch_CUDA 6c0ca95985bc include src
fa0635_Tracking_GNN_Libtorch-3 8af50cadf29f include src train.cc train_2.cc evaluate_gnn.cc evaluate_events.cc evaluate_events_2.cc
EOF

# shellcheck source=scripts/precision-layout.sh
source "$(dirname "$0")/precision-layout.sh"
layout_projects precision-recall2-b-setup.sh 1 <<<"$TABLE"

cd "$PROJECTS"
OPENCV=-I/usr/include/opencv4

# P1ayer-1: a Llama model (attention with a KV cache, rotary embeddings) and its greedy generate(); every
# unit. main.cpp declares `void main` (an MSVC extension clang rejects): renamed by a definition, no line changed
(cd P1ayer-1_Llama-LibTorch && { echo source/main.cpp; ls source/llama/private/*.cpp; } > audit-units)
printf '%s\n' '-I$PROJECT/source/llama/public' '-Dmain=audit_main' > P1ayer-1_Llama-LibTorch/audit-flags
echo '^$PROJECT/source/' > P1ayer-1_Llama-LibTorch/audit-header-filter
# llama_model.cpp prints a c10::optional<Tensor> with <<, for which LibTorch 1.13 has no operator: 1 line adapted
# (the tensor it holds is printed), marked `// audit:`
sed -i 's|^        std::cout << "position_ids: " << position_ids << std::endl;$|        std::cout << "position_ids: " << *position_ids << std::endl;  // audit: LibTorch 1.13 prints no c10::optional|' \
  P1ayer-1_Llama-LibTorch/source/llama/private/llama_model.cpp
grep -q '// audit:' P1ayer-1_Llama-LibTorch/source/llama/private/llama_model.cpp

# jiabinnn: the LibTorch back end of a translation transformer trained in Python (TorchScript, greedy decoding)
# and its two programs; the TensorRT back end (src/model_tensorrt.cc, tools/infer_tensorrt.cc) needs TensorRT,
# the config, vocabulary and string units include no LibTorch
printf '%s\n' src/model_libtorch.cc tools/infer_libtorch.cc tools/debug.cc > jiabinnn_transformer-libtorch/audit-units
printf '%s\n' '-I$PROJECT/include' > jiabinnn_transformer-libtorch/audit-flags
echo '^$PROJECT/(include|src|tools)/' > jiabinnn_transformer-libtorch/audit-header-filter

# xiaokb123: a transformer with a training loop, validation, greedy and beam-search generation (main.cpp and
# the header-only model/transformer.h); every unit
(cd xiaokb123_C-Transformer-Implementation-with-LibTorch && { echo main.cpp; ls model/*.cpp; } > audit-units)
printf '%s\n' '-I$PROJECT' > xiaokb123_C-Transformer-Implementation-with-LibTorch/audit-flags
echo '^$PROJECT/(main|model)' > xiaokb123_C-Transformer-Implementation-with-LibTorch/audit-header-filter

# Gatsby23: NeRF training (train.cpp), rendering of a turntable (val.cpp) and the library (src/nerf). Its CMake
# sets C++20 (with LibTorch 2.0.1), but Debian's LibTorch 1.13 headers do not compile as C++20 with clang and
# libstdc++ 12 (ATen/core/List.h destroys a std::vector of the incomplete c10::IValue): analysed as C++17 (clang
# accepts the designated initialisers with a warning) with a forced include declaring the two C++20 library
# names the units use (std::numbers::pi, std::source_location); logger.cpp (a CSV logger) calls
# unordered_map::contains, C++20 only, and is left out; stdafx.cpp is empty
(cd Gatsby23_nerf-libtorch && { printf '%s\n' src/train.cpp src/val.cpp; ls src/nerf/*.cpp src/nerf/utils/*.cpp | grep -v -e stdafx.cpp -e logger.cpp; } > audit-units)
# utils/image.h uses std::filesystem::path without <filesystem> (LibTorch 2.0's headers may bring it): -include filesystem
printf '%s\n' "$OPENCV" '-includecxx20_names.h' '-includefilesystem' > Gatsby23_nerf-libtorch/audit-flags
echo '^$PROJECT/src/' > Gatsby23_nerf-libtorch/audit-header-filter
# src/nerf/utils/math.h declares AverageMeter::Add without a return type (GCC rejects it without -fpermissive,
# clang always): 1 line adapted, `void` added, marked `// audit:`
sed -i 's|^    Add(const T& value, const uint32_t num = 1) {$|    void Add(const T\& value, const uint32_t num = 1) {  // audit: return type added (GCC needs -fpermissive, clang rejects)|' \
  Gatsby23_nerf-libtorch/src/nerf/utils/math.h
grep -q '// audit:' Gatsby23_nerf-libtorch/src/nerf/utils/math.h
mkdir -p Gatsby23_nerf-libtorch/_stubs
cat > Gatsby23_nerf-libtorch/_stubs/cxx20_names.h <<'EOF2'
// stand-in: the two C++20 library names the units use, for an analysis as C++17 (LibTorch 1.13's headers do not
// compile as C++20 with clang and libstdc++ 12); interface only
#pragma once
namespace std {
namespace numbers {
inline constexpr double pi = 3.141592653589793;
} // namespace numbers
struct source_location {
  static constexpr source_location current() noexcept { return {}; }
  constexpr const char *file_name() const noexcept { return ""; }
};
} // namespace std
EOF2

# Edamame0011: SchNet (a message-passing network for molecular energies and forces) trained from app.cpp;
# two .cu units that hold no CUDA kernel (main.cu, InteractionLayer.cu) are analysed as C++ (-x c++); the three
# holding __global__ kernels (CalcForce, AggMessages, Cutoff) are left out, and so is SchNetModel.cu, which does
# not compile (line 27 repeats a default argument of the declaration: an error in clang and GCC); the bundled
# chemfiles is not used by any unit
(cd Edamame0011_SchNet_LibTorch_CUDA && printf '%s\n' src/schnet/app/app.cpp src/main.cu \
  src/schnet/module/InteractionLayer.cu > audit-units)
printf '%s\n' -xc++ '-I$PROJECT/include' -isystem/usr/include/python3.11 > Edamame0011_SchNet_LibTorch_CUDA/audit-flags
echo '^$PROJECT/(src|include)/' > Edamame0011_SchNet_LibTorch_CUDA/audit-header-filter

# fa0635: a GNN (GAT layers, edge classification) for particle tracking: two training programs, three
# evaluation programs and the model and post-processing units (the KAT layers, used by no program, left out); real yaml-cpp; the CERN ROOT headers that
# include/ROOTPlots.hh includes (it declares three plotting functions over float arrays, ROOT types appear only
# in src/ROOTPlots.cc, left out) are empty stand-ins; the preprocessing programs (CSV to graphs) left out
printf '%s\n' train.cc train_2.cc evaluate_gnn.cc evaluate_events.cc evaluate_events_2.cc src/EdgeClassificationGNN.cc \
  src/PostProcessing.cc > fa0635_Tracking_GNN_Libtorch-3/audit-units
printf '%s\n' '-I$PROJECT/include' > fa0635_Tracking_GNN_Libtorch-3/audit-flags
echo '^$PROJECT/(include|src|train|evaluate)' > fa0635_Tracking_GNN_Libtorch-3/audit-header-filter
mkdir -p fa0635_Tracking_GNN_Libtorch-3/_stubs
for h in TROOT TObject TSystem TDirectory TFile TCanvas TColor TPad TGraph TMultiGraph TH1D TGraph2D TPolyLine3D \
         TStyle TLatex TLegend TString; do
  printf '%s\n' "// stand-in: CERN ROOT's $h.h, included by include/ROOTPlots.hh, whose declarations use none of it" \
    '#pragma once' > "fa0635_Tracking_GNN_Libtorch-3/_stubs/$h.h"
done

ls "$PROJECTS"
