#!/usr/bin/env bash
# Lays out the projects of recall round 4 (held out: analysed with the plugin frozen at 0f8f5b5 and labelled
# before any check was changed for them) for scripts/precision-projects.sh: one directory per repository under
# PROJECTS, holding the parts of the repository that were analysed, its audit-units / audit-flags /
# audit-header-filter files and the stand-ins (_stubs/) for headers Debian does not have.
#
#   scripts/precision-recall4-setup.sh CLONES PROJECTS
#
# CLONES holds one copy per repository, named <owner>_<repo>, of the commit the table names: a clone (its commit
# is checked) or an exported tree (`git archive COMMIT | tar -x`, not checked). Debian packages used as real
# headers: libopencv-dev, libboost-filesystem-dev, libjsoncpp-dev, libhdf5-dev, nlohmann-json3-dev, libspdlog-dev
# (with libfmt-dev), qtbase5-dev; the CUDA toolkit's headers (/usr/local/cuda/include) where a project includes them.
set -euo pipefail
CLONES=$(realpath "${1:?usage: precision-recall4-setup.sh CLONES PROJECTS}")
PROJECTS=$(realpath -m "${2:?usage: precision-recall4-setup.sh CLONES PROJECTS}")
mkdir -p "$PROJECTS"

# name  commit  paths to copy (relative to the clone)
read -r -d '' TABLE <<'EOF' || true
Abhiswain97_libtorch-example-codes 0479098d76c6 Mnist/Mnist.cpp Mnist/MnistSimple.cpp
AlexeyIvanov90_CNN_libtorch 45c9e76f4dd0 main.cpp model.cpp model.h train_model.cpp classification.cpp data_set.cpp data_set.h utils.cpp utils.h
ArkarPhyo1310_libtorch_playground d1b2f60e760e LTPG/main.cpp LTPG/Models LTPG/ImageProcessing LTPG/Utils
austinvhuang_libtorch-experiments 0bc93ae85a60 nca/nca.cpp nca/ppm.hpp nca/readppm.cpp
burstknight_LibtorchPractice e2e2db3aada0 dcgan_strurct/src dcgan_strurct/includes simpleNet/src simpleNet/includes
DominionSoftware_LibTorchExamples 7b55a0d257ed Training/Source/BetaDistribution.h Training/Source/CIFAR100.h Training/Source/CIFAR100ClassNames.h Training/Source/CIFAR100CoarseModule.h Training/Source/CIFAR100DataSet.cpp Training/Source/CIFAR100DataSet.h Training/Source/CIFAR100FineModule.h Training/Source/CosineAnnealingScheduler.cpp Training/Source/CosineAnnealingScheduler.h Training/Source/CutMixTransform.h Training/Source/FileSaver.cpp Training/Source/FileSaver.h Training/Source/HybridOptimizer.h Training/Source/IDataSet.h Training/Source/IOptimizer.h Training/Source/ISchedulerStep.h Training/Source/KullbackLieblerDivergenceLoss.cpp Training/Source/KullbackLieblerDivergenceLoss.h Training/Source/OneHot.cpp Training/Source/OneHot.h Training/Source/ProgressBar.h Training/Source/ReduceLROnPlateauScheduler.cpp Training/Source/ReduceLROnPlateauScheduler.h Training/Source/ResidualBlock.h Training/Source/TrainModelsMultiGPU.cpp Training/Source/TrainModelsMultiGPU.h Training/Source/TrainSplitModels.cpp Training/Source/TrainSplitModels.h Training/Source/main.cpp
elbuho12Jesus_2D-Gaussian-Splatting-with-libtorch 3757f0d9a98c ConfigCamera.cpp ConfigCamera.h CudaRasterizerAutograd.h DepthNormals.cpp DepthNormals.h GaussianModelMinimal.cpp GaussianModelMinimal.h GaussianModelStage1.cpp GaussianModelStage1.h LoadImages.cpp LoadImages.h ParceBinaries.cpp ParceBinaries.h SSIMLoss.cpp SSIMLoss.h ToyRasterizer.cpp ToyRasterizer.h kernel.h main.cpp cuda_rasterizer/rasterizer.h cuda_rasterizer/config.h cuda_rasterizer/rasterizer_impl.h cuda_rasterizer/forward.h cuda_rasterizer/backward.h cuda_rasterizer/auxiliary.h cuda_knn/spatial.cpp cuda_knn/spatial.h cuda_knn/simple_knn.h
harishkool_Pytorch-CPP 75b02620d9a6 pointnet/src pointnet/include RetinaNet/src RetinaNet/include RetinaNet/configs SSD/src SSD/include/anchors.h SSD/include/cocoloader.h SSD/include/vggssd.h SSD/include/vgg.h SSD/include/data.h
HwanWoongLee_Libtorch_UNet_inQT 335721411cdc QSeg/UNet.cpp QSeg/UNet.h QSeg/Trainer.cpp QSeg/Trainer.h QSeg/MyDataset.cpp QSeg/MyDataset.h QSeg/QSeg.cpp QSeg/QSeg.h QSeg/framework.h QSeg/framework.cpp QSeg/QDrawLabel.h
Ipsedo_libtorch_samples 227fcec80362 src/main.cpp src/models/conv_models.h src/models/linear_models.h src/data/read_mnist.cpp src/data/read_mnist.h src/data/read_cifar10.cpp src/data/read_cifar10.h src/data/repr.cpp src/data/repr.h
jiamny_Dive_into_deep_learning_with_libtorch 13975bef3613 src/19_Reinforcement_Learning/Deep_Q_network.cpp src/07_ModernConvolutionalNeuralNetworks/custom-dataset.cpp src/02_Preliminaries/autograd.cpp src/03_LinearNeuralNetworks/linear_regression_concise.cpp src/08_RecurrentNeuralNetworks/rnn_example.cpp src/06_ConvolutionalNeuralNetworks/ConvolutionalLayers.cpp src/15_NLP_applications/NaturalLanguageInferenceBert.cpp src/utils.h src/utils.cpp src/TempHelpFunctions.hpp src/utils/ch_8_9_util.h src/utils/ch_8_9_util.cpp src/utils/ch_14_util.h src/utils/ch_14_util.cpp src/utils/ch_15_util.h src/utils/ch_15_util.cpp
JJBUP_libtorch_code f0c546fc5398 libtorch_main.cpp src_model src_dataset
soumik12345_libtorch-examples a240148e76a2 libtorch-examples/include/utils.hpp libtorch-examples/convnet/main.cpp libtorch-examples/convnet/include/convnet.hpp libtorch-examples/convnet/include/convnet_classifier.hpp libtorch-examples/linear-regression/main.cpp libtorch-examples/linear-regression/include/linear_regression.hpp libtorch-examples/logistic-regression/main.cpp libtorch-examples/logistic-regression/include/logistic_regression.hpp libtorch-examples/multi-layered-perceptron/main.cpp libtorch-examples/multi-layered-perceptron/include/mlp.hpp libtorch-examples/multi-layered-perceptron/include/mlp_classifier.hpp
tusharsangam_DogBreedClassification-CNN-libtorch-Cpp 7869e06f8ec6 src/Source.cpp src/dataloader.cpp src/dataloader.h src/dogbreeddataset.cpp src/dogbreeddataset.h src/import-export-trial.cpp src/model.cpp src/model.h src/pch.h src/transforms.cpp src/transforms.h
EOF

