//===--- Http.h - HTTPS requests through curl -----------------------------===//
//
// The review command talks to the GitHub and GitLab REST APIs with Debian's
// curl as a child process (Process.h), not with an HTTP client
// of its own: TLS, proxies ($https_proxy), CA bundles and redirects are
// curl's, and the command stays a program that links LLVM Support only. The
// token travels in a header file (-H @file, mode 0600), never on a command
// line that `ps` shows.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_HTTP_H
#define LIBTORCH_TIDY_DRIVER_HTTP_H

#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace libtorch_tidy {

struct HttpRequest {
  std::string Method = "GET";
  std::string Url;
  std::vector<std::string> Headers; // "Name: value"
  std::string Body;                 // sent as JSON when not empty
};

struct HttpResponse {
  int Status = 0;    // 0: no response (see Error)
  std::string Body;
  std::string Error; // one line: why no response came (no curl, connection refused, ...)
};

/// curl: $LIBTORCH_TIDY_CURL, else `curl` on PATH.
HttpResponse httpRequest(const HttpRequest &Request);

} // namespace libtorch_tidy

#endif
