// Ops whose result's shape comes from their operands' values (OpDef::shapeFunction): unique,
// nonzero and dynamic_strided_slice, built and run against references written here (numpy's
// unique / nonzero / slicing semantics) on fresh random values with repeats, zeros and NaNs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "tests/support/run_helpers.h"

using namespace tvms;
using test::at;
using test::checkClose;
using test::compileAndRun;

namespace {

// A float32 tensor of small integers in [0, range), some NaN when asked: values that repeat.
runtime::NDArray smallValues(test::Host& h, std::vector<int64_t> shape, std::mt19937& rng, int range, bool nans) {
  auto t = h.tensor(std::move(shape), rng);
  std::uniform_int_distribution<int> pick(0, range - 1), nan(0, 7);
  for (int64_t i = 0; i < t.numel(); ++i) static_cast<float*>(t.data())[i] = nans && nan(rng) == 0 ? NAN : static_cast<float>(pick(rng));
  return t;
}

std::vector<int64_t> ints(const runtime::NDArray& a) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < a.numel(); ++i) out.push_back(static_cast<const int64_t*>(a.data())[i]);
  return out;
}

// numpy's order: numbers ascending, NaN last; NaNs equal.
bool before(float a, float b) { return a < b || (std::isnan(b) && !std::isnan(a)); }
bool same(float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }

struct UniqueRef {
  std::vector<double> values;
  std::vector<int64_t> index, inverse, counts;
};
// numpy.unique(x.ravel(), return_index, return_inverse, return_counts); unsorted: the order of first
// occurrence (as torch.unique_consecutive of first occurrences, TVM's sorted=False).
UniqueRef uniqueRef(const runtime::NDArray& x, bool sorted) {
  std::vector<float> v;
  for (int64_t i = 0; i < x.numel(); ++i) v.push_back(at(x, i));
  std::vector<int64_t> firsts;  // first index of each distinct value, in order of first occurrence
  for (size_t i = 0; i < v.size(); ++i)
    if (std::none_of(firsts.begin(), firsts.end(), [&](int64_t f) { return same(v[static_cast<size_t>(f)], v[i]); })) firsts.push_back(static_cast<int64_t>(i));
  if (sorted) std::stable_sort(firsts.begin(), firsts.end(), [&](int64_t a, int64_t b) { return before(v[static_cast<size_t>(a)], v[static_cast<size_t>(b)]); });
  UniqueRef r;
  for (int64_t f : firsts) {
    r.values.push_back(v[static_cast<size_t>(f)]);
    r.index.push_back(f);
    r.counts.push_back(std::count_if(v.begin(), v.end(), [&](float e) { return same(e, v[static_cast<size_t>(f)]); }));
  }
  for (float e : v)
    for (size_t g = 0; g < firsts.size(); ++g)
      if (same(e, v[static_cast<size_t>(firsts[g])])) r.inverse.push_back(static_cast<int64_t>(g));
  return r;
}

std::string uniqueModule(const std::string& shape, const std::string& sorted) {
  std::string one = "R.Tensor(ndim=1, dtype=\"int64\")";
  return test::module("x: " + test::T(shape), "R.Tuple(R.Tensor(ndim=1, dtype=\"float32\"), " + one + ", " + one + ", " + one + ")",
                      "        u = R.unique(x, sorted=" + sorted + ", return_index=True, return_inverse=True, return_counts=True)\n        return u\n");
}

void checkUnique(const test::Run& r, const UniqueRef& want) {
  REQUIRE(r.outputs.size() == 4);
  REQUIRE(r.outputs[0].shape == std::vector<int64_t>{static_cast<int64_t>(want.values.size())});
  checkClose(r.outputs[0], want.values, 0);
  CHECK(ints(r.outputs[1]) == want.index);
  CHECK(ints(r.outputs[2]) == want.inverse);
  CHECK(ints(r.outputs[3]) == want.counts);
}

}  // namespace

TEST_CASE("compile and run: unique, sorted, with first indices, inverse and counts, NaNs counted as one value") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  // Long enough for several merge passes of the sort, few values so they repeat.
  auto x = smallValues(h, {7, 13}, rng, 9, true);
  checkUnique(compileAndRun(uniqueModule("(7, 13)", "True"), {x}), uniqueRef(x, true));
}

