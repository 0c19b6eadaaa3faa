// A project header that includes no LibTorch header.
#pragma once
#include <string>
#include <vector>
struct Config {
  std::string name;
  std::vector<int> sizes;
};
