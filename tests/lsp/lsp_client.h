#pragma once
// A language client for the tests: the real `tvms lsp` binary (TVMS_BINARY) forked over real pipes,
// spoken to in JSON-RPC like an editor does. The server inherits the test's environment.
#include <doctest/doctest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "compiler/syntax/line_index.h"

namespace tvms::test {

using nlohmann::json;

class Client {
 public:
  Client() {
    int in[2], out[2];
    REQUIRE(pipe(in) == 0);
    REQUIRE(pipe(out) == 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      execl(TVMS_BINARY, TVMS_BINARY, "lsp", nullptr);
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    toServer_ = in[1];
    fromServer_ = out[0];
    signal(SIGPIPE, SIG_IGN);
  }
  ~Client() {
    if (toServer_ >= 0) close(toServer_);
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  void raw(const std::string& bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
      ssize_t w = write(toServer_, bytes.data() + off, bytes.size() - off);
      REQUIRE(w > 0);
      off += static_cast<size_t>(w);
    }
  }
  void send(const json& m) {
    std::string b = m.dump();
    raw("Content-Length: " + std::to_string(b.size()) + "\r\n\r\n" + b);
  }
  void request(int id, const std::string& method, json params = json::object()) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  }
  void notify(const std::string& method, json params) { send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}); }
  // The next message, or null after `seconds`.
  json next(double seconds = 20) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
      auto end = buffer_.find("\r\n\r\n");
      if (end != std::string::npos) {
        size_t colon = buffer_.find(':');
        size_t n = std::stoul(buffer_.substr(colon + 1, end - colon - 1));  // the header only: the buffer may hold 60 MB
        if (buffer_.size() >= end + 4 + n) {
          json m = json::parse(buffer_.substr(end + 4, n));
          buffer_.erase(0, end + 4 + n);
          return m;
        }
      }
      int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
      if (left <= 0) return nullptr;
      pollfd p{fromServer_, POLLIN, 0};
      if (poll(&p, 1, left) <= 0) return nullptr;
      char chunk[65536];
      ssize_t r = read(fromServer_, chunk, sizeof chunk);
      if (r <= 0) return nullptr;
      buffer_.append(chunk, static_cast<size_t>(r));
    }
  }
  json response(int id) {
    for (json m = next(); !m.is_null(); m = next())
      if (m.contains("id") && m["id"] == id) return m;
    return nullptr;
  }
  json diagnosticsFor(int64_t version) {
    for (json m = next(); !m.is_null(); m = next())
      if (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"].value("version", -1) == version) return m["params"];
    return nullptr;
  }
  void initialize(json processId = nullptr, json capabilities = json::object(), json options = nullptr) {
    json params = {{"processId", processId}, {"capabilities", capabilities}};
    if (!options.is_null()) params["initializationOptions"] = options;
    request(1, "initialize", params);
    REQUIRE(response(1).contains("result"));
    notify("initialized", json::object());
  }
  int waitExit(double seconds = 10) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      usleep(10000);
    }
    return -1;
  }
  void closeInput() { close(toServer_); toServer_ = -1; }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int toServer_ = -1, fromServer_ = -1;
  bool exited_ = false;
  std::string buffer_;
};

inline json changeAt(const tvms::syntax::LineIndex& lines, uint32_t begin, uint32_t end, const std::string& text) {
  auto a = lines.toLineCol(begin, tvms::syntax::Encoding::Utf16), b = lines.toLineCol(end, tvms::syntax::Encoding::Utf16);
  return {{"range", {{"start", {{"line", a.line}, {"character", a.column}}}, {"end", {{"line", b.line}, {"character", b.column}}}}},
          {"text", text}};
}

}  // namespace tvms::test
