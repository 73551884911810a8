// Content-Length framing on Boost.Asio.
#include "server/transport.h"

#include <unistd.h>

#include <cctype>
#include <istream>

namespace tvms::server {

Transport::Transport(boost::asio::io_context& io, int inFd, int outFd) : in_(io, ::dup(inFd)), outFd_(outFd) {}

void Transport::start(std::function<void(std::string)> onMessage, std::function<void(std::string)> onBadFrame,
                      std::function<void()> onEof) {
  onMessage_ = std::move(onMessage);
  onBadFrame_ = std::move(onBadFrame);
  onEof_ = std::move(onEof);
  readHeader();
}

void Transport::readHeader() {
  boost::asio::async_read_until(in_, buffer_, "\r\n\r\n", [this](boost::system::error_code ec, size_t n) {
    if (ec) { onEof_(); return; }
    std::string header(boost::asio::buffers_begin(buffer_.data()), boost::asio::buffers_begin(buffer_.data()) + n);
    buffer_.consume(n);
    // The last Content-Length in the block counts, wherever it starts: after a bad frame (a body
    // longer than its header said, a missing header) the rest of it comes before the next
    // message's header, and that message must still be read.
    std::string lower;
    for (char c : header) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    long long length = -1;
    size_t at = lower.rfind("content-length:");
    if (at != std::string::npos) {
      size_t digits = at + 15;
      while (digits < header.size() && (header[digits] == ' ' || header[digits] == '\t')) ++digits;
      size_t end = digits;
      while (end < header.size() && end - digits < 12 && std::isdigit(static_cast<unsigned char>(header[end]))) ++end;
      if (end > digits && (end == header.size() || header[end] == '\r')) length = std::stoll(header.substr(digits, end - digits));
      size_t lineStart = lower.rfind("\r\n", at);
      lineStart = lineStart == std::string::npos ? 0 : lineStart + 2;
      if (length >= 0 && at != lineStart) onBadFrame_("bytes that are not a message header before a Content-Length (skipped)");
    }
    if (length < 0 || static_cast<size_t>(length) > kMaxMessageBytes) {
      onBadFrame_(length < 0 ? "a message header without a valid Content-Length" : "a message over 64 MiB");
      if (length > 0) {  // skip the oversized body without holding it
        auto remaining = std::make_shared<size_t>(static_cast<size_t>(length));
        size_t have = std::min(*remaining, buffer_.size());
        buffer_.consume(have);
        *remaining -= have;
        auto skip = std::make_shared<std::function<void()>>();
        *skip = [this, remaining, skip]() {
          if (*remaining == 0) { readHeader(); return; }
          auto chunk = std::make_shared<std::vector<char>>(std::min<size_t>(*remaining, 1 << 20));
          boost::asio::async_read(in_, boost::asio::buffer(*chunk), [this, remaining, skip, chunk](boost::system::error_code e, size_t got) {
            if (e) { onEof_(); return; }
            *remaining -= got;
            (*skip)();
          });
        };
        (*skip)();
        return;
      }
      readHeader();
      return;
    }
    readBody(static_cast<size_t>(length));
  });
}

void Transport::readBody(size_t length) {
  size_t have = buffer_.size();
  if (have >= length) {
    std::string body(boost::asio::buffers_begin(buffer_.data()), boost::asio::buffers_begin(buffer_.data()) + length);
    buffer_.consume(length);
    onMessage_(std::move(body));
    readHeader();
    return;
  }
  boost::asio::async_read(in_, buffer_, boost::asio::transfer_exactly(length - have),
                          [this, length](boost::system::error_code ec, size_t) {
                            if (ec) { onEof_(); return; }
                            readBody(length);
                          });
}

void Transport::send(const std::string& body) {
  std::lock_guard<std::mutex> lock(writeMutex_);
  std::string framed = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  size_t off = 0;
  while (off < framed.size()) {
    ssize_t w = ::write(outFd_, framed.data() + off, framed.size() - off);
    if (w <= 0) return;  // the client is gone
    off += static_cast<size_t>(w);
  }
}

}  // namespace tvms::server
