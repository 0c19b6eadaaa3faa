// libtorch-tidy runtime companion: measure memory per iteration of LibTorch
// loops. See docs/runtime.md.
#pragma once

#include <libtorch_tidy/cuda.h>
#include <libtorch_tidy/history.h>
#include <libtorch_tidy/measure.h>
#include <libtorch_tidy/memory.h>
#include <libtorch_tidy/series.h>
