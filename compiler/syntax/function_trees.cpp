#include "compiler/syntax/function_trees.h"

#include <algorithm>

#include "compiler/syntax/parse_text.h"

namespace tvms::syntax {

FunctionTrees::FunctionTrees(const std::string& text, const LineIndex& lines, std::vector<Function> functions, unsigned helpers)
    : text_(text), lines_(lines), functions_(std::move(functions)), slots_(functions_.size()) {
  readerParser_ = newPythonParser();
  aheadBytes_ = kAheadBytesPerHelper * static_cast<size_t>(helpers);
  bytesBefore_.reserve(functions_.size() + 1);
  bytesBefore_.push_back(0);
  for (const Function& f : functions_) bytesBefore_.push_back(bytesBefore_.back() + (f.range.end - f.range.begin));
  for (unsigned h = 0; h < helpers && h < functions_.size(); ++h) helpers_.emplace_back([this] { helper(); });
}

FunctionTrees::~FunctionTrees() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (auto& t : helpers_) t.join();
  for (TSTree* tree : toDelete_) ts_tree_delete(tree);
  for (auto& s : slots_)
    if (s.tree) ts_tree_delete(s.tree);
  ts_parser_delete(readerParser_);
}

int FunctionTrees::indexAt(uint32_t offset) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), offset,
                             [](uint32_t at, const Function& f) { return at < f.range.begin; });
  if (it == functions_.begin()) return -1;
  --it;
  return offset < it->range.end ? static_cast<int>(it - functions_.begin()) : -1;
}

size_t FunctionTrees::firstEndingAfter(uint32_t offset) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), offset,
                             [](uint32_t at, const Function& f) { return at < f.range.end; });
  return static_cast<size_t>(it - functions_.begin());
}

size_t FunctionTrees::lastAhead(size_t k) const {
  if (k + 1 >= functions_.size()) return k + 1;
  // The last j whose functions k+1..j hold at most aheadBytes_ bytes: bytesBefore_[j + 1] within reach.
  auto past = std::upper_bound(bytesBefore_.begin(), bytesBefore_.end(), bytesBefore_[k + 1] + aheadBytes_);
  size_t j = static_cast<size_t>(past - bytesBefore_.begin()) - 2;
  return std::max(j, k + 1);
}

TSTree* FunctionTrees::parse(TSParser* parser, size_t k) const {
  const Function& f = functions_[k];
  std::vector<ByteRange> read;
  if (f.header.end > f.header.begin) read.push_back(f.header);
  read.push_back(f.range);
  return parseRangesWith(parser, text_, lines_, read);
}

// The tree holds the class header and one clean definition, exactly where the skeleton's is.
bool FunctionTrees::fits(TSTree* tree, size_t k) const {
  if (!tree) return false;
  TSNode root = ts_tree_root_node(tree);
  if (ts_node_has_error(root) || ts_node_named_child_count(root) != 1) return false;
  TSNode body = firstClassBody(root);
  if (ts_node_is_null(body)) return false;
  TSNode only{};
  uint32_t count = 0;
  for (uint32_t i = 0; i < ts_node_named_child_count(body); ++i) {
    TSNode c = ts_node_named_child(body, i);
    if (isType(c, "comment")) continue;
    ++count;
    only = c;
  }
  return count == 1 && isDefinition(only) && ts_node_start_byte(only) == functions_[k].begin &&
         ts_node_end_byte(only) == functions_[k].end;
}

void FunctionTrees::stored(size_t k, TSTree* tree) {
  if (!fits(tree, k)) failed_ = true;
  slots_[k].tree = tree;
  slots_[k].state = State::Ready;
  slots_[k].everParsed = true;
  ++parsed_;
  mostAlive_ = std::max(mostAlive_, ++alive_);
}

// Claims function k (Waiting) and parses it with the lock released.
void FunctionTrees::parseOutsideLock(std::unique_lock<std::mutex>& lock, TSParser* parser, size_t k) {
  slots_[k].state = State::Parsing;
  lock.unlock();
  TSTree* tree = parse(parser, k);
  lock.lock();
  stored(k, tree);
  changed_.notify_all();
}

size_t FunctionTrees::bytesTakenAhead() const {
  const size_t from = std::min(readerAt_ + 1, functions_.size());
  return bytesBefore_[std::max(nextForHelpers_, from)] - bytesBefore_[from];
}

