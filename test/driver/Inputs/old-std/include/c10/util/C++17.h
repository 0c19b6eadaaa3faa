// Stands in for c10/util/C++17.h of LibTorch 1.13: an #error when the language
// standard is too old, then code that needs C++14, as the real header has, with
// enough errors that clang stops ("too many errors emitted").
#if __cplusplus < 201402L
#error You need C++14 to compile PyTorch
#endif
#include <type_traits>

using c10_conditional_1 = std::conditional_t<true, int, long>;
using c10_conditional_2 = std::conditional_t<true, int, long>;
using c10_conditional_3 = std::conditional_t<true, int, long>;
using c10_conditional_4 = std::conditional_t<true, int, long>;
using c10_conditional_5 = std::conditional_t<true, int, long>;
using c10_conditional_6 = std::conditional_t<true, int, long>;
using c10_conditional_7 = std::conditional_t<true, int, long>;
using c10_conditional_8 = std::conditional_t<true, int, long>;
using c10_conditional_9 = std::conditional_t<true, int, long>;
using c10_conditional_10 = std::conditional_t<true, int, long>;
using c10_conditional_11 = std::conditional_t<true, int, long>;
using c10_conditional_12 = std::conditional_t<true, int, long>;
using c10_conditional_13 = std::conditional_t<true, int, long>;
using c10_conditional_14 = std::conditional_t<true, int, long>;
using c10_conditional_15 = std::conditional_t<true, int, long>;
using c10_conditional_16 = std::conditional_t<true, int, long>;
using c10_conditional_17 = std::conditional_t<true, int, long>;
using c10_conditional_18 = std::conditional_t<true, int, long>;
using c10_conditional_19 = std::conditional_t<true, int, long>;
using c10_conditional_20 = std::conditional_t<true, int, long>;
using c10_conditional_21 = std::conditional_t<true, int, long>;
using c10_conditional_22 = std::conditional_t<true, int, long>;
using c10_conditional_23 = std::conditional_t<true, int, long>;
using c10_conditional_24 = std::conditional_t<true, int, long>;
using c10_conditional_25 = std::conditional_t<true, int, long>;
