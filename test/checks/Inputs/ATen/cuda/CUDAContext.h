// Mock of <ATen/cuda/CUDAContext.h>: the streams of c10/cuda/CUDAStream.h.
#pragma once
#include "../../c10/cuda/CUDAStream.h"
