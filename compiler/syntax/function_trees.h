#pragma once
// The trees of a document read by function (Document::Parsing::ByFunction): one tree per function of
// the skeleton scan (skeleton_scan.h), parsed when it is first asked for and freed when its reader is
// done with it, so at most a few exist at a time. Helper threads parse the functions ahead of the
// reader, in file order, a bounded number ahead: a one-shot lint of a large file parses on every core
// while it lowers on one.
//
// Each tree is checked as it is made: no syntax error, and one definition that starts and ends where
// the scan says (and the skeleton's does). A tree that fails is still handed out (so the reader goes on safely), and
// failed() says to read the file again as a whole.
//
// One reader thread (the one lowering); the helpers only parse.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <tree_sitter/api.h>

#include "compiler/syntax/line_index.h"
#include "compiler/syntax/position.h"

namespace tvms::syntax {

class FunctionTrees {
 public:
  // How much source past the reader's function each helper may parse ahead (one function at least). A
  // tree is ~20 bytes per byte of its text, so a window in bytes bounds the trees waiting for the reader
  // whatever the functions' sizes. Trees made ahead are also what a helper's heap keeps afterwards: a
  // window of 64 of bench/parse's ~1 KB functions put a 1 MB lint at 31.8 MiB, 16 KiB at 29.3.
  static constexpr size_t kAheadBytesPerHelper = 16 * 1024;
  // Trees the reader is done with are freed by a helper, in batches of this many (or sooner when it has
  // nothing to parse): freeing was a tenth of the reader's work.
  static constexpr size_t kDeleteBatch = 8;
  static constexpr size_t kMostWaitingToBeFreed = 4 * kDeleteBatch;
  struct Function {
    ByteRange header;       // its class's header lines
    ByteRange range;        // the definition, whole lines
    uint32_t begin;         // where the definition starts (its first decorator)
    uint32_t end;           // where it ends (as the skeleton's does: its tree's must too)
  };
  // `text` and `lines` must outlive this object. `helpers` threads parse ahead (0: the reader parses).
  FunctionTrees(const std::string& text, const LineIndex& lines, std::vector<Function> functions, unsigned helpers);
  ~FunctionTrees();
  FunctionTrees(const FunctionTrees&) = delete;
  FunctionTrees& operator=(const FunctionTrees&) = delete;

  // The function whose range holds `offset`, or -1.
  int indexAt(uint32_t offset) const;
  // The first function that ends after `offset` (size() when none does).
  size_t firstEndingAfter(uint32_t offset) const;
  const Function& function(size_t k) const { return functions_[k]; }
  size_t size() const { return functions_.size(); }
  // Its tree's root, parsed now or by a helper; it stays until doneWith(k).
  TSNode root(size_t k);
  void doneWith(size_t k);
  // The reader reads the functions again from the first (a second pass over the file, as `tvms fmt`
  // makes): the helpers parse ahead of it again. Trees still alive stay.
  void rewind();
  // Whether a tree disagreed with the skeleton, or a function was never parsed (its text unchecked).
  bool failed() const;
  // How many trees were parsed, the most that existed at once, and the most that waited at once for a
  // helper to free them (for tests).
  size_t parsed() const;
  size_t mostAlive() const;
  size_t mostWaitingToBeFreed() const;
  // For tests: while held, helpers take no work, as on a machine that gives them no time.
  void holdHelpers(bool hold);

 private:
  enum class State : uint8_t { Waiting, Parsing, Ready };
  struct Slot {
    State state = State::Waiting;
    bool everParsed = false;
    TSTree* tree = nullptr;
  };
  TSTree* parse(TSParser* parser, size_t k) const;
  bool fits(TSTree* tree, size_t k) const;
  void helper();
  void stored(size_t k, TSTree* tree);  // under the lock
  void parseOutsideLock(std::unique_lock<std::mutex>& lock, TSParser* parser, size_t k);

  const std::string& text_;
  const LineIndex& lines_;
  std::vector<Function> functions_;
  std::vector<Slot> slots_;
  TSParser* readerParser_ = nullptr;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  size_t nextForHelpers_ = 0;  // the next function a helper may take
  size_t readerAt_ = 0;        // the furthest function the reader asked for
  size_t aheadBytes_ = 0;      // how much source past it helpers parse
  std::vector<size_t> bytesBefore_;  // [k]: the source bytes of functions 0..k-1 (size() + 1 entries)
  // The furthest function that may be parsed ahead of a reader at k.
  size_t lastAhead(size_t k) const;
  // The source bytes of the functions past the reader's that helpers have taken (under the lock).
  size_t bytesTakenAhead() const;
  // Whether a helper may take the next function: within the window, and either filling it already or
  // with at most half of it taken (under the lock). helpersMayParse also records which.
  bool helpersWouldParse() const;
  bool helpersMayParse();
  bool refilling_ = false;     // the helpers are filling the window (until it is full)
  bool stopping_ = false;
  bool failed_ = false;
  size_t parsed_ = 0, alive_ = 0, mostAlive_ = 0;
  std::vector<TSTree*> toDelete_;  // trees the reader is done with, for a helper to free
  size_t mostWaiting_ = 0;
  bool held_ = false;
  std::vector<std::thread> helpers_;
};

}  // namespace tvms::syntax