TEST_CASE("compile and run: unique unsorted keeps the order values first occur in, and its indices, inverse and counts follow it") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = smallValues(h, {5, 11}, rng, 6, true);
  checkUnique(compileAndRun(uniqueModule("(5, 11)", "False"), {x}), uniqueRef(x, false));
}

TEST_CASE("compile and run: unique alone gives the sorted values, and of a scalar one value") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = smallValues(h, {40}, rng, 12, false);
  test::Run r = compileAndRun(test::module("x: " + test::T("(40,)"), "R.Tensor(ndim=1, dtype=\"float32\")", "        u = R.unique(x)\n        return u\n"), {x});
  checkClose(r.outputs[0], uniqueRef(x, true).values, 0);
  auto s = smallValues(h, {}, rng, 3, false);
  test::Run one = compileAndRun(test::module("s: " + test::T("()"), "R.Tensor((1,), dtype=\"float32\")", "        u = R.unique(s)\n        return u\n"), {s});
  checkClose(one.outputs[0], {at(s, 0)}, 0);
}

TEST_CASE("compile and run: unique along an axis finds the distinct rows, sorted lexicographically, with inverse and counts") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  const int rows = 12, cols = 3;
  auto x = smallValues(h, {rows, cols}, rng, 2, false);  // 8 possible rows among 12: repeats
  std::string one = "R.Tensor(ndim=1, dtype=\"int64\")";
  test::Run r = compileAndRun(test::module("x: " + test::T("(12, 3)"), "R.Tuple(R.Tensor(ndim=2, dtype=\"float32\"), " + one + ", " + one + ")",
                                           "        u = R.unique(x, return_inverse=True, return_counts=True, axis=0)\n        return u\n"),
                              {x});
  std::map<std::vector<float>, int64_t> counts;  // std::map orders rows lexicographically, as numpy
  std::vector<std::vector<float>> all;
  for (int i = 0; i < rows; ++i) {
    std::vector<float> row;
    for (int j = 0; j < cols; ++j) row.push_back(at(x, i * cols + j));
    ++counts[row];
    all.push_back(row);
  }
  std::vector<double> values;
  std::vector<int64_t> count, inverse;
  for (auto& [row, n] : counts) {
    values.insert(values.end(), row.begin(), row.end());
    count.push_back(n);
  }
  for (auto& row : all) inverse.push_back(std::distance(counts.begin(), counts.find(row)));
  REQUIRE(r.outputs.size() == 3);
  CHECK(r.outputs[0].shape == std::vector<int64_t>{static_cast<int64_t>(counts.size()), cols});
  checkClose(r.outputs[0], values, 0);
  CHECK(ints(r.outputs[1]) == inverse);
  CHECK(ints(r.outputs[2]) == count);
}

TEST_CASE("compile and run: nonzero lists the indices of nonzero elements (NaN included) in row-major order, and none of all zeros") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = smallValues(h, {3, 4, 5}, rng, 3, true);  // a third are zero
  std::string body = "        n = R.nonzero(x)\n        return n\n";
  test::Run r = compileAndRun(test::module("x: " + test::T("(3, 4, 5)"), "R.Tensor(ndim=2, dtype=\"int64\")", body), {x});
  std::vector<int64_t> want[3];
  for (int64_t i = 0; i < 60; ++i)
    if (at(x, i) != 0) {
      want[0].push_back(i / 20);
      want[1].push_back(i / 5 % 4);
      want[2].push_back(i % 5);
    }
  int64_t n = static_cast<int64_t>(want[0].size());
  REQUIRE(r.outputs[0].shape == std::vector<int64_t>{3, n});
  std::vector<int64_t> flat;
  for (auto& row : want) flat.insert(flat.end(), row.begin(), row.end());
  CHECK(ints(r.outputs[0]) == flat);

  auto zeros = h.tensor({2, 3}, rng);
  for (int64_t i = 0; i < 6; ++i) static_cast<float*>(zeros.data())[i] = 0;
  test::Run none = compileAndRun(test::module("x: " + test::T("(2, 3)"), "R.Tensor(ndim=2, dtype=\"int64\")", body), {zeros});
  CHECK(none.outputs[0].shape == std::vector<int64_t>{2, 0});
}