# shellcheck source=scripts/precision-layout.sh
source "$(dirname "$0")/precision-layout.sh"
layout_projects precision-recall4-setup.sh 1 <<<"$TABLE"

cd "$PROJECTS"

# --- Abhiswain97: MNIST fine-tuning of a linear head on top of a TorchScript ResNet-18 feature extractor
# (torch::jit::load), train + test phases in one epoch loop; units Mnist/Mnist.cpp and Mnist/MnistSimple.cpp
# (an empty Net module, built into the same executable). C++14 in CMake, analysed as C++17. Only LibTorch
# needed; no stand-ins; no source line adapted.
P=Abhiswain97_libtorch-example-codes
printf '%s\n' Mnist/Mnist.cpp Mnist/MnistSimple.cpp > $P/audit-units
printf '%s\n' '-I$PROJECT/Mnist' > $P/audit-flags
echo '^$PROJECT/Mnist/' > $P/audit-header-filter

# --- AlexeyIvanov90: a small CNN image classifier (ConvNet, CSV-listed image dataset read with OpenCV), a train
# loop with per-epoch validation (train_model.cpp) and classification/accuracy code; all 6 units (flat layout).
# Real OpenCV (libopencv-dev). utils.cpp includes <conio.h> (Windows-only, _getch): stand-in _stubs/conio.h
# (interface only). Lines adapted (marked `// audit:`, line numbers kept): utils.cpp 28, 80, 123 use MSVC's
# `for each (auto x in v)` extension, rewritten as the range-for `for (auto x : v)` (same iteration); and
# utils.cpp 41, 85, 134 `cv::Size({ w, h })` (ambiguous constructor under clang; MSVC accepts it) become
# `cv::Size(w, h)` (same size). 6 lines adapted in all.
P=AlexeyIvanov90_CNN_libtorch
printf '%s\n' main.cpp model.cpp train_model.cpp classification.cpp data_set.cpp utils.cpp > $P/audit-units
printf '%s\n' '-I$PROJECT' -I/usr/include/opencv4 > $P/audit-flags
echo '^$PROJECT/[^/]*\.h$' > $P/audit-header-filter
mkdir -p $P/_stubs
cat > $P/_stubs/conio.h <<'EOF'
// stand-in: Windows <conio.h> (interface only)
#pragma once
int _getch(void);
EOF
sed -i -E -e '28s/^(\t)for each \(auto str in data\)$/\1for (auto str : data) \/\/ audit: was MSVC for each (auto str in data)/' \
  -e '80s/^(\t)for each \(auto path in data\)$/\1for (auto path : data) \/\/ audit: was MSVC for each (auto path in data)/' \
  -e '123s/^(\t)for each \(auto str in data\)$/\1for (auto str : data) \/\/ audit: was MSVC for each (auto str in data)/' \
  $P/utils.cpp
[[ $(grep -c '// audit: was MSVC for each' $P/utils.cpp) == 3 ]] || { echo "AlexeyIvanov90: for each not adapted" >&2; exit 2; }
sed -i -E -e '41s/cv::Size\(\{ (img\.cols \* 3, img\.rows \* 3) ?\}\)\);$/cv::Size(\1)); \/\/ audit: was cv::Size({ ... }) (ambiguous under clang)/' \
  -e '85s/cv::Size\(\{ (img\.cols \* 3, img\.rows \* 3) ?\}\)\);$/cv::Size(\1)); \/\/ audit: was cv::Size({ ... }) (ambiguous under clang)/' \
  -e '134s/cv::Size\(\{ (img\.cols \* 3, img\.rows \* 3) ?\}\)\);$/cv::Size(\1)); \/\/ audit: was cv::Size({ ... }) (ambiguous under clang)/' \
  $P/utils.cpp
[[ $(grep -c '// audit: was cv::Size' $P/utils.cpp) == 3 ]] || { echo "AlexeyIvanov90: cv::Size not adapted" >&2; exit 2; }

