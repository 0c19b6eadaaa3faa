#pragma once
// A third-party library's header, included with angle brackets before
// LibTorch: it might define macros LibTorch's headers read, so it stays in
// the precompiled header of the files that include it first.
#define THIRDPARTY_CONFIG 1
