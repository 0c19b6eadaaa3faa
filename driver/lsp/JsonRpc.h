//===--- JsonRpc.h - LSP base protocol: JSON-RPC 2.0 over stdio -----------===//
//
// Messages are framed by a "Content-Length: N" header and an empty line
// (the LSP base protocol). Reading is done by one thread (the server's main
// loop); writing is serialised by a mutex, so workers may publish.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_LSP_JSONRPC_H
#define LIBTORCH_TIDY_DRIVER_LSP_JSONRPC_H

#include "llvm/Support/JSON.h"
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

namespace libtorch_tidy::lsp {

/// JSON-RPC and LSP error codes.
enum ErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  ServerNotInitialized = -32002,
  RequestCancelled = -32800,
  RequestFailed = -32803,
};

class Transport {
public:
  Transport(std::FILE *In, std::FILE *Out) : In(In), Out(Out) {}
  /// The next message body; std::nullopt at end of input. A body that is not
  /// JSON yields a null Value and the error in ParseErrorText.
  std::optional<llvm::json::Value> read(std::string &ParseErrorText);

  void notify(llvm::StringRef Method, llvm::json::Value Params);
  void request(llvm::json::Value Id, llvm::StringRef Method, llvm::json::Value Params);
  void reply(llvm::json::Value Id, llvm::json::Value Result);
  void replyError(llvm::json::Value Id, int Code, llvm::StringRef Message);

private:
  void send(llvm::json::Object Message);
  std::FILE *In;
  std::FILE *Out;
  std::mutex WriteMutex;
};

} // namespace libtorch_tidy::lsp

#endif