# --- ArkarPhyo1310: TorchScript inference playground (Bazel build): a YOLOv5 detector with its own
# post-processing (NMS, box rescaling) and an ImageNet classifier, image pre-processing (letterbox, normalise)
# and an image/video loop in main.cpp; every unit (LTPG/main.cpp, Models/**/*.cpp, ImageProcessing/*.cpp).
# Real headers: OpenCV (libopencv-dev), spdlog (libspdlog-dev, installed for this round, with libfmt-dev). The
# sources include "LTPG/..." from the repository root: -I$PROJECT. Stand-in: p-ranav's argparse/argparse.hpp
# (a Bazel external, not in Debian 12; only main.cpp uses it), interface only. No source line adapted.
P=ArkarPhyo1310_libtorch_playground
(cd $P && { echo LTPG/main.cpp; find LTPG/Models LTPG/ImageProcessing -name '*.cpp' | sort; } > audit-units)
printf '%s\n' '-I$PROJECT' '-I$PROJECT/LTPG' -I/usr/include/opencv4 > $P/audit-flags
echo '^$PROJECT/LTPG/' > $P/audit-header-filter
mkdir -p $P/_stubs/argparse
cat > $P/_stubs/argparse/argparse.hpp <<'EOF'
// stand-in: p-ranav argparse, the members main.cpp uses (interface only)
#pragma once
#include <ostream>
#include <string>
namespace argparse {
class Argument {
public:
  template <typename T> Argument &default_value(T &&value);
  Argument &required();
  Argument &help(std::string help_text);
};
class ArgumentParser {
public:
  explicit ArgumentParser(std::string program_name = {}, std::string version = "1.0");
  template <typename... Targs> Argument &add_argument(Targs... names);
  void parse_args(int argc, const char *const argv[]);
  template <typename T = std::string> T get(const std::string &arg_name) const;
  bool is_used(const std::string &arg_name) const;
  friend std::ostream &operator<<(std::ostream &stream, const ArgumentParser &parser);
};
} // namespace argparse
EOF

# --- austinvhuang: neural cellular automata (NCA) experiment: a Conv2d-based update module trained with Adam to
# grow a target PPM image (nca/nca.cpp), plus a small PPM reader header and its test program; units nca/nca.cpp
# and nca/readppm.cpp (the other dirs are hello-world / wasm / emscripten build probes: left out; torch_pch.* is
# only a precompiled-header helper). Only LibTorch needed; no stand-ins. The Makefiles build nca.cpp as C++17
# (CMake says 14), which GCC accepts only with a pedantic warning for a C++20 construct; clang rejects it, so
# 1 line is adapted (marked `// audit:`): nca.cpp 31, the abbreviated
# function template `void logdat(std::string text, auto value)` becomes `template <typename T> void
# logdat(std::string text, T value)` (the same function).
P=austinvhuang_libtorch-experiments
printf '%s\n' nca/nca.cpp nca/readppm.cpp > $P/audit-units
printf '%s\n' '-I$PROJECT/nca' > $P/audit-flags
echo '^$PROJECT/nca/' > $P/audit-header-filter
sed -i -e '31s|^void logdat(std::string text, auto value) {$|template <typename T> void logdat(std::string text, T value) { // audit: was (..., auto value) (C++20)|' \
  $P/nca/nca.cpp
grep -q '// audit: was (..., auto value)' $P/nca/nca.cpp || { echo "austinvhuang: logdat not adapted" >&2; exit 2; }

# --- burstknight: LibTorch practice programs: a DCGAN (generator/discriminator, Adam, alternating updates) on
# MNIST with sample images written by OpenCV, and a small fully connected net (simpleNet: forward, save/load);
# units dcgan_strurct/src/main.cpp and simpleNet/src/main.cpp (tensorEye/, an 11-line torch::eye print, left out).
# Real headers: OpenCV (libopencv-dev; main.cpp names <opencv4/opencv2/opencv.hpp>, found under /usr/include);
# no stand-ins, no adapted lines.
P=burstknight_LibtorchPractice
printf '%s\n' dcgan_strurct/src/main.cpp simpleNet/src/main.cpp > $P/audit-units
printf '%s\n' -I/usr/include/opencv4 > $P/audit-flags
echo '^$PROJECT/[a-zA-Z]+/includes/' > $P/audit-header-filter

# --- DominionSoftware: CIFAR-100 ResNet classifiers (coarse 20-class and fine 100-class models trained side by
# side, and a multi-GPU variant) with project-made schedulers (cosine annealing, reduce-on-plateau), a hybrid
# optimizer, a KL-divergence loss, CutMix/one-hot transforms, a binary CIFAR-100 dataset and evaluation under
# NoGradGuard; every unit of Training/Source. The CMake file sets C++20; analysed as C++17 (LibTorch 1.13 does
# not compile as C++20 under clang). No other headers needed; no stand-ins, no adapted lines.
P=DominionSoftware_LibTorchExamples
(cd $P && find Training/Source -name '*.cpp' | sort > audit-units)
printf '%s\n' '-I$PROJECT/Training/Source' > $P/audit-flags
echo '^$PROJECT/Training/Source/' > $P/audit-header-filter

