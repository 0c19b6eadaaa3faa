#!/usr/bin/env bash
# Lays out the eleven projects of the recall round of docs/precision.md ("Recall round: eleven whole
# projects") for scripts/precision-projects.sh: one directory per repository under PROJECTS, holding the
# parts of the repository that were analysed, its audit-units / audit-flags / audit-header-filter files
# and the few stand-ins (_stubs/) for headers Debian does not have.
#
#   scripts/precision-recall-setup.sh CLONES PROJECTS
#
# CLONES holds one clone per repository, named <owner>_<repo> (or <owner>+<repo>), each checked out at the
# commit the round names (this script downloads nothing, and checks the commit of each clone). Debian
# packages used as real headers: libopencv-dev, libcxxopts-dev, libboost-mpi-dev and libopenmpi-dev,
# libgtest-dev, python3-dev (for torch/extension.h).
set -euo pipefail
CLONES=$(realpath "${1:?usage: precision-recall-setup.sh CLONES PROJECTS}")
PROJECTS=$(realpath -m "${2:?usage: precision-recall-setup.sh CLONES PROJECTS}")
mkdir -p "$PROJECTS"

# name  commit  paths to copy (relative to the clone)
read -r -d '' TABLE <<'EOF' || true
QuentinVacher-rl_SoftActorCritic-in-Cpp-using-LibTorch ca4cc1ab8e0f src lib
fatalfeel_PPO_libtorch 8869aa6eb3db lunarlander_cpp bipedalwalker_cpp
lolmanjo_LibTorch_PPO ee8e9e336434 src include
madcato_libtorch-lm 07ac8ac2dc69 main.cpp src include
marmikshah_cyclegan-libtorch c30b9fcdcb9d src include
yncxcw_torch-cpp-trainer 9eeb3b2c908a src include example tests
cueltschey_wireless-DDoS-GAN 08991b5de14b main.cpp lib include external/CLI11/include
thisisi3_libtorch-faster-rcnn 1b6c917b91d6 train.cpp test.cpp frcnn cvops
laplaceliu_build-your-own-llm-using-cpp-and-libtorch 894686598d6c chapters
AllIAskOfYou_MLA 50adf81cecfe TorchProject2
kartik2309_LibTorchPlayground b943b96058cd main.cpp Projects Trainer TorchScriptUtilities
EOF

# shellcheck source=scripts/precision-layout.sh
source "$(dirname "$0")/precision-layout.sh"
layout_projects precision-recall-setup.sh 0 <<<"$TABLE"

cd "$PROJECTS"
# per-project compile flags ($PROJECT is the project's directory), units and header filters. Where a project
# has more translation units than those listed in its audit-units, the others hold no training or evaluation
# code (datasets, layers, tokenizers, environments): left out to fit the round on a loaded machine.
printf '%s\n' '-I$PROJECT/lib/JsonCpp' '-DROOT_DIR="/tmp"' \
  > QuentinVacher-rl_SoftActorCritic-in-Cpp-using-LibTorch/audit-flags

