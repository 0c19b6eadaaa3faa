// Includes LibTorch only through another project header.
#pragma once
#include "model.h"