# --- elbuho12Jesus: 2-D Gaussian splatting trained from COLMAP data: Gaussian parameters optimised with Adam
# (zero_grad/backward/step loop in main.cpp) through a custom autograd Function around the CUDA rasterizer, SSIM and
# depth-normal losses, a toy rasterizer; every C++ unit (the root *.cpp, ToyRasterizer.cpp included though CMake does
# not build it, and cuda_knn/spatial.cpp; the .cu kernels are not units and are not copied). Real headers: the CUDA
# toolkit's (/usr/local/cuda/include: cuda_runtime.h), OpenCV; the vendored third_party/glm is not copied (only
# the .cu side uses glm). Include paths as in CMakeLists.txt (cuda_knn, cuda_rasterizer). No stand-in, no adapted line.
P=elbuho12Jesus_2D-Gaussian-Splatting-with-libtorch
(cd $P && { ls *.cpp; echo cuda_knn/spatial.cpp; } > audit-units)
printf '%s\n' '-I$PROJECT' '-I$PROJECT/cuda_knn' '-I$PROJECT/cuda_rasterizer' -I/usr/local/cuda/include -I/usr/include/opencv4 > $P/audit-flags
echo '^$PROJECT/(cuda_knn/|cuda_rasterizer/)?[A-Za-z_0-9]+\.h$' > $P/audit-header-filter

# --- harishkool: three LibTorch sub-projects: PointNet point-cloud classification (a train loop with
# backward/step and a test loop over HDF5 data, pointnet/src/train.cpp), RetinaNet (ResNet + FPN + heads, anchors,
# focal loss, a COCO loader, a JSON config reader; no train loop yet) and SSD (VGG backbone, a COCO dataset; its
# train.cpp is a hello-world). Units: pointnet/src/*.cpp, RetinaNet/src/{config_reader,fpn,loss,train}.cpp,
# SSD/src/{train,vggssd}.cpp, SSD/src/data/data.cpp. Left out, work in progress that does not compile with any
# LibTorch: RetinaNet/src/anchors.cpp (anchors.h 21 declares a member twice), RetinaNet/src/cocoloader.cpp
# (cocoloader.h 56 is a syntax error; rapidjson used without its headers), RetinaNet/src/resnet.cpp (unfinished
# lambda at 87, Sequential forward results used as tensors), RetinaNet/src/retinanet.cpp (FPN undeclared in
# retinanet.h 35, forward() missing on ResNet/RetinaHead), SSD/src/vgg.cpp (`x` redefined 50-56); SSD/src/anchors.cpp
# and SSD/src/cocoloader.cpp include debug.h and imageutils.h, which the repository does not have (and their
# anchors.h/cocoloader.h share names with RetinaNet's; RetinaNet/include comes first on the include path).
# Real headers: jsoncpp ("json.h", libjsoncpp-dev), HDF5 C++ (H5Cpp.h, libhdf5-dev), OpenCV, nlohmann-json (Debian's
# in place of the vendored SSD/include/json.hpp, not copied). Stand-in: HighFive (highfive/H5*.hpp; libhighfive-dev
# is not in Debian 12), the File/DataSet members pointnet's train.cpp uses, interface only.
# Lines adapted (marked `// audit:`), pointnet written for LibTorch <= 1.4: torch::nn::BatchNorm (removed in 1.5;
# after Conv1d layers) becomes torch::nn::BatchNorm1d in include/input_transform.h 19-21, 38-40 and
# src/input_transform.cpp 21-23, 64-66; src/train.cpp 180 AdamOptions(2e-4).beta1(0.5) becomes
# .betas({0.5, 0.999}) (beta2 0.999 was the old default); ConvOptions .with_bias(true) (renamed .bias in 1.4)
# becomes .bias(true) in src/input_transform.cpp 9, 12, 15, 52, 55, 58 and src/model.cpp 12, 15, 18, 21 (23 lines in all)
P=harishkool_Pytorch-CPP
(cd $P && { find pointnet/src -name '*.cpp' | sort; printf '%s\n' RetinaNet/src/config_reader.cpp RetinaNet/src/fpn.cpp \
  RetinaNet/src/loss.cpp RetinaNet/src/train.cpp SSD/src/train.cpp SSD/src/vggssd.cpp SSD/src/data/data.cpp; } > audit-units)
sed -i -e '19,21s|^\(        \)torch::nn::BatchNorm \(bn_[123]{nullptr};\)$|\1torch::nn::BatchNorm1d \2 // audit: was torch::nn::BatchNorm (LibTorch <= 1.4)|' \
  -e '38,40s|^\(        \)torch::nn::BatchNorm \(bn_[123]{nullptr};\)$|\1torch::nn::BatchNorm1d \2 // audit: was torch::nn::BatchNorm (LibTorch <= 1.4)|' \
  $P/pointnet/include/input_transform.h
sed -i -e '21,23s|^\(.*\)torch::nn::BatchNorm(\([0-9]*\)));$|\1torch::nn::BatchNorm1d(\2)); // audit: was torch::nn::BatchNorm (LibTorch <= 1.4)|' \
  -e '64,66s|^\(.*\)torch::nn::BatchNorm(\([0-9]*\)));$|\1torch::nn::BatchNorm1d(\2)); // audit: was torch::nn::BatchNorm (LibTorch <= 1.4)|' \
  -e '9,58s|\.with_bias(true)));$|.bias(true))); // audit: was .with_bias(true) (LibTorch <= 1.3)|' \
  $P/pointnet/src/input_transform.cpp
sed -i -e '12,21s|\.with_bias(true)));$|.bias(true))); // audit: was .with_bias(true) (LibTorch <= 1.3)|' $P/pointnet/src/model.cpp
sed -i -e '180s|AdamOptions(2e-4).beta1(0.5));$|AdamOptions(2e-4).betas({0.5, 0.999})); // audit: was .beta1(0.5) (LibTorch <= 1.4)|' \
  $P/pointnet/src/train.cpp
