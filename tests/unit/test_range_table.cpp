// frontend::RangeTableOf (the source map's tables) against std::unordered_map under random set,
// find, update (shift, drop) and merge, with keys that collide in the low bits as pointers do.
#include <doctest/doctest.h>

#include <random>
#include <unordered_map>

#include "compiler/frontend/frontend.h"

namespace {

using tvms::frontend::OperandKey;
using tvms::frontend::OperandKeyHash;
using tvms::frontend::RangeTable;
using tvms::frontend::RangeTableOf;
using tvms::syntax::ByteRange;

const void* pointerKey(uint32_t i) { return reinterpret_cast<const void*>(uintptr_t{0x10000} + uintptr_t{i} * 16); }

template <class Table, class Map, class KeyOf>
void checkSame(const Table& table, const Map& model, KeyOf keyOf, uint32_t keys) {
  REQUIRE(table.size() == model.size());
  for (uint32_t k = 0; k < keys; ++k) {
    auto it = model.find(keyOf(k));
    const ByteRange* r = table.find(keyOf(k));
    REQUIRE((r != nullptr) == (it != model.end()));
    if (r) REQUIRE(*r == it->second);
  }
}

template <class Key, class Hash, class KeyOf>
void randomRun(uint32_t seed, KeyOf keyOf) {
  INFO("seed " << seed);  // printed with any failure: rerun with it
  std::mt19937 rng(seed);
  const uint32_t keys = 1 + rng() % 5000;
  RangeTableOf<Key, Hash> table;
  std::unordered_map<Key, ByteRange, Hash> model;
  for (int step = 0; step < 20000; ++step) {
    uint32_t op = rng() % 100;
    if (op < 70) {
      Key k = keyOf(rng() % keys);
      ByteRange r{rng() % 1000, 1000 + rng() % 1000};
      table.set(k, r);
      model[k] = r;
    } else if (op < 72) {
      // An edit: ranges after an offset move, ranges over a deleted span go.
      uint32_t cut = rng() % 2000, width = rng() % 300;
      auto edit = [&](ByteRange& r) {
        if (r.begin < cut + width && r.end > cut) return false;
        if (r.begin >= cut + width) r.begin -= width, r.end -= width;
        return true;
      };
      table.update(edit);
      for (auto it = model.begin(); it != model.end();) it = edit(it->second) ? std::next(it) : model.erase(it);
    } else if (op < 73) {
      RangeTableOf<Key, Hash> newer;
      std::unordered_map<Key, ByteRange, Hash> newerModel;
      for (int i = rng() % 200; i > 0; --i) {
        Key k = keyOf(rng() % keys);
        ByteRange r{rng() % 2000, 2000 + rng() % 10};
        newer.set(k, r);
        newerModel[k] = r;
      }
      uint32_t from = rng() % 2000;
      auto keep = [&](ByteRange r) { return r.begin >= from; };
      table.merge(newer, keep);
      for (auto& [k, r] : newerModel)
        if (keep(r)) model[k] = r;
    } else {
      Key k = keyOf(rng() % keys);
      auto it = model.find(k);
      const ByteRange* r = table.find(k);
      REQUIRE((r != nullptr) == (it != model.end()));
      if (r) REQUIRE(*r == it->second);
    }
  }
  checkSame(table, model, keyOf, keys);
  RangeTableOf<Key, Hash> copy = table;  // a copied table is its own, its dropped entries still dropped
  checkSame(copy, model, keyOf, keys);
  size_t visited = 0;
  copy.update([&](ByteRange&) { return ++visited, true; });
  CHECK(visited == model.size());
  copy.update([](ByteRange&) { return false; });
  CHECK(copy.size() == 0);
  checkSame(table, model, keyOf, keys);
}

}  // namespace

TEST_CASE("range table: random sets, edits and merges agree with a hash map (pointer and operand keys)") {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    randomRun<const void*, std::hash<const void*>>(seed, pointerKey);
    randomRun<OperandKey, OperandKeyHash>(seed, [](uint32_t i) { return OperandKey{pointerKey(i / 3), i % 3}; });
  }
}

TEST_CASE("range table: a table that stops recording keeps nothing") {
  RangeTable t;
  t.set(pointerKey(1), {1, 2});
  t.stopRecording();
  t.set(pointerKey(2), {3, 4});
  CHECK(t.size() == 1);
  CHECK(t.find(pointerKey(2)) == nullptr);
  REQUIRE(t.find(pointerKey(1)) != nullptr);
  CHECK(*t.find(pointerKey(1)) == ByteRange{1, 2});
}