TEST_CASE("compile and run: dynamic_strided_slice slices as numpy does with begin, end and strides read at run time") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({6, 7, 5}, rng);
  std::string body = "        s = R.dynamic_strided_slice(x, b, e, st)\n        return s\n";
  std::string vec = "R.Tensor((3,), \"int64\")";
  std::string text = test::module("x: " + test::T("(6, 7, 5)") + ", b: " + vec + ", e: " + vec + ", st: " + vec, "R.Tensor(ndim=3, dtype=\"float32\")", body);
  // numpy's x[b0:e0:s0, b1:e1:s1, b2:e2:s2], written out for each case.
  auto slice = [](int64_t b, int64_t e, int64_t s, int64_t n) {
    std::vector<int64_t> idx;
    if (s == 0) return idx;
    auto clampIndex = [&](int64_t v) {
      if (v < 0) v += n;
      return s > 0 ? std::clamp<int64_t>(v, 0, n) : std::clamp<int64_t>(v, -1, n - 1);
    };
    // Stepped in 128 bits: a stride near the int64 limits must not wrap the reference either.
    for (__int128 i = clampIndex(b), end = clampIndex(e); s > 0 ? i < end : i > end; i += s) idx.push_back(static_cast<int64_t>(i));
    return idx;
  };
  struct Case {
    std::vector<int64_t> b, e, s;
  };
  std::vector<Case> cases = {{{1, 0, 0}, {5, 7, 5}, {2, 1, 1}},          // plain steps
                             {{-1, 6, 4}, {-7, -8, -9}, {-1, -2, -3}},   // negative strides, ends past the start
                             {{-100, 2, 3}, {100, 2, 1}, {3, 1, 1}},     // clamped, an empty axis, end before begin
                             {{0, 0, 0}, {6, 7, 5}, {1, 0, 1}},          // a stride of 0: an empty axis
                             // strides and bounds at the int64 limits: one element, or none, never a wrap
                             {{INT64_MIN, INT64_MAX, -1}, {3, INT64_MIN, INT64_MIN}, {INT64_MAX, INT64_MIN, INT64_MAX}},
                             {{INT64_MAX, 2, INT64_MIN}, {INT64_MIN, INT64_MAX, INT64_MAX}, {INT64_MIN, INT64_MAX + 0, -INT64_MAX}}};
  for (auto& c : cases) {
    INFO("begin " << c.b[0] << "," << c.b[1] << "," << c.b[2] << " stride " << c.s[0] << "," << c.s[1] << "," << c.s[2]);
    test::Run r = compileAndRun(text, {x, h.ints({3}, c.b), h.ints({3}, c.e), h.ints({3}, c.s)});
    auto i0 = slice(c.b[0], c.e[0], c.s[0], 6), i1 = slice(c.b[1], c.e[1], c.s[1], 7), i2 = slice(c.b[2], c.e[2], c.s[2], 5);
    REQUIRE(r.outputs[0].shape == std::vector<int64_t>{static_cast<int64_t>(i0.size()), static_cast<int64_t>(i1.size()), static_cast<int64_t>(i2.size())});
    std::vector<double> want;
    for (int64_t a : i0)
      for (int64_t b : i1)
        for (int64_t d : i2) want.push_back(at(x, (a * 7 + b) * 5 + d));
    checkClose(r.outputs[0], want, 0);
  }
}

TEST_CASE("compile and run: dynamic_strided_slice with fewer values than axes slices the leading axes and keeps the rest") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({5, 3}, rng);
  std::string vec = "R.Tensor((1,), \"int64\")";
  test::Run r = compileAndRun(test::module("x: " + test::T("(5, 3)") + ", b: " + vec + ", e: " + vec + ", st: " + vec, "R.Tensor(ndim=2, dtype=\"float32\")",
                                           "        s = R.dynamic_strided_slice(x, b, e, st)\n        return s\n"),
                              {x, h.ints({1}, {4}), h.ints({1}, {0}), h.ints({1}, {-2})});
  REQUIRE(r.outputs[0].shape == std::vector<int64_t>{2, 3});
  std::vector<double> want;
  for (int64_t row : {4, 2})
    for (int64_t c = 0; c < 3; ++c) want.push_back(at(x, row * 3 + c));
  checkClose(r.outputs[0], want, 0);
}