[[ $(cat $P/pointnet/include/input_transform.h $P/pointnet/src/input_transform.cpp $P/pointnet/src/model.cpp \
  $P/pointnet/src/train.cpp | grep -c '// audit: was') == 23 ]] || { echo "harishkool: lines not adapted" >&2; exit 2; }
printf '%s\n' '-I$PROJECT/pointnet/include' '-I$PROJECT/RetinaNet/include' '-I$PROJECT/SSD/include' -I/usr/include/jsoncpp/json \
  -I/usr/include/nlohmann -I/usr/include/hdf5/serial -I/usr/include/opencv4 > $P/audit-flags
echo '^$PROJECT/(pointnet|RetinaNet|SSD)/(src|include)/' > $P/audit-header-filter
mkdir -p $P/_stubs/highfive
cat > $P/_stubs/highfive/H5File.hpp <<'EOF'
// stand-in: HighFive's File (interface only)
#pragma once
#include <highfive/H5DataSet.hpp>
#include <string>
namespace HighFive {
class File {
public:
  enum : unsigned { ReadOnly = 0x00u, ReadWrite = 0x01u, Truncate = 0x02u, Excl = 0x04u, Debug = 0x08u, Create = 0x10u };
  explicit File(const std::string &filename, unsigned openFlags = ReadOnly);
  DataSet getDataSet(const std::string &dataset_name) const;
};
} // namespace HighFive
EOF
cat > $P/_stubs/highfive/H5DataSet.hpp <<'EOF'
// stand-in: HighFive's DataSet (interface only)
#pragma once
#include <highfive/H5DataSpace.hpp>
namespace HighFive {
class DataSet {
public:
  template <typename T> void read(T &array) const;
  template <typename T> void write(const T &buffer);
  DataSpace getSpace() const;
};
} // namespace HighFive
EOF
cat > $P/_stubs/highfive/H5DataSpace.hpp <<'EOF'
// stand-in: HighFive's DataSpace (interface only)
#pragma once
#include <cstddef>
#include <vector>
namespace HighFive {
class DataSpace {
public:
  std::vector<std::size_t> getDimensions() const;
};
} // namespace HighFive
EOF
cat > $P/_stubs/highfive/H5Easy.hpp <<'EOF'
// stand-in: HighFive's H5Easy (interface only; pointnet includes it without using it)
#pragma once
#include <highfive/H5File.hpp>
EOF

# --- HwanWoongLee: U-Net binary segmentation (LibTorch) trained inside a Qt5 GUI (QSeg). Units: QSeg/UNet.cpp
# (the network), QSeg/MyDataset.cpp (OpenCV image/mask loading, Mat<->tensor), QSeg/Trainer.cpp (QThread: train
# loop with per-epoch validation, model load, inference), QSeg/QSeg.cpp (GUI glue that drives Trainer) and
# QSeg/framework.cpp (directory listing, Mat->QImage). QDrawLabel.cpp (labelling widget, no LibTorch) and main.cpp
# are left out; the vendored qcustomplot.cpp/.h are left out.
# Real headers: OpenCV (libopencv-dev), Qt5 (qtbase5-dev, incl. QtPrintSupport; -fPIC as Qt asks), LibTorch's
# c10/cuda headers (framework.h includes c10/cuda/CUDACachingAllocator.h) with CUDA toolkit headers from
# /usr/local/cuda/include.
# Stand-ins (interface only, under _stubs/): Windows.h (GetTickCount64, LoadLibraryA: what Trainer.cpp uses);
# ui_QSeg.h (uic output for QSeg.ui, not in the repository: uic's includes and Ui::QtGUIClass with its widget
# pointers, layouts left out); qcustomplot.h (the vendored plot widget: the Qt includes of the real header and the
# QCustomPlot/QCPAxis/QCPGraph members QSeg.cpp calls); c10/cuda/impl/cuda_cmake_macros.h (generated by PyTorch's
# CMake, missing from Debian's LibTorch 1.13). No moc output is needed by these units (moc output is linked, not
# included).
# One line adapted (marked `// audit:`): QSeg.h 48 `cv::Mat& _image = cv::Mat()` (an MSVC extension binding a
# non-const reference to a temporary; clang rejects it) becomes
# `cv::Mat& _image = const_cast<cv::Mat&>(static_cast<const cv::Mat&>(cv::Mat()))` (the same temporary).
P=HwanWoongLee_Libtorch_UNet_inQT
printf '%s\n' QSeg/UNet.cpp QSeg/MyDataset.cpp QSeg/Trainer.cpp QSeg/QSeg.cpp QSeg/framework.cpp > $P/audit-units
printf '%s\n' '-I$PROJECT/QSeg' -I/usr/include/opencv4 -I/usr/include/x86_64-linux-gnu/qt5 \
  -I/usr/include/x86_64-linux-gnu/qt5/QtCore -I/usr/include/x86_64-linux-gnu/qt5/QtGui \
  -I/usr/include/x86_64-linux-gnu/qt5/QtWidgets -I/usr/local/cuda/include -fPIC > $P/audit-flags
echo '^$PROJECT/QSeg/(UNet|Trainer|MyDataset|QSeg|QDrawLabel|framework)\.h$' > $P/audit-header-filter
mkdir -p $P/_stubs
mkdir -p $P/_stubs/c10/cuda/impl
printf '%s\n' "// stand-in: generated by PyTorch's CMake, missing from Debian's LibTorch 1.13" '#pragma once' \
  '#define C10_CUDA_BUILD_SHARED_LIBS' > $P/_stubs/c10/cuda/impl/cuda_cmake_macros.h
