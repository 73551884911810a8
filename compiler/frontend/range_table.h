#pragma once
// IR object -> byte range: the source map's tables (frontend.h). A lowering records an entry for
// nearly every node it makes, so a large module's tables hold millions of entries; they are laid out
// for that:
// - the entries live in chunks of 1,024, walked in order: the language server shifts every range after
//   each keystroke, and walking arrays is ~20x cheaper than walking a node-based hash map. A chunk
//   never moves, so growing the table neither copies it nor leaves half of it unused (a vector
//   doubling does both); a power of two per chunk keeps finding an entry by number a shift and a mask
//   (a std::deque's 21-entry blocks made find() 2.5x slower);
// - the index is one flat open-addressed array of entry numbers (linear probing, at most half full),
//   4 bytes a slot, where a node-based map took a ~40-byte allocation per entry;
// - an entry is its key and range alone: whether it was dropped is a bit of its chunk. A flag in the
//   entry padded a pointer's 16 bytes to 24 (an operand's 24 to 32): 0.8 MB of a 1 MB file's lint.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "compiler/syntax/position.h"

namespace tvms::frontend {

template <class Key, class Hash = std::hash<Key>>
class RangeTableOf {
 public:
  RangeTableOf() = default;
  RangeTableOf(const RangeTableOf& other) { *this = other; }
  RangeTableOf& operator=(const RangeTableOf& other) {
    if (this == &other) return *this;
    chunks_.clear();
    count_ = 0;
    for (size_t i = 0; i < other.count_; ++i) {
      append(other.entry(i));
      if (!other.live(i)) kill(i);
    }
    slots_ = other.slots_;
    live_ = other.live_;
    shift_ = other.shift_;
    recording_ = other.recording_;
    return *this;
  }
  RangeTableOf(RangeTableOf&&) noexcept = default;
  RangeTableOf& operator=(RangeTableOf&&) noexcept = default;

  void set(const Key& key, syntax::ByteRange r) {
    if (!recording_) return;
    size_t s = 0;
    if (!slots_.empty()) {
      s = probe(key);
      if (uint32_t slot = slots_[s]) {
        entry(slot - 1).range = r;
        return;
      }
    }
    // A new key: the probe's empty slot is its place, unless the index grows (a lowering's inserts
    // probed twice before, each step a read of an entry that is rarely in cache).
    if ((live_ + 1) * 2 > slots_.size()) {
      grow();
      s = probe(key);
    }
    append({key, r});
    ++live_;
    slots_[s] = static_cast<uint32_t>(count_);  // entry number + 1: 0 marks an empty slot
  }
  const syntax::ByteRange* find(const Key& key) const {
    if (slots_.empty()) return nullptr;
    uint32_t slot = slots_[probe(key)];
    return slot ? &entry(slot - 1).range : nullptr;
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
    for (size_t c = 0; c < chunks_.size(); ++c) {
      Chunk& chunk = *chunks_[c];
      const size_t n = std::min(kChunk, count_ - (c << kChunkBits));
      for (size_t i = 0; i < n; ++i) {
        Entry& e = chunk.entries[i];
        if (chunk.isDead(i)) { ++dropped; continue; }
        if (!f(e.range)) {
          erase(e.key);
          chunk.kill(i);
          --live_;
          ++dropped;
        }
      }
    }
    if (dropped * 2 > count_) compact();
  }

 private:
  struct Entry {
    Key key;
    syntax::ByteRange range;
  };
  static constexpr size_t kChunkBits = 10;
  static constexpr size_t kChunk = size_t{1} << kChunkBits;
  struct Chunk {
    Entry entries[kChunk];
    uint64_t dead[kChunk / 64] = {};  // a bit per entry dropped by update(), still in order until compacted
    bool isDead(size_t i) const { return (dead[i >> 6] >> (i & 63)) & 1; }
    void kill(size_t i) { dead[i >> 6] |= uint64_t{1} << (i & 63); }
  };
  Entry& entry(size_t i) { return chunks_[i >> kChunkBits]->entries[i & (kChunk - 1)]; }
  const Entry& entry(size_t i) const { return chunks_[i >> kChunkBits]->entries[i & (kChunk - 1)]; }
  bool live(size_t i) const { return !chunks_[i >> kChunkBits]->isDead(i & (kChunk - 1)); }
  void kill(size_t i) { chunks_[i >> kChunkBits]->kill(i & (kChunk - 1)); }
  void append(const Entry& e) {
    if ((count_ & (kChunk - 1)) == 0) chunks_.push_back(std::make_unique<Chunk>());
    entry(count_++) = e;
  }
  template <class F>
  void forEachLive(F&& f) const {
    for (size_t i = 0; i < count_; ++i)
      if (live(i)) f(entry(i).key, entry(i).range);
  }

  // Where a key's probe starts. Hash may be the identity (std::hash of a pointer), whose low bits are
  // alignment zeros: the product with 2^64 / phi spreads every bit into the high ones taken.
  size_t home(const Key& key) const { return (Hash()(key) * 0x9E3779B97F4A7C15ull) >> shift_; }
  size_t mask() const { return slots_.size() - 1; }
  // The slot holding `key`, or the empty slot where its probe ends (the index has slots: at most half
  // of them full, so a probe always ends).
  size_t probe(const Key& key) const {
    for (size_t s = home(key);; s = (s + 1) & mask())
      if (!slots_[s] || entry(slots_[s] - 1).key == key) return s;
  }
  // Backward-shift deletion: the entries probed past the freed slot move back, so no probe ever
  // needs a tombstone.
  void erase(const Key& key) {
    if (slots_.empty()) return;
    size_t hole = probe(key);
    if (!slots_[hole]) return;
    for (size_t s = (hole + 1) & mask(); slots_[s]; s = (s + 1) & mask()) {
      size_t want = home(entry(slots_[s] - 1).key);
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
    for (size_t i = 0; i < count_; ++i)
      if (live(i)) slots_[probe(entry(i).key)] = static_cast<uint32_t>(i + 1);
  }
  void grow() { reindex(slots_.empty() ? 64 : slots_.size() * 2); }
  void compact() {
    std::vector<std::unique_ptr<Chunk>> old = std::move(chunks_);
    const size_t oldCount = count_;
    chunks_.clear();
    count_ = 0;
    for (size_t i = 0; i < oldCount; ++i) {
      const Chunk& chunk = *old[i >> kChunkBits];
      if (!chunk.isDead(i & (kChunk - 1))) append(chunk.entries[i & (kChunk - 1)]);
    }
    reindex(slots_.size());
  }

  bool recording_ = true;
  std::vector<std::unique_ptr<Chunk>> chunks_;  // entries in the order set first, dropped ones included until compacted
  size_t count_ = 0;
  size_t live_ = 0;
  std::vector<uint32_t> slots_;
  unsigned shift_ = 64;
};

}  // namespace tvms::frontend
