// No LibTorch here: the prefilter skips it.
#include "config.h"
int total_size(const Config &c) {
  int s = 0;
  for (int v : c.sizes)
    s += v;
  return s;
}
// A name that would be flagged if it were analysed and looked like LibTorch
// code; it is not, so nothing is reported even with --all.
double validate_config(const Config &c) { return double(total_size(c)); }
