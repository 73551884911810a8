#include "server/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

extern char** environ;

namespace tvms::server {

ChildProcess::ChildProcess(boost::asio::io_context& io) : io_(io), out_(io), err_(io), deadline_(io), reaper_(io) {}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !done_) {
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

std::shared_ptr<ChildProcess> ChildProcess::start(boost::asio::io_context& io, const std::vector<std::string>& argv,
                                                  std::chrono::milliseconds timeout, LineFn onStderrLine, DoneFn onDone,
                                                  std::string* error, const std::string* stdinText) {
  int input = -1;
  if (stdinText) {
    input = ::memfd_create("tvms-child-stdin", MFD_CLOEXEC);
    size_t done = 0;
    while (input >= 0 && done < stdinText->size()) {
      ssize_t n = ::write(input, stdinText->data() + done, stdinText->size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    if (input < 0 || done != stdinText->size() || ::lseek(input, 0, SEEK_SET) != 0) {
      *error = std::string("cannot hold the child's input: ") + std::strerror(errno);
      if (input >= 0) ::close(input);
      return nullptr;
    }
  }
  // The environment plus this process's pid: a tvms child asks the kernel to end it when its parent
  // ends (tools/tvms/main.cpp), so a killed server leaves no run behind.
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, kParentPidVariable, std::strlen(kParentPidVariable)) != 0) env.emplace_back(*e);
  env.push_back(std::string(kParentPidVariable) + "=" + std::to_string(::getpid()));
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  int outPipe[2], errPipe[2];
  if (::pipe2(outPipe, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    if (input >= 0) ::close(input);
    return nullptr;
  }
  if (::pipe2(errPipe, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    if (input >= 0) ::close(input);
    ::close(outPipe[0]);
    ::close(outPipe[1]);
    return nullptr;
  }
  // posix_spawn, not fork: the server has other threads, and only exec is safe after fork there.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (input >= 0) posix_spawn_file_actions_adddup2(&actions, input, STDIN_FILENO);
  else posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // its own group: kill(-pid) reaches its children too
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, args[0], &actions, &attr, args.data(), envp.data());
  if (input >= 0) ::close(input);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(outPipe[1]);
  ::close(errPipe[1]);
  if (rc != 0) {
    *error = "cannot start " + argv[0] + ": " + std::strerror(rc);
    ::close(outPipe[0]);
    ::close(errPipe[0]);
    return nullptr;
  }
  std::shared_ptr<ChildProcess> c(new ChildProcess(io));
  c->pid_ = pid;
  c->onLine_ = std::move(onStderrLine);
  c->onDone_ = std::move(onDone);
  c->out_.assign(outPipe[0]);
  c->err_.assign(errPipe[0]);
  c->read(c->out_, c->result_.out, false);
  c->read(c->err_, c->result_.err, true);
  c->deadline_.expires_after(timeout);
  c->deadline_.async_wait([self = c->weak_from_this()](boost::system::error_code ec) {
    auto c = self.lock();
    if (ec || !c || c->done_) return;
    c->result_.timedOut = true;
    c->kill();
  });
  return c;
}

void ChildProcess::read(boost::asio::posix::stream_descriptor& fd, std::string& into, bool lines) {
  auto& buf = lines ? errBuf_ : outBuf_;
  fd.async_read_some(boost::asio::buffer(buf), [this, self = shared_from_this(), &fd, &into, &buf, lines](boost::system::error_code ec, size_t n) {
    if (n > 0 && into.size() < kMaxCapture) into.append(buf.data(), n);
    if (lines && onLine_) {
      for (size_t nl; (nl = into.find('\n', errLineStart_)) != std::string::npos; errLineStart_ = nl + 1)
        onLine_(into.substr(errLineStart_, nl - errLineStart_));
    }
    if (ec) return streamClosed();
    read(fd, into, lines);
  });
}

void ChildProcess::streamClosed() {
  if (--openStreams_ == 0) reap();
}

// Both pipes are closed: the child has exited (or closed them); collect its status without blocking
// the event loop.
void ChildProcess::reap() {
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) {
    reaper_.expires_after(std::chrono::milliseconds(5));
    reaper_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec) self->reap();
    });
    return;
  }
  done_ = true;
  deadline_.cancel();
  if (r == pid_ && WIFEXITED(status)) result_.exitCode = WEXITSTATUS(status);
  if (r == pid_ && WIFSIGNALED(status)) result_.signal = WTERMSIG(status);
  auto done = std::move(onDone_);
  if (done) done(result_);
}

void ChildProcess::kill() {
  if (pid_ > 0 && !done_) ::kill(-pid_, SIGKILL);
}

void ChildProcess::cancel() {
  if (done_) return;
  result_.cancelled = true;
  kill();
}

}  // namespace tvms::server
