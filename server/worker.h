#pragma once
// The analysis worker of the language server: one thread that keeps, per open document, an
// incrementally parsed Document and its lint, follows the edits the reader thread hands it
// (analysis::followEdit: only the edited function is re-lowered and re-deduced) and reports each
// version it finished. The reader never waits for it: it hands edits over and reads a document's
// analysis only when that analysis is of the latest version (then the worker is not touching it).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/features.h"

namespace tvms::server {

struct ByteEdit {
  syntax::ByteRange range;  // in the text before this edit
  std::string text;
};

// One document's analysis. `version` is the version `snapshot` describes; the worker changes
// `snapshot` only under `mutex`, and only while a newer version than `version` exists.
struct Analysed {
  std::mutex mutex;
  Snapshot snapshot;
  std::atomic<int64_t> version{-1};
  // The worker's own: the rules the lint runs under, and whether the lint no longer follows the
  // document (an edit that could not be followed, in a version nobody waited for) and must be redone.
  analysis::RuleSelection rules;
  bool needsWholeLint = false;
  bool tooLarge = false;  // the snapshot stands for a text past kMaxAnalysedBytes: one TVS902, nothing else
};

// Texts larger than this are kept (edits are never lost) but not analysed: the syntax tree costs
// ~61 bytes per source byte, and a 55 MB file took the server to 3.5 GB without an answer.
constexpr size_t kMaxAnalysedBytes = 16u << 20;

class AnalysisWorker {
 public:
  // Called on the worker thread after a version was analysed, if it is still the latest.
  using Finished = std::function<void(const std::string& uri, int64_t version)>;
  // An analysis that threw (a defect of ours): the document's state is dropped, so its next change
  // is analysed from its whole text, and the server says so instead of ending.
  using Failed = std::function<void(const std::string& uri, const std::string& what)>;
  explicit AnalysisWorker(Finished finished, Failed failed = nullptr);
  ~AnalysisWorker();
  // Finishes the analysis in flight (its `finished` callback included) and ends the thread.
  void stop();

  void setDebounce(std::chrono::milliseconds d);
  // A document opened, replaced whole, or re-linted under new rules.
  void reset(const std::string& uri, std::string text, int64_t version, analysis::RuleSelection rules);
  // Edits in order; `text` is the reader's text after them (the worker checks it reached the same).
  void change(const std::string& uri, std::vector<ByteEdit> edits, const std::string& text, int64_t version);
  void close(const std::string& uri);

  std::shared_ptr<Analysed> analysed(const std::string& uri) const;
  double lastAnalysisMs() const;
  size_t incrementalRuns() const { return incremental_; }
  size_t wholeRuns() const { return whole_; }

 private:
  struct Job {
    std::string text;
    int64_t version = 0;
    std::vector<ByteEdit> edits;
    bool reset = false;
    analysis::RuleSelection rules;
    std::chrono::steady_clock::time_point due;
  };
  void run();
  void process(const std::string& uri, Job job);

  Finished finished_;
  Failed failed_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::chrono::milliseconds debounce_{30};
  std::map<std::string, Job> pending_;
  std::map<std::string, int64_t> latest_;
  std::map<std::string, std::shared_ptr<Analysed>> analysed_;
  std::map<std::string, analysis::RuleSelection> rules_;
  double lastAnalysisMs_ = 0;
  std::atomic<size_t> incremental_{0}, whole_{0};
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace tvms::server
