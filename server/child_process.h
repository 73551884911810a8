#pragma once
// A child process run from the server's event loop (Boost.Asio): its stdout collected, its stderr
// collected and handed over line by line, a timeout, cancellation. It runs in its own process group
// and is killed with SIGKILL on timeout or cancel, so a kernel that crashes or hangs in the child
// never touches the server. `onDone` is called exactly once, on the event loop.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <utility>  // before Boost.Asio, whose awaitable.hpp uses std::exchange

#include <boost/asio.hpp>

namespace tvms::server {

class ChildProcess : public std::enable_shared_from_this<ChildProcess> {
 public:
  struct Result {
    int exitCode = -1;  // when it exited
    int signal = 0;     // when a signal ended it (SIGKILL after a timeout or cancel)
    bool timedOut = false, cancelled = false;
    std::string out, err;
  };
  using LineFn = std::function<void(const std::string&)>;
  using DoneFn = std::function<void(const Result&)>;

  // Starts argv[0] with argv. Its stdin is `stdinText` when given (an anonymous in-memory file, so
  // nothing is left on disk whatever happens to either process; the child may open /dev/stdin by
  // name), else /dev/null. It learns this process's pid (kParentPidVariable), so a tvms child ends
  // when the server does. Returns null and sets *error when it cannot start.
  static std::shared_ptr<ChildProcess> start(boost::asio::io_context& io, const std::vector<std::string>& argv,
                                             std::chrono::milliseconds timeout, LineFn onStderrLine, DoneFn onDone,
                                             std::string* error, const std::string* stdinText = nullptr);
  static constexpr const char* kParentPidVariable = "TVMS_PARENT_PID";
  // The name a child opens its `stdinText` by (an argument in place of a file path).
  static constexpr const char* kStdinPath = "/dev/stdin";
  void cancel();
  ~ChildProcess();

 private:
  static constexpr size_t kMaxCapture = 16u << 20;
  explicit ChildProcess(boost::asio::io_context& io);
  void read(boost::asio::posix::stream_descriptor& fd, std::string& into, bool lines);
  void streamClosed();
  void reap();
  void kill();

  boost::asio::io_context& io_;
  boost::asio::posix::stream_descriptor out_, err_;
  boost::asio::steady_timer deadline_, reaper_;
  std::array<char, 65536> outBuf_{}, errBuf_{};
  int pid_ = -1;
  int openStreams_ = 2;
  bool done_ = false;
  size_t errLineStart_ = 0;
  Result result_;
  LineFn onLine_;
  DoneFn onDone_;
};

}  // namespace tvms::server
