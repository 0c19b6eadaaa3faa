// Mock of LibTorch's c10/util/Exception.h: the checking macros as they
// expand (an `if` on the negated condition whose branch calls a function
// that does not return).
#pragma once

#define C10_UNLIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 0))

namespace c10::detail {
[[noreturn]] void torchCheckFail(const char *func, const char *file, unsigned line,
                                 const char *msg);
[[noreturn]] void torchInternalAssertFail(const char *func, const char *file, unsigned line,
                                          const char *cond, const char *msg);
} // namespace c10::detail

#define TORCH_CHECK(cond, ...)                                                                     \
  if (C10_UNLIKELY(!(cond))) {                                                                     \
    ::c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, #cond);                            \
  }

#define TORCH_INTERNAL_ASSERT(cond, ...)                                                           \
  if (C10_UNLIKELY(!(cond))) {                                                                     \
    ::c10::detail::torchInternalAssertFail(__func__, __FILE__, __LINE__, #cond, "");               \
  }

#define AT_ASSERT(...)                                                                             \
  do {                                                                                             \
    TORCH_INTERNAL_ASSERT(__VA_ARGS__);                                                            \
  } while (false)