(cd fatalfeel_PPO_libtorch && ls lunarlander_cpp/*.cpp bipedalwalker_cpp/*.cpp | grep -v jniapi > audit-units)
echo '^$PROJECT/(lunarlander|bipedalwalker)_cpp/' > fatalfeel_PPO_libtorch/audit-header-filter
mkdir -p fatalfeel_PPO_libtorch/_stubs/gtk
cat > fatalfeel_PPO_libtorch/_stubs/gtk/gtk.h <<'EOF'
// stand-in: the GTK 2 names main_lunarlander.cpp uses (interface only)
#pragma once
typedef struct _GtkWidget GtkWidget;
typedef struct _GdkEvent GdkEvent;
typedef void *gpointer;
typedef int gboolean;
#define TRUE 1
#define GTK_WINDOW_TOPLEVEL 0
#define G_CALLBACK(f) ((void (*)(void))(f))
#define GTK_CONTAINER(w) (w)
void g_print(const char *, ...);
void gtk_main_quit(void);
void gtk_init(int *, char ***);
GtkWidget *gtk_window_new(int);
void gtk_widget_set_usize(GtkWidget *, int, int);
unsigned long g_signal_connect(GtkWidget *, const char *, void (*)(void), gpointer);
void gtk_container_set_border_width(GtkWidget *, unsigned);
GtkWidget *gtk_button_new_with_label(const char *);
void gtk_container_add(GtkWidget *, GtkWidget *);
void gtk_widget_show_all(GtkWidget *);
void gtk_main(void);
EOF

# Maths.h uses FLT_MIN without <cfloat> (MSVC reaches it through other headers)
printf '%s\n' '-I$PROJECT/include' '-includecfloat' > lolmanjo_LibTorch_PPO/audit-flags
printf '%s\n' src/Main.cpp src/TrainingController.cpp src/Models.cpp > lolmanjo_LibTorch_PPO/audit-units
# the one adapted line of the round: LibTorch 1.13 has no Tensor(nullptr) (a later LibTorch's constructor)
sed -i '45s|inputTensor(nullptr), inputTensorDevice(nullptr) {}|inputTensor(), inputTensorDevice() {} // audit: (nullptr) -> (), LibTorch 1.13 has no Tensor(nullptr)|' \
  lolmanjo_LibTorch_PPO/src/TrainingController.cpp

echo '^$PROJECT/(src|include)/' > madcato_libtorch-lm/audit-header-filter
printf '%s\n' main.cpp src/train.cpp src/inference.cpp > madcato_libtorch-lm/audit-units

printf '%s\n' '-I$PROJECT/include' '-I/usr/include/opencv4' > marmikshah_cyclegan-libtorch/audit-flags
echo '^$PROJECT/(src|include)/' > marmikshah_cyclegan-libtorch/audit-header-filter

# cifar10_dataset.cpp uses std::ifstream without <fstream>
printf '%s\n' '-I$PROJECT/include' '-I$PROJECT/example/cifar10_resnet' '-includefstream' \
  > yncxcw_torch-cpp-trainer/audit-flags
echo '^$PROJECT/(src|include|example|tests)/' > yncxcw_torch-cpp-trainer/audit-header-filter

printf '%s\n' main.cpp lib/io_lib/image_classifier.cpp lib/io_lib/input_buffer.cpp lib/io_lib/ip_manager.cpp \
  > cueltschey_wireless-DDoS-GAN/audit-units
printf '%s\n' '-I$PROJECT/include' '-I$PROJECT/external/CLI11/include' '-I/usr/include/opencv4' \
  > cueltschey_wireless-DDoS-GAN/audit-flags
echo '^$PROJECT/(lib|include|main)' > cueltschey_wireless-DDoS-GAN/audit-header-filter

# (cvops/ROIPool_cpu.cpp would not compile: it includes TH/TH.h, which LibTorch 1.13 no longer ships)
printf '%s\n' train.cpp test.cpp frcnn/trainer.cpp frcnn/utils.cpp frcnn/rcnn_head.cpp frcnn/rpn_head.cpp \
  > thisisi3_libtorch-faster-rcnn/audit-units
printf '%s\n' '-I$PROJECT/frcnn' '-I$PROJECT/cvops' '-I/usr/include/opencv4' '-isystem/usr/include/python3.11' \
  > thisisi3_libtorch-faster-rcnn/audit-flags
echo '^$PROJECT/(frcnn|cvops)/' > thisisi3_libtorch-faster-rcnn/audit-header-filter

rm -rf laplaceliu_build-your-own-llm-using-cpp-and-libtorch/chapters/chapter02_text_data/third_party
printf '%s\n' chapters/chapterD_training_loop/src/main.cpp chapters/chapter05_pretraining/src/main.cpp \
  chapters/chapter06_finetuning/src/main.cpp > laplaceliu_build-your-own-llm-using-cpp-and-libtorch/audit-units
{ for d in chapter02_text_data chapter03_attention chapter04_gpt chapter05_pretraining chapter06_finetuning \
           chapter07_instruction_tuning chapterD_training_loop chapterE_lora chapterF_reasoning; do
    echo "-I\$PROJECT/chapters/$d/include"; done
  echo '-DDATA_DIR="/tmp"'; echo '-DTOKENIZER_DIR="/tmp"'; } \
  > laplaceliu_build-your-own-llm-using-cpp-and-libtorch/audit-flags
echo '^$PROJECT/chapters/' > laplaceliu_build-your-own-llm-using-cpp-and-libtorch/audit-header-filter

# PipeServer.h (included by GameSession.h) needs Win32 stand-ins
printf '%s\n' TorchProject2/DQN.cpp TorchProject2/DQNA.cpp TorchProject2/PDQN.cpp TorchProject2/GameSession.cpp \
  > AllIAskOfYou_MLA/audit-units
echo '^$PROJECT/TorchProject2/' > AllIAskOfYou_MLA/audit-header-filter
mkdir -p AllIAskOfYou_MLA/_stubs
cat > AllIAskOfYou_MLA/_stubs/windows.h <<'EOF'
// stand-in: the Win32 names PipeServer.h declares members with (interface only)
#pragma once
typedef void *HANDLE;
typedef int BOOL;
typedef unsigned long DWORD;
typedef char TCHAR;
typedef TCHAR *LPTSTR;
#define INVALID_HANDLE_VALUE ((HANDLE)(long)-1)
#define FALSE 0
#define TRUE 1
EOF
printf '#pragma once\nint _getch(void);\n' > AllIAskOfYou_MLA/_stubs/conio.h
printf '#pragma once\n#define _T(x) x\n#define _tprintf printf\n' > AllIAskOfYou_MLA/_stubs/tchar.h

printf '%s\n' '-I$PROJECT' '-I/usr/include/opencv4' '-I/usr/lib/x86_64-linux-gnu/openmpi/include' \
  > kartik2309_LibTorchPlayground/audit-flags
echo '^$PROJECT/(Projects|Trainer|TorchScriptUtilities|main)' > kartik2309_LibTorchPlayground/audit-header-filter
printf '%s\n' main.cpp Trainer/Utilities/Metrics/Metrics.cpp > kartik2309_LibTorchPlayground/audit-units

ls "$PROJECTS"
