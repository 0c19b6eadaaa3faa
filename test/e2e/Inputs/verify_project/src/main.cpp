// Command line: trainer [--epochs N] DATA_DIR. Includes no LibTorch header.
#include "train.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>

int main(int argc, char **argv) {
  TrainOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--epochs" && i + 1 < argc)
      options.epochs = std::atoi(argv[++i]);
    else
      options.data_dir = arg;
  }
  struct stat st;
  if (options.data_dir.empty() || stat(options.data_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "usage: trainer [--epochs N] DATA_DIR (a directory)\n");
    return 2;
  }
  train(options);
  return 0;
}
