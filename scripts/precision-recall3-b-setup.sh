#!/usr/bin/env bash
# Lays out the projects of the third recall round, half b (supervised training and evaluation outside RL and
# GANs: classification, segmentation, time series; docs/precision.md, "Recall round 3") for
# scripts/precision-projects.sh: one directory per repository under PROJECTS, holding the parts of the
# repository that were analysed, its audit-units / audit-flags / audit-header-filter files (no stand-ins were
# needed: every header used is a real Debian one).
#
#   scripts/precision-recall3-b-setup.sh CLONES PROJECTS
#
# CLONES holds one copy per repository, named <owner>_<repo>, of the commit the table names: a clone (its commit
# is checked) or an exported tree (`git archive COMMIT | tar -x`, not checked). Debian packages used as real
# headers: libopencv-dev (4.6), libpoco-dev (Poco JSON), qtbase5-dev and libqt5charts5-dev (Qt 5.15: Core,
# Widgets, Sql, Charts), libcurl4-openssl-dev, nlohmann-json3-dev, libsndfile1-dev, libboost-dev.
set -euo pipefail
CLONES=$(realpath "${1:?usage: precision-recall3-b-setup.sh CLONES PROJECTS}")
PROJECTS=$(realpath -m "${2:?usage: precision-recall3-b-setup.sh CLONES PROJECTS}")
mkdir -p "$PROJECTS"

# name  commit  paths to copy (relative to the clone)
read -r -d '' TABLE <<'EOT' || true
AlexeyIvanov90_Siam_NN_libtorch ce6ac8ea0158 main.cpp model.cpp model.h data_set.cpp data_set.h siam_data_set.cpp siam_data_set.h siam_data_loader.cpp siam_data_loader.h utility.cpp utility.h
Navifra-Kerry_SemanticSegmentation-Libtorch e3a148fe95cf src include
lacskam_LibtorchSalesPrediction- 507b48ce187b neiro
rahimkhan76270_libtorch-titanet a048bdc55029 main.cpp src include
jmframe_nh-libtorch d4145f60f74a lstm.cpp CSV_Reader.h
EOT

# shellcheck source=scripts/precision-layout.sh
source "$(dirname "$0")/precision-layout.sh"
layout_projects precision-recall3-b-setup.sh 1 <<<"$TABLE"

cd "$PROJECTS"
OPENCV=-I/usr/include/opencv4
QT=/usr/include/x86_64-linux-gnu/qt5

# --- AlexeyIvanov90: a Siamese ConvNet (contrastive loss) trained on image pairs, a validation error per epoch,
# a multi-shot classifier over directories of reference images; every unit. utility.cpp names CV_BGR2RGB, an
# OpenCV 3 constant that OpenCV 4 keeps in <opencv2/imgproc/types_c.h> (a later header than the project was
# built with includes it): -include opencv2/imgproc/types_c.h; model.cpp, data_set.cpp and siam_data_set.cpp use
# std::ofstream/std::fstream without <fstream> (MSVC reaches it through other headers): -include fstream
P=AlexeyIvanov90_Siam_NN_libtorch
printf '%s\n' main.cpp model.cpp data_set.cpp siam_data_set.cpp siam_data_loader.cpp utility.cpp > $P/audit-units
printf '%s\n' '-I$PROJECT' "$OPENCV" -include opencv2/imgproc/types_c.h -include fstream > $P/audit-flags
echo '^$PROJECT/[a-z_]+\.h$' > $P/audit-header-filter

# --- Navifra-Kerry: DeepLabV3 (ResNet-101) semantic segmentation on COCO with a header-only training loop
# (include/training.h), a metric logger and a confusion matrix; every unit of CMakeLists.txt's SRC_FILE. The
# bundled Windows build of Poco 1.9.4 is not used: Debian's Poco (1.11) JSON headers, as the CMake file's UNIX
# branch does. main.cpp uses std::experimental::filesystem off Windows (libstdc++ has it).
P=Navifra-Kerry_SemanticSegmentation-Libtorch
(cd $P && find src -name '*.cpp' | sort > audit-units)
printf '%s\n' '-I$PROJECT/include' "$OPENCV" -D__CUDA_NO_HALF_OPERATORS__ > $P/audit-flags
echo '^$PROJECT/(include|src)/' > $P/audit-header-filter

# --- lacskam: an LSTM sales forecaster in a Qt application (training per product in learn(), a day-by-day
# prediction() for the chart); the neiro/ application (Plot/ is an earlier copy of the GUI without LibTorch).
# Qt 5 with -fPIC (Qt's headers require position-independent code); weather.h includes
# "/usr/include/nlohmann/json.hpp" by absolute path (Debian's nlohmann-json3-dev is there). mslq.cpp 181 narrows
# ints into a braced list of doubles (an error for clang, a warning for GCC): -Wno-c++11-narrowing
P=lacskam_LibtorchSalesPrediction-
printf '%s\n' neiro/main.cpp neiro/file.cpp neiro/nn.cpp neiro/mslq.cpp neiro/plot.cpp neiro/weather.cpp > $P/audit-units
printf '%s\n' '-I$PROJECT/neiro' -fPIC -Wno-c++11-narrowing "-isystem$QT" "-isystem$QT/QtCore" "-isystem$QT/QtGui" "-isystem$QT/QtWidgets" \
  "-isystem$QT/QtSql" "-isystem$QT/QtCharts" "-isystem$QT/QtNetwork" > $P/audit-flags
echo '^$PROJECT/neiro/' > $P/audit-header-filter

# --- rahimkhan76270: TitaNet speaker recognition (MFCC features, a squeeze-excitation encoder, attentive
# statistics pooling) trained with SGD on LibriSpeech file lists; every unit (main.cpp, src/*.cpp). libsndfile
# (Debian's libsndfile1-dev) reads the audio. spectrogram.h uses std::optional without <optional> (a later LibTorch
# includes it): -include optional
P=rahimkhan76270_libtorch-titanet
(cd $P && { echo main.cpp; find src -name '*.cpp' | sort; } > audit-units)
printf '%s\n' '-I$PROJECT/include' -include optional > $P/audit-flags
echo '^$PROJECT/(include|src)/' > $P/audit-header-filter

# --- jmframe: a NeuralHydrology LSTM (TorchScript) run over a catchment's forcing series, one time step per
# forward pass with the recurrent state fed back; the one unit (lstm.cpp; CSV_Reader.h uses Boost's string
# algorithms, Debian's libboost-dev). The LFS-like data files of the repository are not needed (not exported).
P=jmframe_nh-libtorch
echo lstm.cpp > $P/audit-units
printf '%s\n' '-I$PROJECT' > $P/audit-flags
echo '^$PROJECT/[A-Za-z_]+\.h$' > $P/audit-header-filter

ls "$PROJECTS"
