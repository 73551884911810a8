// The analysis worker: debounced jobs per document, followed incrementally where the edit allows.
#include "server/worker.h"

#include <algorithm>

namespace tvms::server {

namespace {
// More edits than this in one job (a burst the worker fell behind on) are cheaper as one whole parse.
constexpr size_t kMaxFollowedEdits = 200;
}  // namespace

AnalysisWorker::AnalysisWorker(Finished finished, Failed failed)
    : finished_(std::move(finished)), failed_(std::move(failed)), thread_([this] { run(); }) {}

AnalysisWorker::~AnalysisWorker() { stop(); }

void AnalysisWorker::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void AnalysisWorker::setDebounce(std::chrono::milliseconds d) {
  std::lock_guard<std::mutex> lock(mutex_);
  debounce_ = d;
}

void AnalysisWorker::reset(const std::string& uri, std::string text, int64_t version, analysis::RuleSelection rules) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Job& j = pending_[uri];
    j.text = std::move(text);
    j.version = version;
    j.edits.clear();
    j.reset = true;
    j.rules = std::move(rules);
    j.due = std::chrono::steady_clock::now();  // opening a file is not typing: no debounce
    latest_[uri] = version;
  }
  wake_.notify_one();
}

void AnalysisWorker::change(const std::string& uri, std::vector<ByteEdit> edits, const std::string& text, int64_t version) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Job& j = pending_[uri];
    if (!j.reset) {
      for (auto& e : edits) j.edits.push_back(std::move(e));
      if (j.edits.size() > kMaxFollowedEdits) {
        j.reset = true;
        j.edits.clear();
        auto a = analysed_.find(uri);
        if (a != analysed_.end()) j.rules = a->second->rules;
      }
    }
    j.text = text;
    j.version = version;
    j.due = std::chrono::steady_clock::now() + debounce_;
    latest_[uri] = version;
  }
  wake_.notify_one();
}

void AnalysisWorker::close(const std::string& uri) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.erase(uri);
  latest_.erase(uri);
  analysed_.erase(uri);
}

std::shared_ptr<Analysed> AnalysisWorker::analysed(const std::string& uri) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = analysed_.find(uri);
  return it == analysed_.end() ? nullptr : it->second;
}

double AnalysisWorker::lastAnalysisMs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lastAnalysisMs_;
}

void AnalysisWorker::run() {
  for (;;) {
    std::string uri;
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      for (;;) {
        if (stopping_) return;
        if (pending_.empty()) { wake_.wait(lock); continue; }
        auto first = std::min_element(pending_.begin(), pending_.end(), [](auto& a, auto& b) { return a.second.due < b.second.due; });
        if (first->second.due > std::chrono::steady_clock::now()) { wake_.wait_until(lock, first->second.due); continue; }
        uri = first->first;
        job = std::move(first->second);
        pending_.erase(first);
        break;
      }
    }
    try {
      process(uri, std::move(job));
    } catch (const std::exception& e) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        analysed_.erase(uri);
      }
      if (failed_) failed_(uri, e.what());
    }
  }
}

void AnalysisWorker::process(const std::string& uri, Job job) {
  auto started = std::chrono::steady_clock::now();
  std::shared_ptr<Analysed> a;
  auto stillLatest = [&] {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = latest_.find(uri);
    return it != latest_.end() && it->second == job.version;
  };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!latest_.count(uri)) return;  // closed meanwhile
    auto& slot = analysed_[uri];
    if (!slot) slot = std::make_shared<Analysed>();
    a = slot;
  }
  if (job.text.size() > kMaxAnalysedBytes) {
    std::lock_guard<std::mutex> lock(a->mutex);
    Snapshot& s = a->snapshot;
    s.doc = std::make_unique<syntax::Document>(std::string());
    s.lint = analysis::LintResult{};
    s.lint.diagnostics.push_back(diag::make(diag::Code::TVS902, {0, 0},
                                            "this file is " + std::to_string(job.text.size() >> 20) + " MiB; the language server analyses files up to " +
                                                std::to_string(kMaxAnalysedBytes >> 20) + " MiB (`tvms lint` reads up to 64 MiB)"));
    a->tooLarge = true;
    if (job.reset) a->rules = job.rules;
    s.version = job.version;
    a->version.store(job.version);
  } else {
    std::lock_guard<std::mutex> lock(a->mutex);
    Snapshot& s = a->snapshot;
    // After a text too large to analyse, the snapshot's text is not the document's: start from job.text.
    bool fresh = job.reset || !s.doc || a->tooLarge;
    a->tooLarge = false;
    bool following = !fresh && !a->needsWholeLint;
    if (fresh) {
      s.doc = std::make_unique<syntax::Document>(job.text);
      if (job.reset) a->rules = job.rules;
    } else {
      for (auto& e : job.edits) {
        s.doc->applyEdit(e.range, e.text);
        if (following) following = analysis::followEdit(s.lint, *s.doc, e.range, static_cast<uint32_t>(e.text.size()));
      }
      // The reader's text is the truth: an edit lost between the threads must not become a lost edit.
      if (s.doc->text() != job.text) {
        s.doc = std::make_unique<syntax::Document>(job.text);
        following = false;
      }
    }
    if (!stillLatest()) {
      // Superseded: the next job continues from this text; its analysis is not worth finishing.
      a->needsWholeLint = !following;
      return;
    }
    if (following) {
      analysis::finishLint(s.lint, *s.doc, a->rules);
      ++incremental_;
    } else {
      s.lint = analysis::lintDocument(*s.doc, a->rules);
      ++whole_;
    }
    a->needsWholeLint = false;
    s.version = job.version;
    a->version.store(job.version);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    lastAnalysisMs_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  }
  if (stillLatest()) finished_(uri, job.version);
}

}  // namespace tvms::server
