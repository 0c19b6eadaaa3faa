//===--- JsonRpc.cpp ------------------------------------------------------===//
#include "lsp/JsonRpc.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace libtorch_tidy::lsp {

namespace json = llvm::json;

std::optional<json::Value> Transport::read(std::string &ParseErrorText) {
  for (;;) {
    // Headers: lines up to an empty one; only Content-Length matters.
    std::optional<size_t> Length;
    std::string Line;
    bool SawHeader = false;
    for (;;) {
      Line.clear();
      int C;
      while ((C = std::getc(In)) != EOF && C != '\n')
        Line += char(C);
      if (C == EOF && Line.empty())
        return std::nullopt;
      llvm::StringRef L = llvm::StringRef(Line).rtrim("\r");
      if (L.empty()) {
        if (SawHeader)
          break;
        continue; // stray blank line between messages
      }
      SawHeader = true;
      auto [Name, Value] = L.split(':');
      if (Name.trim().equals_insensitive("Content-Length")) {
        size_t N;
        if (!Value.trim().getAsInteger(10, N))
          Length = N;
      }
      if (C == EOF)
        return std::nullopt;
    }
    if (!Length)
      continue; // a header block without a length: skip it
    std::string Body(*Length, '\0');
    if (*Length && std::fread(Body.data(), 1, *Length, In) != *Length)
      return std::nullopt;
    auto V = json::parse(Body);
    if (!V) {
      ParseErrorText = llvm::toString(V.takeError());
      return json::Value(nullptr);
    }
    ParseErrorText.clear();
    return std::move(*V);
  }
}

void Transport::send(json::Object Message) {
  Message["jsonrpc"] = "2.0";
  std::string Body;
  llvm::raw_string_ostream(Body) << json::Value(std::move(Message));
  std::lock_guard<std::mutex> Lock(WriteMutex);
  std::fprintf(Out, "Content-Length: %zu\r\n\r\n", Body.size());
  std::fwrite(Body.data(), 1, Body.size(), Out);
  std::fflush(Out);
}

void Transport::notify(llvm::StringRef Method, json::Value Params) {
  send(json::Object{{"method", Method}, {"params", std::move(Params)}});
}

void Transport::request(json::Value Id, llvm::StringRef Method, json::Value Params) {
  send(json::Object{{"id", std::move(Id)}, {"method", Method}, {"params", std::move(Params)}});
}

void Transport::reply(json::Value Id, json::Value Result) {
  send(json::Object{{"id", std::move(Id)}, {"result", std::move(Result)}});
}

void Transport::replyError(json::Value Id, int Code, llvm::StringRef Message) {
  send(json::Object{{"id", std::move(Id)},
                    {"error", json::Object{{"code", Code}, {"message", Message}}}});
}

} // namespace libtorch_tidy::lsp