cat > $P/_stubs/Windows.h <<'EOF'
// stand-in: <Windows.h> (interface only: what the units use)
#pragma once
typedef unsigned long long ULONGLONG;
typedef struct HINSTANCE__ *HMODULE;
ULONGLONG GetTickCount64(void);
HMODULE LoadLibraryA(const char *lpLibFileName);
EOF
cat > $P/_stubs/ui_QSeg.h <<'EOF'
// stand-in: uic output for QSeg.ui (interface only): the includes uic writes for it (layouts and spacers left
// out), QtCore/QThread, and Ui::QtGUIClass with the widget pointers (layout pointers left out)
#pragma once
#include <QtCore/QVariant>
#include <QtCore/QThread>
#include <QtGui/QIcon>
#include <QtWidgets/QApplication>
#include <QtWidgets/QHeaderView>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QMainWindow>
#include <QtWidgets/QProgressBar>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QRadioButton>
#include <QtWidgets/QStackedWidget>
#include <QtWidgets/QStatusBar>
#include <QtWidgets/QTableWidget>
#include <QtWidgets/QTreeWidget>
#include <QtWidgets/QWidget>
#include "QDrawLabel.h"
#include "qcustomplot.h"
class Ui_QtGUIClass {
public:
  QWidget *centralWidget, *w_Menu, *w_Background, *page_data, *w_Temp, *w_Param, *w_DataInfo, *widget, *w_Info,
      *page_train, *widget_2, *w_Train_pram, *widget_3, *widget_train_work, *page_label, *widget_4, *w_Label_pram,
      *w_Label_work, *widget_7, *widget_5, *page_test, *widget_6, *w_Test, *w_Test_work;
  QProgressBar *progressBar;
  QRadioButton *RBTN_both, *RBTN_mask;
  QTableWidget *TABLE_DATA, *TABLE_LABEL, *TABLE_TEST;
  QPushButton *BTN_menu_data, *BTN_menu_train, *BTN_menu_label, *BTN_menu_test, *BTN_load_dataset, *BTN_path_backup,
      *BTN_train_backuppath, *BTN_train_train, *BTN_Label_loaddata, *BTN_label_masking, *SENSOR_background,
      *SENSOR_object, *BTN_Test_modelpath, *BTN_Test_loaddata, *BTN_Test_test;
  QLineEdit *EDIT_load_dataset, *EDIT_path_backup, *EDIT_Info_width, *EDIT_Info_height, *EDIT_Info_channel,
      *EDIT_train_backuppath, *EDIT_train_batchsize, *EDIT_train_epoch, *EDIT_Label_imagepath, *EDIT_Label_brushSize,
      *EDIT_Test_modelpath, *EDIT_Test_loaddata;
  QCustomPlot *customPlot;
  QLabel *label_13, *label_14, *label_all, *label_train, *label_val, *label_4, *label_5, *label_6, *image_viwer,
      *label, *label_2, *label_3, *label_9, *label_8, *label_7, *label_15, *label_16, *label_12, *label_11,
      *label_10, *label_17, *label_18, *Test_viewer2, *Test_viewer;
  QTreeWidget *treeWidget;
  QDrawLabel *Label_viewer2, *Label_viewer;
  QStackedWidget *w_Work;
  QListWidget *train_log;
  QStatusBar *statusBar;
  void setupUi(QMainWindow *QtGUIClass);
  void retranslateUi(QMainWindow *QtGUIClass);
};
namespace Ui {
class QtGUIClass : public Ui_QtGUIClass {};
} // namespace Ui
EOF
cat > $P/_stubs/qcustomplot.h <<'EOF'
// stand-in: the vendored QCustomPlot (qcustomplot.h, left out), interface only: what QSeg.cpp uses, and the
// Qt includes of the real header (Qt5 branch; QtPrintSupport's umbrella brings QtWidgets and QtGui)
#pragma once
#include <QtCore/QDateTime>
#include <QtGui/QMouseEvent>
#include <QtPrintSupport/QtPrintSupport>
#include <QtCore/QDateTime>
#include <QtCore/QString>
#include <QtCore/QVector>
#include <QtGui/QBrush>
#include <QtGui/QPen>
#include <QtWidgets/QWidget>
class QCPLineEnding {
public:
  enum EndingStyle { esNone, esFlatArrow, esSpikeArrow, esLineArrow, esDisc, esSquare, esDiamond, esBar, esHalfBar, esSkewedBar };
  QCPLineEnding(EndingStyle style);
};
class QCPGrid {
public:
  void setPen(const QPen &pen);
  void setSubGridPen(const QPen &pen);
  void setZeroLinePen(const QPen &pen);
  void setSubGridVisible(bool visible);
};
class QCPAxis {
public:
  QCPGrid *grid() const;
  void setBasePen(const QPen &pen);
  void setTickPen(const QPen &pen);
  void setSubTickPen(const QPen &pen);
  void setTickLabelColor(const QColor &color);
  void setLabelColor(const QColor &color);
  void setUpperEnding(const QCPLineEnding &ending);
  void setRange(double lower, double upper);
  void setLabel(const QString &str);
};
class QCPGraph {
public:
  void setName(const QString &name);
  void setPen(const QPen &pen);
  void setBrush(const QBrush &brush);
  void setData(const QVector<double> &keys, const QVector<double> &values, bool alreadySorted = false);
};
class QCPLegend {
public:
  void setVisible(bool on);
};
class QCustomPlot : public QWidget {
public:
  QCPAxis *xAxis, *yAxis, *xAxis2, *yAxis2;
  QCPLegend *legend;
  void setBackground(const QBrush &brush);
  QCPGraph *graph(int index) const;
  QCPGraph *addGraph(QCPAxis *keyAxis = nullptr, QCPAxis *valueAxis = nullptr);
  bool clearGraphs();
  void replot();
};
EOF
sed -i -E '48s/cv::Mat& _image = cv::Mat\(\)\);/cv::Mat\& _image = const_cast<cv::Mat\&>(static_cast<const cv::Mat\&>(cv::Mat()))); \/\/ audit: was cv::Mat\& _image = cv::Mat() (MSVC extension)/' $P/QSeg/QSeg.h
[[ $(grep -c '// audit: was cv::Mat& _image' $P/QSeg/QSeg.h) == 1 ]] || { echo "HwanWoongLee: QSeg.h 48 not adapted" >&2; exit 2; }

