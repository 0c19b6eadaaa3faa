// Text helpers shared by the runtime's reports (series.cpp, evidence.cpp):
// printf-style formatting and JSON strings and numbers. Internal: not
// installed.
#ifndef LIBTORCH_TIDY_RUNTIME_SRC_TEXT_H
#define LIBTORCH_TIDY_RUNTIME_SRC_TEXT_H

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace libtorch_tidy::text {

inline std::string fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));
inline std::string fmt(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

/// \p s as a JSON string literal (quotes, backslashes and control characters escaped).
inline std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt("\\u%04x", c);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// \p v with six significant digits; null when it is not finite.
inline std::string jsonNumber(double v) { return std::isfinite(v) ? fmt("%.6g", v) : "null"; }

}  // namespace libtorch_tidy::text

#endif  // LIBTORCH_TIDY_RUNTIME_SRC_TEXT_H