bool FunctionTrees::helpersWouldParse() const {
  return nextForHelpers_ < slots_.size() && nextForHelpers_ <= lastAhead(readerAt_) &&
         (refilling_ || bytesTakenAhead() <= aheadBytes_ / 2);
}

// The helpers fill the window, then wait until the reader has used half of it before they fill it
// again: a wake-up per half window, not one per function. Woken for every function the reader took
// (a window a few functions wide is full nearly always), a helper cost ~90 us of CPU a function on
// this VM: a 50 MB lint 26.2 s of CPU against 23.9 s with a window of 64 functions.
bool FunctionTrees::helpersMayParse() {
  refilling_ = helpersWouldParse();
  return refilling_;
}

void FunctionTrees::helper() {
  TSParser* parser = newPythonParser();
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // Past the last function a helper waits rather than ends: a reader that starts over (rewind) has it
    // again.
    changed_.wait(lock, [&] { return stopping_ || (!held_ && (toDelete_.size() >= kDeleteBatch || helpersMayParse())); });
    if (stopping_) break;
    // The trees the reader is done with, when there is nothing to parse (the reader is the slower one)
    // or a few have piled up (each waiting tree is memory: 64 of them put a 4 MB lint 3 MiB higher).
    if (!toDelete_.empty() && (!helpersMayParse() || toDelete_.size() >= kDeleteBatch)) {
      std::vector<TSTree*> trees;
      trees.swap(toDelete_);
      lock.unlock();
      for (TSTree* tree : trees) ts_tree_delete(tree);
      lock.lock();
      continue;
    }
    size_t k = nextForHelpers_++;
    if (slots_[k].state != State::Waiting || k <= readerAt_) continue;  // the reader parses what it reached
    parseOutsideLock(lock, parser, k);
  }
  lock.unlock();
  ts_parser_delete(parser);
}

TSNode FunctionTrees::root(size_t k) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (k > readerAt_) {
    readerAt_ = k;
    if (helpersWouldParse()) changed_.notify_all();
  }
  // While a helper parses k, the reader parses the next function nobody has taken rather than wait:
  // the helpers and the reader share the parsing, whichever is the slower part of the work.
  while (slots_[k].state != State::Ready) {
    size_t next = k;
    if (slots_[k].state == State::Parsing) {
      next = std::max(nextForHelpers_, k + 1);
      const size_t last = lastAhead(k);
      while (next < slots_.size() && next <= last && slots_[next].state != State::Waiting) ++next;
      if (next >= slots_.size() || next > last) {
        changed_.wait(lock, [&] { return slots_[k].state == State::Ready; });
        break;
      }
    }
    parseOutsideLock(lock, readerParser_, next);
  }
  return ts_tree_root_node(slots_[k].tree);
}

void FunctionTrees::rewind() {
  std::lock_guard<std::mutex> lock(mutex_);
  nextForHelpers_ = 0;
  readerAt_ = 0;
  changed_.notify_all();
}

// Freeing a tree is a tenth of the reader's work on a large file: a helper does it (on its own heap,
// where most trees were made), never under the lock.
void FunctionTrees::doneWith(size_t k) {
  TSTree* tree = nullptr;
  bool batchReady = false;  // a waiting helper is woken for a whole batch, not for each tree
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (slots_[k].state != State::Ready) return;
    tree = slots_[k].tree;
    slots_[k].tree = nullptr;
    slots_[k].state = State::Waiting;
    --alive_;
    // A helper that gets no time (a busy machine) must not let them pile up: past a few batches the
    // reader frees its own.
    if (!helpers_.empty() && toDelete_.size() < kMostWaitingToBeFreed) {
      toDelete_.push_back(tree);
      mostWaiting_ = std::max(mostWaiting_, toDelete_.size());
      batchReady = toDelete_.size() == kDeleteBatch;
      tree = nullptr;
    }
  }
  if (tree) ts_tree_delete(tree);
  else if (batchReady) changed_.notify_all();
}

bool FunctionTrees::failed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failed_ || std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.everParsed; });
}

size_t FunctionTrees::parsed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return parsed_;
}

size_t FunctionTrees::mostAlive() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return mostAlive_;
}

size_t FunctionTrees::mostWaitingToBeFreed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return mostWaiting_;
}

void FunctionTrees::holdHelpers(bool hold) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    held_ = hold;
  }
  changed_.notify_all();
}

}  // namespace tvms::syntax