# --- Ipsedo: MNIST / CIFAR-10 linear and convolutional classifiers with a hand-written batch train loop and a
# test-set evaluation in src/main.cpp; all 4 units (src/main.cpp, src/data/*.cpp). No Debian package needed
# beyond LibTorch. <tqdm/tqdm.h> (tqdm-cpp, vendored as a submodule under libs/tqdm, not in the export, not in
# Debian): stand-in _stubs/tqdm/tqdm.h (interface only: tqdm::range). read_mnist.cpp and read_cifar10.cpp use
# std::ifstream without <fstream>: -includefstream. No source line adapted.
P=Ipsedo_libtorch_samples
printf '%s\n' src/main.cpp src/data/read_mnist.cpp src/data/read_cifar10.cpp src/data/repr.cpp > $P/audit-units
printf '%s\n' '-I$PROJECT/src' '-includefstream' > $P/audit-flags
echo '^$PROJECT/src/' > $P/audit-header-filter
mkdir -p $P/_stubs/tqdm
cat > $P/_stubs/tqdm/tqdm.h <<'EOF'
// stand-in: tqdm-cpp's tqdm::range (interface only)
#pragma once
#include <vector>
namespace tqdm {
std::vector<int> range(int begin, int end);
} // namespace tqdm
EOF

# --- jiamny: LibTorch C++ port of the "Dive into Deep Learning" book (one program per section); 7 training /
# evaluation programs that do not use Matplot++: Deep_Q_network (DQN on CartPole), custom-dataset (image-folder
# dataset + CNN training), autograd, linear_regression_concise, rnn_example, ConvolutionalLayers (edge-kernel
# learning), NaturalLanguageInferenceBert (BERT fine-tuning on SNLI); shared code copied with them: src/utils.{h,cpp},
# src/TempHelpFunctions.hpp, src/utils/ch_{8_9,14,15}_util.{h,cpp}. Real Debian headers: OpenCV (libopencv-dev),
# jsoncpp (libjsoncpp-dev). No stand-ins. One adapted line (marked `// audit:`, line numbers kept):
# utils/ch_14_util.h 255 `std::optional<long int> dim` becomes `c10::optional<long int> dim` (in LibTorch 2.x
# c10::optional is std::optional; 1.13's repeat_interleave takes c10::optional; same value).
# Left out: Transformer.cpp, NadarayaWatsonKernelRegression.cpp, BahdanauAttention.cpp (src/10_Attention_mechanisms)
# and 11_Optimization_algorithms/RMSProp.cpp: they call Matplot++ themselves (figure(), matplot::plot/show) and
# include it through utils/ch_10_util.h / ch_11_util.h; Matplot++ is not in Debian and no stand-in is used.
P=jiamny_Dive_into_deep_learning_with_libtorch
printf '%s\n' src/19_Reinforcement_Learning/Deep_Q_network.cpp src/07_ModernConvolutionalNeuralNetworks/custom-dataset.cpp \
  src/02_Preliminaries/autograd.cpp src/03_LinearNeuralNetworks/linear_regression_concise.cpp \
  src/08_RecurrentNeuralNetworks/rnn_example.cpp src/06_ConvolutionalNeuralNetworks/ConvolutionalLayers.cpp \
  src/15_NLP_applications/NaturalLanguageInferenceBert.cpp > $P/audit-units
printf '%s\n' '-I$PROJECT/src' -I/usr/include/opencv4 -I/usr/include/jsoncpp > $P/audit-flags
echo '^$PROJECT/src/' > $P/audit-header-filter
sed -i -e '255s|^\(\s*\)std::optional<long int> dim = {0};$|\1c10::optional<long int> dim = {0}; // audit: was std::optional (LibTorch 2.x)|' \
  $P/src/utils/ch_14_util.h
[[ $(grep -c '// audit: was std::optional' $P/src/utils/ch_14_util.h) == 1 ]] || { echo "jiamny: ch_14_util.h 255 not adapted" >&2; exit 2; }

# --- JJBUP: a LibTorch tutorial program: tensor basics, autograd, linear regression, a LeNet-style image
# classifier, a ResNet-50 Alzheimer's MRI classifier (custom OpenCV image dataset, StepLR scheduler, per-epoch
# evaluation) and TorchScript tracing/loading; every unit of the CMake globs (libtorch_main.cpp,
# src_model/*.cpp, src_dataset/*.cpp). Real headers: OpenCV (libopencv-dev); no stand-ins.
# Four lines adapted (marked `// audit:`, line numbers kept): ImageDataset::size() returns std::optional<size_t>,
# which is c10::optional only from LibTorch 2.x (in 1.13 the override does not match): std::optional becomes
# torch::optional in image_dataset.h 10, image_dataset.cpp 58 and libtorch_main.cpp 377; libtorch_main.cpp 238 `a.where(a > 0.5, -1)` uses
# the LibTorch 2.x Tensor::where(cond, Scalar) overload; the -1 becomes `torch::scalar_tensor(-1, a.options())`
# (the same values).
P=JJBUP_libtorch_code
(cd $P && { echo libtorch_main.cpp; find src_model src_dataset -name '*.cpp' | sort; } > audit-units)
printf '%s\n' '-I$PROJECT' '-I$PROJECT/src_model' '-I$PROJECT/src_dataset' -I/usr/include/opencv4 > $P/audit-flags
echo '^$PROJECT/(src_model|src_dataset)/' > $P/audit-header-filter
sed -i '238s|a\.where(a > 0\.5, -1)\(.*\)$|a.where(a > 0.5, torch::scalar_tensor(-1, a.options()))\1 // audit: was , -1) (LibTorch 2.x)|' \
  $P/libtorch_main.cpp
