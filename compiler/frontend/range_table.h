#pragma once
// IR object -> byte range: the source map's tables (frontend.h). A lowering records an entry for
// nearly every node it makes, so a large module's tables hold millions of entries; they are laid out
// for that:
// - the entries live in a deque (blocks of 512 bytes), walked in order: the language server shifts
//   every range after each keystroke, and walking blocks is ~20x cheaper than walking a node-based
//   hash map. A block never moves, so growing the table neither copies it nor leaves half of it
//   unused (a vector doubling does both), and a small table takes one block;
// - the index is one flat open-addressed array of entry numbers (linear probing, at most half full),
//   4 bytes a slot, where a node-based map took a ~40-byte allocation per entry.
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "compiler/syntax/position.h"

namespace tvms::frontend {

template <class Key, class Hash = std::hash<Key>>
class RangeTableOf {
 public:
  void set(const Key& key, syntax::ByteRange r) {
    if (!recording_) return;
    if (!slots_.empty())
      if (uint32_t slot = slots_[probe(key)]) {
        entries_[slot - 1].range = r;
        return;
      }
    if ((live_ + 1) * 2 > slots_.size()) grow();
    entries_.push_back({key, r, true});
    ++live_;
    slots_[probe(key)] = static_cast<uint32_t>(entries_.size());  // entry number + 1: 0 marks an empty slot
  }
  const syntax::ByteRange* find(const Key& key) const {
    if (slots_.empty()) return nullptr;
    uint32_t slot = slots_[probe(key)];
    return slot ? &entries_[slot - 1].range : nullptr;
  }
  size_t size() const { return live_; }
  // A table of a lowering whose positions nobody reads (fmt's search for its regions): set() keeps nothing.
  void stopRecording() { recording_ = false; }
  // Adds the other table's entries whose range `keep` accepts (an entry of a key already here is
  // replaced: the other table is the newer lowering).
  template <class Keep>
  void merge(const RangeTableOf& other, Keep&& keep) {
    other.forEachLive([&](const Key& key, syntax::ByteRange r) {
      if (keep(r)) set(key, r);
    });
  }
  // Calls `f(range)` on every entry, which may change it; entries for which it returns false go.
  template <class F>
  void update(F&& f) {
    size_t dropped = 0;
    for (Entry& e : entries_) {
      if (!e.live) { ++dropped; continue; }
      if (!f(e.range)) {
        erase(e.key);
        e.live = false;
        --live_;
        ++dropped;
      }
    }
    if (dropped * 2 > entries_.size()) compact();
  }

 private:
  struct Entry {
    Key key;
    syntax::ByteRange range;
    bool live = true;
  };
  template <class F>
  void forEachLive(F&& f) const {
    for (const Entry& e : entries_)
      if (e.live) f(e.key, e.range);
  }

  // Where a key's probe starts. Hash may be the identity (std::hash of a pointer), whose low bits are
  // alignment zeros: the product with 2^64 / phi spreads every bit into the high ones taken.
  size_t home(const Key& key) const { return (Hash()(key) * 0x9E3779B97F4A7C15ull) >> shift_; }
  size_t mask() const { return slots_.size() - 1; }
  // The slot holding `key`, or the empty slot where its probe ends (the index has slots: at most half
  // of them full, so a probe always ends).
  size_t probe(const Key& key) const {
    for (size_t s = home(key);; s = (s + 1) & mask())
      if (!slots_[s] || entries_[slots_[s] - 1].key == key) return s;
  }
  // Backward-shift deletion: the entries probed past the freed slot move back, so no probe ever
  // needs a tombstone.
  void erase(const Key& key) {
    if (slots_.empty()) return;
    size_t hole = probe(key);
    if (!slots_[hole]) return;
    for (size_t s = (hole + 1) & mask(); slots_[s]; s = (s + 1) & mask()) {
      size_t want = home(entries_[slots_[s] - 1].key);
      // The entry at s may fill the hole when its home is not in the cyclic range (hole, s].
      bool stays = hole < s ? (want > hole && want <= s) : (want > hole || want <= s);
      if (stays) continue;
      slots_[hole] = slots_[s];
      hole = s;
    }
    slots_[hole] = 0;
  }
  void reindex(size_t slots) {
    slots_.assign(slots, 0);
    shift_ = 64;
    for (size_t n = slots; n > 1; n >>= 1) --shift_;
    for (size_t i = 0; i < entries_.size(); ++i)
      if (const Entry& e = entries_[i]; e.live) slots_[probe(e.key)] = static_cast<uint32_t>(i + 1);
  }
  void grow() { reindex(slots_.empty() ? 64 : slots_.size() * 2); }
  void compact() {
    std::deque<Entry> kept;
    for (Entry& e : entries_)
      if (e.live) kept.push_back(std::move(e));
    entries_ = std::move(kept);
    reindex(slots_.size());
  }

  bool recording_ = true;
  std::deque<Entry> entries_;  // in the order set first, dropped ones included until compacted
  size_t live_ = 0;
  std::vector<uint32_t> slots_;
  unsigned shift_ = 64;
};

}  // namespace tvms::frontend
