// tvms lint on several cores (tools/tvms/lint_files.h): the jobs really run at once, each exactly once,
// and a file's lint on a worker thread is the lint of the same text on the main thread.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include "tests/support/corpus.h"
#include "tools/tvms/lint_files.h"

using namespace tvms;

TEST_CASE("lint files: the jobs run on several threads at once, each index once, with TVMS_NUM_THREADS threads") {
  ::setenv("TVMS_NUM_THREADS", "3", 1);
  CHECK(cli::workers() == 3);
  std::atomic<int> running{0}, most{0};
  std::vector<std::atomic<int>> runs(40);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  cli::forEachInParallel(runs.size(), [&](size_t i) {
    int now = ++running;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    // Give the other threads a moment to be inside a job too (a bound, not a timing assertion).
    for (int spin = 0; spin < 200 && most.load() < 3; ++spin) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++runs[i];
    {
      std::lock_guard<std::mutex> lock(mutex);
      threads.insert(std::this_thread::get_id());
    }
    --running;
  });
  ::unsetenv("TVMS_NUM_THREADS");
  for (auto& r : runs) CHECK(r.load() == 1);
  CHECK(threads.size() == 3);
  CHECK(most.load() >= 2);
  CHECK(cli::workers() >= 1);  // the CPUs this process may use
  // A job that throws: rethrown on the caller's thread once all are done.
  ::setenv("TVMS_NUM_THREADS", "2", 1);
  CHECK_THROWS_AS(cli::forEachInParallel(8, [](size_t i) { if (i == 5) throw std::runtime_error("job 5"); }), std::runtime_error);
  ::unsetenv("TVMS_NUM_THREADS");
}

TEST_CASE("lint files: the corpus linted on worker threads is what the main thread finds, fixes included") {
  auto files = test::corpusFiles("lint");
  REQUIRE(files.size() > 10);
  std::vector<std::string> texts;
  for (auto& f : files) texts.push_back(test::readFile(f));
  cli::LintOptions options;
  options.fix = true;
  options.unsafe = true;
  std::vector<cli::TextLint> serial, parallel(texts.size());
  for (auto& t : texts) serial.push_back(cli::lintText(t, options));
  ::setenv("TVMS_NUM_THREADS", "4", 1);
  cli::forEachInParallel(texts.size(), [&](size_t i) { parallel[i] = cli::lintText(texts[i], options); });
  ::unsetenv("TVMS_NUM_THREADS");
  int fixedSomewhere = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    INFO(files[i]);
    CHECK(parallel[i].text == serial[i].text);
    CHECK(parallel[i].fixes == serial[i].fixes);
    fixedSomewhere += serial[i].fixes > 0;
    REQUIRE(parallel[i].diagnostics.size() == serial[i].diagnostics.size());
    for (size_t k = 0; k < serial[i].diagnostics.size(); ++k) {
      CHECK(parallel[i].diagnostics[k].code == serial[i].diagnostics[k].code);
      CHECK(parallel[i].diagnostics[k].message == serial[i].diagnostics[k].message);
      CHECK(parallel[i].diagnostics[k].range.begin == serial[i].diagnostics[k].range.begin);
    }
  }
  CHECK(fixedSomewhere > 0);
}

TEST_CASE("lint files: the text linted comes back in TextLint::text, with fixes or without") {
  const std::string text = test::readFile(test::corpusFiles("lint").front());
  for (bool fix : {false, true}) {
    CAPTURE(fix);
    cli::LintOptions options;
    options.fix = fix;
    cli::TextLint moved = cli::lintText(std::string(text), options);
    cli::TextLint copied = cli::lintText(text, options);
    CHECK(moved.text == copied.text);
    if (!fix || moved.fixes == 0) CHECK(moved.text == text);
    CHECK(moved.diagnostics.size() == copied.diagnostics.size());
  }
}
