#pragma once
// JSON-RPC 2.0 framing over a pair of file descriptors (stdio): "Content-Length: N\r\n\r\n" + N bytes.
// Reading runs on Boost.Asio; malformed headers are reported, never fatal; writes are serialised.
#include <functional>
#include <utility>  // before Boost.Asio, whose awaitable.hpp uses std::exchange
#include <mutex>
#include <string>

#include <boost/asio.hpp>

namespace tvms::server {

class Transport {
 public:
  static constexpr size_t kMaxMessageBytes = 64u << 20;
  Transport(boost::asio::io_context& io, int inFd, int outFd);
  // Reads messages until EOF; `onMessage` gets each body, `onBadFrame` a header it could not read.
  void start(std::function<void(std::string)> onMessage, std::function<void(std::string)> onBadFrame,
             std::function<void()> onEof);
  void send(const std::string& body);  // thread-safe

 private:
  void readHeader();
  void readBody(size_t length);
  boost::asio::posix::stream_descriptor in_;
  int outFd_;
  boost::asio::streambuf buffer_;
  std::mutex writeMutex_;
  std::function<void(std::string)> onMessage_, onBadFrame_;
  std::function<void()> onEof_;
};

}  // namespace tvms::server
