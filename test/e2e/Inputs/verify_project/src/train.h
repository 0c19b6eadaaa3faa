#pragma once
#include <string>

struct TrainOptions {
  int epochs = 10;
  std::string data_dir;
};

// Trains on the synthetic batches of options.data_dir; returns the last epoch's mean loss.
double train(const TrainOptions &options);