grep -q 'audit: was , -1)' $P/libtorch_main.cpp || { echo "JJBUP: where line not adapted" >&2; exit 2; }
sed -i '10s|std::optional<size_t>\(.*\)$|torch::optional<size_t>\1 // audit: was std::optional (LibTorch 2.x)|' $P/src_dataset/image_dataset.h
sed -i '58s|^std::optional<size_t>\(.*\)$|torch::optional<size_t>\1 // audit: was std::optional (LibTorch 2.x)|' $P/src_dataset/image_dataset.cpp
sed -i '377s|std::optional<size_t>\(.*\)$|torch::optional<size_t>\1 // audit: was std::optional (LibTorch 2.x)|' $P/libtorch_main.cpp
[[ $(cat $P/src_dataset/image_dataset.h $P/src_dataset/image_dataset.cpp $P/libtorch_main.cpp | grep -c 'audit: was std::optional') == 3 ]] ||
  { echo "JJBUP: optional lines not adapted" >&2; exit 2; }

# --- soumik12345: four small MNIST/synthetic examples (linear regression, logistic regression, MLP and ConvNet
# classifiers), each a main.cpp plus header-only trainer/tester classes; the 4 example main.cpp units (the
# top-level main.cpp only prints a string: left out). C++14 in CMake, analysed as C++17. Only LibTorch needed.
# The include dirs of all four examples go in audit-flags (their header names do not clash).
# "vendors/cpptqdm/tqdm.h" (aminnj/cpptqdm, a git submodule under libtorch-examples/include/vendors, not in the
# export, not in Debian): stand-in _stubs/vendors/cpptqdm/tqdm.h (interface only: class tqdm). No source line
# adapted.
P=soumik12345_libtorch-examples
printf '%s\n' libtorch-examples/convnet/main.cpp libtorch-examples/linear-regression/main.cpp \
  libtorch-examples/logistic-regression/main.cpp libtorch-examples/multi-layered-perceptron/main.cpp > $P/audit-units
printf '%s\n' '-I$PROJECT/libtorch-examples/include' '-I$PROJECT/libtorch-examples/convnet/include' \
  '-I$PROJECT/libtorch-examples/linear-regression/include' '-I$PROJECT/libtorch-examples/logistic-regression/include' \
  '-I$PROJECT/libtorch-examples/multi-layered-perceptron/include' > $P/audit-flags
echo '^$PROJECT/libtorch-examples/' > $P/audit-header-filter
mkdir -p $P/_stubs/vendors/cpptqdm
cat > $P/_stubs/vendors/cpptqdm/tqdm.h <<'EOF'
// stand-in: aminnj/cpptqdm's progress bar (interface only)
#pragma once
class tqdm {
public:
  tqdm();
  void progress(int curr, int tot);
  void finish();
};
EOF

# --- tusharsangam: dog-breed image classification (133 classes): a small CNN trained from scratch, VGG-16 with
# weights read from a binary dump, and transfer learning (frozen VGG features + new classifier); custom dataset
# (OpenCV image loading, transforms), a hand-written DataLoader, train/validation/test loops and an evaluation
# over a directory of images. Units: every src/*.cpp of the CMake glob except pch.cpp (empty). Real headers:
# OpenCV (libopencv-dev), Boost.Filesystem (libboost-filesystem-dev); no stand-ins. 15 lines adapted (marked
# `// audit:`, line numbers kept): Storage::elementSize() (an early-LibTorch API, gone by 1.13) becomes
# Tensor::element_size() (the same byte count) in model.cpp 60, 69, 101, 106, 179, 212, 217, 259, 270, 295, 305,
# 333, 338 and import-export-trial.cpp 12, 13 (the commented-out model.cpp 178 is left).
P=tusharsangam_DogBreedClassification-CNN-libtorch-Cpp
printf '%s\n' src/Source.cpp src/model.cpp src/dogbreeddataset.cpp src/dataloader.cpp src/transforms.cpp \
  src/import-export-trial.cpp > $P/audit-units
printf '%s\n' '-I$PROJECT/src' -I/usr/include/opencv4 > $P/audit-flags
echo '^$PROJECT/src/' > $P/audit-header-filter
for l in 60 69 101 106 179 212 217 259 270 295 305 333 338; do
  sed -i "${l}s|storage()\\.elementSize()\\(.*\\)\$|element_size()\\1 // audit: was storage().elementSize()|" $P/src/model.cpp
done
sed -i '12,13s|storage()\.elementSize()\(.*\)$|element_size()\1 // audit: was storage().elementSize()|' $P/src/import-export-trial.cpp
[[ $(cat $P/src/model.cpp $P/src/import-export-trial.cpp | grep -c '// audit: was storage') == 15 &&
  $(cat $P/src/model.cpp $P/src/import-export-trial.cpp | grep -c 'elementSize()') == 16 ]] ||
  { echo "tusharsangam: elementSize lines not adapted" >&2; exit 2; }

ls "$PROJECTS"
