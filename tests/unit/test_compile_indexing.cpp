// The kernels of the rearranging and index-tensor ops end to end (tile, repeat, flip, nn.pad,
// nn.pixel_shuffle, nn.batch_flatten, meshgrid, eye, eye_like, collapse_sum_*, gather_elements,
// gather_nd, scatter_elements, scatter_nd, one_hot, slice_scatter) against references written here
// by index arithmetic, on fresh random inputs each run (indices too, negative ones included).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>

#include "compiler/analysis/lint.h"
#include "compiler/syntax/document.h"
#include "tests/support/run_helpers.h"

namespace {

using namespace tvms;
using test::at;
using test::checkClose;
using test::compileAndRun;
using test::module;
using Shape = std::vector<int64_t>;

using test::T;

int64_t count(const Shape& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}
int64_t ravel(const Shape& idx, const Shape& s) {
  int64_t f = 0;
  for (size_t d = 0; d < s.size(); ++d) f = f * s[d] + idx[d];
  return f;
}
// Calls f(index) for every index of `s`, row-major.
void forEachIndex(const Shape& s, const std::function<void(const Shape&)>& f) {
  Shape idx(s.size(), 0);
  for (int64_t n = 0; n < count(s); ++n) {
    f(idx);
    for (size_t d = s.size(); d-- > 0;) {
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
}
// The reference of an op that reads each output element from one input position (or a value).
std::vector<double> gathered(const Shape& out, const std::function<double(const Shape&)>& value) {
  std::vector<double> r;
  forEachIndex(out, [&](const Shape& o) { r.push_back(value(o)); });
  return r;
}
std::vector<int64_t> randomIndices(std::mt19937& rng, int64_t n, int64_t axis, bool negative = true) {
  std::uniform_int_distribution<int64_t> u(negative ? -axis : 0, axis - 1);
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(u(rng));
  return v;
}
int64_t wrapped(int64_t i, int64_t n) { return i < 0 ? i + n : i; }

}  // namespace

TEST_CASE("compile and run: tile, repeat, flip, nn.pad (constant, edge, reflect), pixel_shuffle, batch_flatten") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({2, 3}, rng);
  auto y = h.tensor({1, 8, 2, 3}, rng);
  auto X = [&](int64_t i, int64_t j) { return static_cast<double>(at(x, i * 3 + j)); };
  std::string body =
      "        a = R.tile(x, [2, 1, 2])\n        b = R.repeat(x, repeats=2, axis=1)\n        c = R.repeat(x, 3)\n"
      "        d = R.flip(x, axis=0)\n        e = R.nn.pad(x, pad_width=[1, 0, 0, 2], pad_mode=\"constant\", pad_value=7.0)\n"
      "        f = R.nn.pad(x, [2, 1, 1, 2], pad_mode=\"edge\")\n        g = R.nn.pad(x, [1, 1, 2, 2], pad_mode=\"reflect\")\n"
      "        p = R.nn.pixel_shuffle(y, upscale_factor=2)\n        q = R.nn.batch_flatten(y)\n"
      "        return (a, b, c, d, e, f, g, p, q)\n";
  test::Run r = compileAndRun(module("x: " + T("(2, 3)") + ", y: " + T("(1, 8, 2, 3)"),
                                     "R.Tuple(" + T("(2, 2, 6)") + ", " + T("(2, 6)") + ", " + T("(18,)") + ", " + T("(2, 3)") + ", " +
                                         T("(3, 5)") + ", " + T("(5, 6)") + ", " + T("(4, 7)") + ", " + T("(1, 2, 4, 6)") + ", " + T("(1, 48)") + ")",
                                     body),
                              {x, y});
  checkClose(r.outputs.at(0), gathered({2, 2, 6}, [&](const Shape& o) { return X(o[1] % 2, o[2] % 3); }));
  checkClose(r.outputs.at(1), gathered({2, 6}, [&](const Shape& o) { return X(o[0], o[1] / 2); }));
  checkClose(r.outputs.at(2), gathered({18}, [&](const Shape& o) { return X(o[0] / 3 / 3, o[0] / 3 % 3); }));
  checkClose(r.outputs.at(3), gathered({2, 3}, [&](const Shape& o) { return X(1 - o[0], o[1]); }));
  checkClose(r.outputs.at(4), gathered({3, 5}, [&](const Shape& o) { return o[0] >= 1 && o[1] < 3 ? X(o[0] - 1, o[1]) : 7.0; }));
  auto clamp = [](int64_t i, int64_t n) { return std::max<int64_t>(0, std::min(i, n - 1)); };
  checkClose(r.outputs.at(5), gathered({5, 6}, [&](const Shape& o) { return X(clamp(o[0] - 2, 2), clamp(o[1] - 1, 3)); }));
  auto reflect = [](int64_t i, int64_t n) { return i < 0 ? -i : i >= n ? 2 * n - 2 - i : i; };
  checkClose(r.outputs.at(6), gathered({4, 7}, [&](const Shape& o) { return X(reflect(o[0] - 1, 2), reflect(o[1] - 2, 3)); }));
  checkClose(r.outputs.at(7), gathered({1, 2, 4, 6}, [&](const Shape& o) {
               return static_cast<double>(at(y, ravel({0, o[1] * 4 + (o[2] % 2) * 2 + o[3] % 2, o[2] / 2, o[3] / 2}, {1, 8, 2, 3})));
             }));
  checkClose(r.outputs.at(8), gathered({1, 48}, [&](const Shape& o) { return static_cast<double>(at(y, o[1])); }));
}

TEST_CASE("compile and run: meshgrid (ij, xy), eye, eye_like, collapse_sum_to, collapse_sum_like") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto u = h.tensor({3}, rng), v = h.tensor({4}, rng), x = h.tensor({2, 3, 4}, rng), like = h.tensor({3, 1}, rng);
  std::string body =
      "        m = R.meshgrid((u, v), indexing=\"ij\")\n        n = R.meshgrid((u, v), indexing=\"xy\")\n"
      "        m0 = m[0]\n        m1 = m[1]\n        n0 = n[0]\n        n1 = n[1]\n"
      "        e = R.eye(3, 4, 1, dtype=\"float32\")\n        f = R.eye_like(like, -1)\n"
      "        s = R.collapse_sum_to(x, (3, 1))\n        t = R.collapse_sum_like(x, v)\n"
      "        return (m0, m1, n0, n1, e, f, s, t)\n";
  test::Run r = compileAndRun(module("u: " + T("(3,)") + ", v: " + T("(4,)") + ", x: " + T("(2, 3, 4)") + ", like: " + T("(3, 1)"),
                                     "R.Tuple(" + T("(3, 4)") + ", " + T("(3, 4)") + ", " + T("(4, 3)") + ", " + T("(4, 3)") + ", " +
                                         T("(3, 4)") + ", " + T("(3, 1)") + ", " + T("(3, 1)") + ", " + T("(4,)") + ")",
                                     body),
                              {u, v, x, like});
  checkClose(r.outputs.at(0), gathered({3, 4}, [&](const Shape& o) { return static_cast<double>(at(u, o[0])); }));
  checkClose(r.outputs.at(1), gathered({3, 4}, [&](const Shape& o) { return static_cast<double>(at(v, o[1])); }));
  checkClose(r.outputs.at(2), gathered({4, 3}, [&](const Shape& o) { return static_cast<double>(at(u, o[1])); }));
  checkClose(r.outputs.at(3), gathered({4, 3}, [&](const Shape& o) { return static_cast<double>(at(v, o[0])); }));
  checkClose(r.outputs.at(4), gathered({3, 4}, [&](const Shape& o) { return o[1] - o[0] == 1 ? 1.0 : 0.0; }));
  checkClose(r.outputs.at(5), gathered({3, 1}, [&](const Shape& o) { return o[1] - o[0] == -1 ? 1.0 : 0.0; }));
  checkClose(r.outputs.at(6), gathered({3, 1}, [&](const Shape& o) {
               double s = 0;
               for (int64_t a = 0; a < 2; ++a)
                 for (int64_t c = 0; c < 4; ++c) s += at(x, ravel({a, o[0], c}, {2, 3, 4}));
               return s;
             }), 1e-5);
  checkClose(r.outputs.at(7), gathered({4}, [&](const Shape& o) {
               double s = 0;
               for (int64_t a = 0; a < 2; ++a)
                 for (int64_t b = 0; b < 3; ++b) s += at(x, ravel({a, b, o[0]}, {2, 3, 4}));
               return s;
             }), 1e-5);
}

TEST_CASE("compile and run: gather_elements, gather_nd (batch_dims 0 and 1), one_hot, with negative indices") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({3, 4}, rng), z = h.tensor({2, 3, 4}, rng);
  auto ge = randomIndices(rng, 2 * 4, 4), nd = randomIndices(rng, 5 * 2, 3), nb = randomIndices(rng, 2 * 1, 3),
       hot = randomIndices(rng, 2 * 3, 5, false);
  std::string body =
      "        a = R.gather_elements(x, ge, axis=1)\n        b = R.gather_nd(x, nd)\n        c = R.gather_nd(z, nb, batch_dims=1)\n"
      "        d = R.one_hot(hot, R.prim_value(2.5), R.prim_value(-1.0), depth=5, axis=1)\n        return (a, b, c, d)\n";
  std::string i64 = "\"int64\"";
  test::Run r = compileAndRun(module("x: " + T("(3, 4)") + ", z: " + T("(2, 3, 4)") + ", ge: " + T("(2, 4)", i64) + ", nd: " + T("(5, 2)", i64) +
                                         ", nb: " + T("(2, 1)", i64) + ", hot: " + T("(2, 3)", i64),
                                     "R.Tuple(" + T("(2, 4)") + ", " + T("(5,)") + ", " + T("(2, 4)") + ", " + T("(2, 5, 3)") + ")", body),
                              {x, z, h.ints({2, 4}, ge), h.ints({5, 2}, nd), h.ints({2, 1}, nb), h.ints({2, 3}, hot)});
  checkClose(r.outputs.at(0), gathered({2, 4}, [&](const Shape& o) { return static_cast<double>(at(x, o[0] * 4 + wrapped(ge[static_cast<size_t>(o[0] * 4 + o[1])], 4))); }));
  checkClose(r.outputs.at(1), gathered({5}, [&](const Shape& o) {
               return static_cast<double>(at(x, wrapped(nd[static_cast<size_t>(o[0] * 2)], 3) * 4 + wrapped(nd[static_cast<size_t>(o[0] * 2 + 1)], 4)));
             }));
  checkClose(r.outputs.at(2), gathered({2, 4}, [&](const Shape& o) {
               return static_cast<double>(at(z, ravel({o[0], wrapped(nb[static_cast<size_t>(o[0])], 3), o[1]}, {2, 3, 4})));
             }));
  checkClose(r.outputs.at(3), gathered({2, 5, 3}, [&](const Shape& o) { return hot[static_cast<size_t>(o[0] * 3 + o[2])] == o[1] ? 2.5 : -1.0; }));
}

TEST_CASE("compile and run: scatter_elements and scatter_nd (update, add with repeated indices, max), slice_scatter") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({3, 4}, rng), upd = h.tensor({3, 2}, rng), rows = h.tensor({4, 4}, rng), src = h.tensor({3, 2}, rng);
  auto se = randomIndices(rng, 3 * 2, 4), sn = randomIndices(rng, 4, 3, false);
  std::string body =
      "        a = R.scatter_elements(x, se, upd, axis=1)\n        b = R.scatter_elements(x, se, upd, axis=1, reduction=\"add\")\n"
      "        c = R.scatter_nd(x, sn, rows, reduction=\"add\")\n        d = R.scatter_nd(x, sn, rows, reduction=\"max\")\n"
      "        e = R.slice_scatter(x, src, 1, 4, 2, axis=1)\n        return (a, b, c, d, e)\n";
  std::string i64 = "\"int64\"";
  test::Run r = compileAndRun(module("x: " + T("(3, 4)") + ", upd: " + T("(3, 2)") + ", rows: " + T("(4, 4)") + ", src: " + T("(3, 2)") +
                                         ", se: " + T("(3, 2)", i64) + ", sn: " + T("(4, 1)", i64),
                                     "R.Tuple(" + T("(3, 4)") + ", " + T("(3, 4)") + ", " + T("(3, 4)") + ", " + T("(3, 4)") + ", " + T("(3, 4)") + ")",
                                     body),
                              {x, upd, rows, src, h.ints({3, 2}, se), h.ints({4, 1}, sn)});
  std::vector<double> base = gathered({3, 4}, [&](const Shape& o) { return static_cast<double>(at(x, o[0] * 4 + o[1])); });
  std::vector<double> update = base, added = base, ndAdd = base, ndMax = base;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      size_t dst = static_cast<size_t>(i * 4 + wrapped(se[static_cast<size_t>(i * 2 + j)], 4));
      update[dst] = at(upd, i * 2 + j);  // later updates of one position win, in index order
      added[dst] += at(upd, i * 2 + j);
    }
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t c = 0; c < 4; ++c) {
      size_t dst = static_cast<size_t>(sn[static_cast<size_t>(i)] * 4 + c);
      ndAdd[dst] += at(rows, i * 4 + c);
      ndMax[dst] = std::max<double>(ndMax[dst], at(rows, i * 4 + c));
    }
  checkClose(r.outputs.at(0), update);
  checkClose(r.outputs.at(1), added, 1e-5);
  checkClose(r.outputs.at(2), ndAdd, 1e-5);
  checkClose(r.outputs.at(3), ndMax);
  checkClose(r.outputs.at(4), gathered({3, 4}, [&](const Shape& o) {
               return o[1] % 2 == 1 ? static_cast<double>(at(src, o[0] * 2 + o[1] / 2)) : base[static_cast<size_t>(o[0] * 4 + o[1])];
             }));
}

TEST_CASE("compile and run: layout_transform by a lambda index map, with padding, from a Python name and as T.index_map") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({2, 5, 3}, rng), y = h.tensor({6}, rng);
  std::string body =
      "        a = R.layout_transform(x, index_map=transformation, pad_value=2.0)\n"
      "        b = R.layout_transform(y, index_map=T.index_map(lambda i: (i // 3, i % 3)), pad_value=None)\n"
      "        return (a, b)\n";
  std::string text = test::module("x: " + T("(2, 5, 3)") + ", y: " + T("(6,)"), "R.Tuple(" + T("(2, 3, 2, 3)") + ", " + T("(2, 3)") + ")", body);
  // The index map is a Python name of the file, as TVM's tests write it.
  text.replace(text.find("\n\n\n@I.ir_module"), 3, "\nfrom tvm.script import tirx as T\n\ntransformation = lambda a, b, c: (a, c, b // 3, b % 3)\n\n\n");
  test::Run r = compileAndRun(text, {x, y});
  checkClose(r.outputs.at(0), gathered({2, 3, 2, 3}, [&](const Shape& o) {
               int64_t b = o[2] * 3 + o[3];
               return b < 5 ? static_cast<double>(at(x, ravel({o[0], b, o[1]}, {2, 5, 3}))) : 2.0;
             }));
  checkClose(r.outputs.at(1), gathered({2, 3}, [&](const Shape& o) { return static_cast<double>(at(y, o[0] * 3 + o[1])); }));
}

namespace {
// TOPI's resize2d, written out in float64 for one (H, W) plane read through `px(y, x)` (clamped).
double resizeReference(const std::function<double(int64_t, int64_t)>& px, int64_t H, int64_t W, int64_t oh, int64_t ow, int64_t y, int64_t x,
                       const std::string& method, const std::string& mode, const std::string& rounding) {
  auto coord = [&](int64_t o, int64_t in, int64_t out) {
    double scale = static_cast<double>(in) / static_cast<double>(out);
    if (mode == "half_pixel") return (static_cast<double>(o) + 0.5) * scale - 0.5;
    if (mode == "align_corners") return out > 1 ? static_cast<double>(o) * static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
    return static_cast<double>(o) * scale;  // asymmetric
  };
  auto clampTo = [](int64_t i, int64_t n) { return std::max<int64_t>(0, std::min(i, n - 1)); };
  auto at = [&](int64_t yi, int64_t xi) { return px(clampTo(yi, H), clampTo(xi, W)); };
  double ys = coord(y, H, oh), xs = coord(x, W, ow);
  if (method == "nearest_neighbor") {
    auto r = [&](double v) { return static_cast<int64_t>(rounding == "floor" ? std::floor(v) : std::floor(v + 0.5)); };  // round_prefer_ceil
    return at(r(ys), r(xs));
  }
  int64_t y0 = static_cast<int64_t>(std::floor(ys)), x0 = static_cast<int64_t>(std::floor(xs));
  double fy = ys - static_cast<double>(y0), fx = xs - static_cast<double>(x0);
  if (method == "linear")
    return (at(y0, x0) * (1 - fx) + at(y0, x0 + 1) * fx) * (1 - fy) + (at(y0 + 1, x0) * (1 - fx) + at(y0 + 1, x0 + 1) * fx) * fy;
  const double a = -0.75;
  auto w = [&](double d) {  // Keys' kernel
    d = std::fabs(d);
    return d <= 1 ? ((a + 2) * d - (a + 3)) * d * d + 1 : d < 2 ? ((a * d - 5 * a) * d + 8 * a) * d - 4 * a : 0.0;
  };
  double sum = 0;
  for (int dy = -1; dy <= 2; ++dy)
    for (int dx = -1; dx <= 2; ++dx) sum += w(fy - dy) * w(fx - dx) * at(y0 + dy, x0 + dx);
  return sum;
}
}  // namespace

TEST_CASE("compile and run: image.resize2d by nearest_neighbor, linear and cubic sampling, NCHW and NHWC, three coordinate modes") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({1, 2, 3, 4}, rng), y = h.tensor({1, 3, 4, 2}, rng);
  std::string body =
      "        a = R.image.resize2d(x, (6, 8), method=\"linear\", coordinate_transformation_mode=\"half_pixel\")\n"
      "        b = R.image.resize2d(x, (5, 7), method=\"nearest_neighbor\", coordinate_transformation_mode=\"asymmetric\", rounding_method=\"floor\")\n"
      "        c = R.image.resize2d(x, R.shape([6, 8]), method=\"nearest_neighbor\", coordinate_transformation_mode=\"align_corners\", rounding_method=\"round_prefer_ceil\")\n"
      "        d = R.image.resize2d(x, (6, 7), method=\"cubic\")\n"
      "        e = R.image.resize2d(y, (5, 5), layout=\"NHWC\", method=\"linear\", coordinate_transformation_mode=\"align_corners\")\n"
      "        return (a, b, c, d, e)\n";
  test::Run r = compileAndRun(test::module("x: " + T("(1, 2, 3, 4)") + ", y: " + T("(1, 3, 4, 2)"),
                                           "R.Tuple(" + T("(1, 2, 6, 8)") + ", " + T("(1, 2, 5, 7)") + ", " + T("(1, 2, 6, 8)") + ", " + T("(1, 2, 6, 7)") +
                                               ", " + T("(1, 5, 5, 2)") + ")",
                                           body),
                              {x, y});
  auto nchw = [&](int64_t oh, int64_t ow, const std::string& method, const std::string& mode, const std::string& rounding) {
    return gathered({1, 2, oh, ow}, [&](const Shape& o) {
      auto px = [&](int64_t yy, int64_t xx) { return static_cast<double>(at(x, ravel({0, o[1], yy, xx}, {1, 2, 3, 4}))); };
      return resizeReference(px, 3, 4, oh, ow, o[2], o[3], method, mode, rounding);
    });
  };
  checkClose(r.outputs.at(0), nchw(6, 8, "linear", "half_pixel", ""), 1e-5);
  checkClose(r.outputs.at(1), nchw(5, 7, "nearest_neighbor", "asymmetric", "floor"));
  checkClose(r.outputs.at(2), nchw(6, 8, "nearest_neighbor", "align_corners", "round_prefer_ceil"));
  checkClose(r.outputs.at(3), nchw(6, 7, "cubic", "half_pixel", ""), 1e-5);
  checkClose(r.outputs.at(4), gathered({1, 5, 5, 2}, [&](const Shape& o) {
               auto px = [&](int64_t yy, int64_t xx) { return static_cast<double>(at(y, ravel({0, yy, xx, o[3]}, {1, 3, 4, 2}))); };
               return resizeReference(px, 3, 4, 5, 5, o[1], o[2], "linear", "align_corners", "");
             }), 1e-5);
}

TEST_CASE("compile and run: image.resize3d, trilinear half_pixel in NCDHW and nearest asymmetric in NDHWC") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({1, 2, 3, 4, 5}, rng), y = h.tensor({1, 3, 4, 2, 2}, rng);
  std::string body =
      "        a = R.image.resize3d(x, (4, 6, 7), method=\"linear\", coordinate_transformation_mode=\"half_pixel\")\n"
      "        b = R.image.resize3d(y, (5, 5, 3), layout=\"NDHWC\", method=\"nearest_neighbor\", coordinate_transformation_mode=\"asymmetric\", rounding_method=\"floor\")\n"
      "        return (a, b)\n";
  test::Run r = compileAndRun(test::module("x: " + T("(1, 2, 3, 4, 5)") + ", y: " + T("(1, 3, 4, 2, 2)"),
                                           "R.Tuple(" + T("(1, 2, 4, 6, 7)") + ", " + T("(1, 5, 5, 3, 2)") + ")", body),
                              {x, y});
  auto clampTo = [](int64_t i, int64_t n) { return std::max<int64_t>(0, std::min(i, n - 1)); };
  // Trilinear: the 8 corners around each source position, each weighted by its three fractions.
  checkClose(r.outputs.at(0), gathered({1, 2, 4, 6, 7}, [&](const Shape& o) {
               const int64_t in[3] = {3, 4, 5}, out[3] = {4, 6, 7};
               int64_t lo[3];
               double frac[3];
               for (int k = 0; k < 3; ++k) {
                 double src = (static_cast<double>(o[2 + k]) + 0.5) * static_cast<double>(in[k]) / static_cast<double>(out[k]) - 0.5;
                 lo[k] = static_cast<int64_t>(std::floor(src));
                 frac[k] = src - static_cast<double>(lo[k]);
               }
               double sum = 0;
               for (int corner = 0; corner < 8; ++corner) {
                 double w = 1;
                 int64_t at3[3];
                 for (int k = 0; k < 3; ++k) {
                   int bit = (corner >> (2 - k)) & 1;
                   w *= bit ? frac[k] : 1 - frac[k];
                   at3[k] = clampTo(lo[k] + bit, in[k]);
                 }
                 sum += w * at(x, ravel({0, o[1], at3[0], at3[1], at3[2]}, {1, 2, 3, 4, 5}));
               }
               return sum;
             }), 1e-5);
  checkClose(r.outputs.at(1), gathered({1, 5, 5, 3, 2}, [&](const Shape& o) {
               const int64_t in[3] = {3, 4, 2}, out[3] = {5, 5, 3};
               int64_t src[3];
               for (int k = 0; k < 3; ++k)
                 src[k] = clampTo(static_cast<int64_t>(std::floor(static_cast<double>(o[1 + k]) * static_cast<double>(in[k]) / static_cast<double>(out[k]))), in[k]);
               return static_cast<double>(at(y, ravel({0, src[0], src[1], src[2], o[4]}, {1, 3, 4, 2, 2})));
             }));
}

TEST_CASE("compile and run: image.affine_grid with and without align_corners, and grid_sample of its grid against PyTorch's formulas") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto theta = h.tensor({2, 2, 3}, rng, -0.8, 0.8);
  auto x = h.tensor({2, 3, 5, 6}, rng);
  std::string body =
      "        g = R.image.affine_grid(theta, (4, 5))\n"
      "        f = R.image.affine_grid(theta, (4, 5), align_corners=False)\n"
      "        p = R.permute_dims(f, axes=[0, 2, 3, 1])\n"
      "        b = R.image.grid_sample(x, p)\n"
      "        n = R.image.grid_sample(x, p, method=\"nearest\", padding_mode=\"border\", align_corners=True)\n"
      "        return (g, f, b, n)\n";
  test::Run r = compileAndRun(test::module("theta: " + T("(2, 2, 3)") + ", x: " + T("(2, 3, 5, 6)"),
                                           "R.Tuple(" + T("(2, 2, 4, 5)") + ", " + T("(2, 2, 4, 5)") + ", " + T("(2, 3, 4, 5)") + ", " + T("(2, 3, 4, 5)") + ")", body),
                              {theta, x});
  auto coordinate = [](int64_t i, int64_t n, bool align) { return align ? -1 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1) : (2.0 * static_cast<double>(i) + 1) / static_cast<double>(n) - 1; };
  auto gridAt = [&](int64_t n, int64_t d, int64_t i, int64_t j, bool align) {
    auto t = [&](int64_t k) { return static_cast<double>(at(theta, (n * 2 + d) * 3 + k)); };
    return t(0) * coordinate(j, 5, align) + t(1) * coordinate(i, 4, align) + t(2);
  };
  checkClose(r.outputs.at(0), gathered({2, 2, 4, 5}, [&](const Shape& o) { return gridAt(o[0], o[1], o[2], o[3], true); }), 1e-5);
  checkClose(r.outputs.at(1), gathered({2, 2, 4, 5}, [&](const Shape& o) { return gridAt(o[0], o[1], o[2], o[3], false); }), 1e-5);
  auto pixel = [&](int64_t n, int64_t c, int64_t yy, int64_t xx) {
    return yy < 0 || yy >= 5 || xx < 0 || xx >= 6 ? 0.0 : static_cast<double>(at(x, ((n * 3 + c) * 5 + yy) * 6 + xx));
  };
  // grid_sample reads the grid affine_grid made (align_corners=False) at each output position.
  checkClose(r.outputs.at(2), gathered({2, 3, 4, 5}, [&](const Shape& o) {
               double gx = gridAt(o[0], 0, o[2], o[3], false), gy = gridAt(o[0], 1, o[2], o[3], false);
               double xs = ((gx + 1) * 6 - 1) / 2, ys = ((gy + 1) * 5 - 1) / 2;  // align_corners=False
               double x0 = std::floor(xs), y0 = std::floor(ys), fx = xs - x0, fy = ys - y0;
               auto p = [&](double yy, double xx) { return pixel(o[0], o[1], static_cast<int64_t>(yy), static_cast<int64_t>(xx)); };
               return (p(y0, x0) * (1 - fx) + p(y0, x0 + 1) * fx) * (1 - fy) + (p(y0 + 1, x0) * (1 - fx) + p(y0 + 1, x0 + 1) * fx) * fy;
             }), 1e-5);
  checkClose(r.outputs.at(3), gathered({2, 3, 4, 5}, [&](const Shape& o) {
               double gx = gridAt(o[0], 0, o[2], o[3], false), gy = gridAt(o[0], 1, o[2], o[3], false);
               double xs = std::clamp((gx + 1) / 2 * 5, 0.0, 5.0), ys = std::clamp((gy + 1) / 2 * 4, 0.0, 4.0);  // align_corners=True, border
               return pixel(o[0], o[1], static_cast<int64_t>(std::nearbyint(ys)), static_cast<int64_t>(std::nearbyint(xs)));
             }), 1e-5);
  // With align_corners a target of one row or column is refused, as TOPI does.
  syntax::Document doc(test::module("theta: " + T("(2, 2, 3)"), T("(2, 2, 1, 5)"), "        g = R.image.affine_grid(theta, (1, 5))\n        return g\n"));
  bool said = false;
  for (auto& d : analysis::lintDocument(doc, {}).diagnostics) said |= d.message.find("height and width must be above 1") != std::string::npos;
  CHECK(said);
}

TEST_CASE("compile and run: nn.pad with TVM's older third-argument pad value R.const(v, dtype)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({2, 3}, rng);
  test::Run r = compileAndRun(test::module("x: " + T("(2, 3)"), T("(4, 3)"),
                                           "        y = R.nn.pad(x, [1, 1, 0, 0], R.const(3, \"int32\"), pad_mode=\"constant\")\n        return y\n"),
                              {x});
  checkClose(r.outputs.at(0), gathered({4, 3}, [&](const Shape& o) { return o[0] >= 1 && o[0] <= 2 ? static_cast<double>(at(x, (o[0] - 1) * 3 + o[1])) : 3.0; }));
}

TEST_CASE("compile and run: index_tensor (index tensors that broadcast) and index_put (write and accumulate, repeated positions)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({4, 5, 3}, rng), vals = h.tensor({2, 1, 3}, rng), one = h.tensor({3}, rng);
  auto i0 = randomIndices(rng, 2, 4), i1 = randomIndices(rng, 3, 5), p0 = randomIndices(rng, 2, 4, false);
  p0[1] = p0[0];  // a repeated position: accumulate adds both, write keeps the last
  std::string i64 = "\"int64\"";
  std::string body =
      "        a = R.index_tensor(x, (i0, i1))\n        b = R.index_put(x, (p0,), vals)\n"
      "        c = R.index_put(x, (p0,), vals, accumulate=True)\n        d = R.index_put(x, [p0, p0], one)\n        return (a, b, c, d)\n";
  test::Run r = compileAndRun(test::module("x: " + T("(4, 5, 3)") + ", vals: " + T("(2, 1, 3)") + ", one: " + T("(3,)") + ", i0: " + T("(2, 1)", i64) +
                                               ", i1: " + T("(3,)", i64) + ", p0: " + T("(2,)", i64),
                                           "R.Tuple(" + T("(2, 3, 3)") + ", " + T("(4, 5, 3)") + ", " + T("(4, 5, 3)") + ", " + T("(4, 5, 3)") + ")", body),
                              {x, vals, one, h.ints({2, 1}, i0), h.ints({3}, i1), h.ints({2}, p0)});
  auto X = [&](int64_t a, int64_t b, int64_t c) { return static_cast<double>(at(x, ravel({a, b, c}, {4, 5, 3}))); };
  checkClose(r.outputs.at(0), gathered({2, 3, 3}, [&](const Shape& o) { return X(wrapped(i0[static_cast<size_t>(o[0])], 4), wrapped(i1[static_cast<size_t>(o[1])], 5), o[2]); }));
  std::vector<double> written = gathered({4, 5, 3}, [&](const Shape& o) { return X(o[0], o[1], o[2]); }), added = written, diag = written;
  for (int k = 0; k < 2; ++k)
    for (int b = 0; b < 5; ++b)
      for (int c = 0; c < 3; ++c) {
        size_t dst = static_cast<size_t>(ravel({p0[static_cast<size_t>(k)], b, c}, {4, 5, 3}));
        written[dst] = at(vals, k * 3 + c);  // values (2, 1, 3) broadcast over the axis of 5
        added[dst] += at(vals, k * 3 + c);
      }
  for (int k = 0; k < 2; ++k)
    for (int c = 0; c < 3; ++c) diag[static_cast<size_t>(ravel({p0[static_cast<size_t>(k)], p0[static_cast<size_t>(k)], c}, {4, 5, 3}))] = at(one, c);
  checkClose(r.outputs.at(1), written);
  checkClose(r.outputs.at(2), added, 1e-5);
  checkClose(r.outputs.at(3), diag);
}

TEST_CASE("compile and run: take with a scalar index (a constant, an expression of symbolic dims) takes its axis away") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({2, 5, 4}, rng);
  test::Run r = compileAndRun(test::module("x: R.Tensor((2, \"n\", 4), \"float32\")", "R.Tuple(" + T("(2, 4)") + ", " + T("(2, 4)") + ")",
                                           "        n = T.int64()\n        a = R.take(x, R.prim_value(1), axis=1)\n"
                                           "        b = R.take(x, R.prim_value(n - 1), axis=1)\n        return (a, b)\n")
                                  .insert(0, "from tvm.script import tirx as T\n"),
                              {x});
  checkClose(r.outputs.at(0), gathered({2, 4}, [&](const Shape& o) { return static_cast<double>(at(x, ravel({o[0], 1, o[1]}, {2, 5, 4}))); }));
  checkClose(r.outputs.at(1), gathered({2, 4}, [&](const Shape& o) { return static_cast<double>(at(x, ravel({o[0], 4, o[1]}, {2, 5, 4}))); }));
}

namespace {

// PyTorch's grid_sampler (the formulas TOPI follows): a normalised coordinate to a pixel position, and
// reflection of a position outside the image back into it.
double unnormalize(double v, int64_t n, bool align) { return align ? (v + 1) / 2 * static_cast<double>(n - 1) : ((v + 1) * static_cast<double>(n) - 1) / 2; }
double reflectCoordinate(double v, int64_t n, bool align) {
  double span = align ? static_cast<double>(n - 1) : static_cast<double>(n), start = align ? 0 : -0.5;
  if (span <= 0) return 0;
  if (v >= start && v <= start + span) return v;
  double distance = std::fabs(v - start);
  double flips = std::floor(distance / span), extra = std::fmod(distance, span);
  return static_cast<int64_t>(flips) % 2 == 0 ? extra + start : span - extra + start;
}
double clipCoordinate(double v, int64_t n) { return std::clamp(v, 0.0, static_cast<double>(n - 1)); }
double cubicNear(double f) { return ((-0.75 + 2) * f - (-0.75 + 3)) * f * f + 1; }
double cubicFar(double f) { return ((-0.75 * f - 5 * -0.75) * f + 8 * -0.75) * f - 4 * -0.75; }
double cubic(const double p[4], double f) { return p[0] * cubicFar(f + 1) + p[1] * cubicNear(f) + p[2] * cubicNear(1 - f) + p[3] * cubicFar(2 - f); }

}  // namespace

TEST_CASE("compile and run: grid_sample bicubic, reflection padding and 3-D (trilinear) against PyTorch's formulas") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  const int64_t H = 5, W = 6, D = 4;
  auto x = h.tensor({1, 2, H, W}, rng), grid = h.tensor({1, 3, 4, 2}, rng, -1.6, 1.6);  // positions outside the image too
  auto v = h.tensor({1, 2, D, H, W}, rng), grid3 = h.tensor({1, 2, 3, 2, 3}, rng, -1.4, 1.4);
  std::string body =
      "        rb = R.image.grid_sample(x, g, method=\"bilinear\", padding_mode=\"reflection\", align_corners=False)\n"
      "        rn = R.image.grid_sample(x, g, method=\"nearest\", padding_mode=\"reflection\", align_corners=True)\n"
      "        cz = R.image.grid_sample(x, g, method=\"bicubic\", padding_mode=\"zeros\", align_corners=False)\n"
      "        cb = R.image.grid_sample(x, g, method=\"bicubic\", padding_mode=\"border\", align_corners=True)\n"
      "        cr = R.image.grid_sample(x, g, method=\"bicubic\", padding_mode=\"reflection\", align_corners=False)\n"
      "        t = R.image.grid_sample(v, g3, method=\"bilinear\", layout=\"NCDHW\", padding_mode=\"border\", align_corners=True)\n"
      "        return (rb, rn, cz, cb, cr, t)\n";
  std::string o2 = T("(1, 2, 3, 4)");
  test::Run r = compileAndRun(test::module("x: " + T("(1, 2, 5, 6)") + ", g: " + T("(1, 3, 4, 2)") + ", v: " + T("(1, 2, 4, 5, 6)") + ", g3: " + T("(1, 2, 3, 2, 3)"),
                                           "R.Tuple(" + o2 + ", " + o2 + ", " + o2 + ", " + o2 + ", " + o2 + ", " + T("(1, 2, 2, 3, 2)") + ")", body),
                              {x, grid, v, grid3});
  auto pixel = [&](int64_t c, int64_t yy, int64_t xx) { return yy < 0 || yy >= H || xx < 0 || xx >= W ? 0.0 : static_cast<double>(at(x, (c * H + yy) * W + xx)); };
  auto source = [&](const Shape& o, int component, int64_t n, bool align) { return unnormalize(at(grid, ((o[2] * 4 + o[3]) * 2) + component), n, align); };
  checkClose(r.outputs.at(0), gathered({1, 2, 3, 4}, [&](const Shape& o) {
               double xs = clipCoordinate(reflectCoordinate(source(o, 0, W, false), W, false), W);
               double ys = clipCoordinate(reflectCoordinate(source(o, 1, H, false), H, false), H);
               double x0 = std::floor(xs), y0 = std::floor(ys), fx = xs - x0, fy = ys - y0;
               auto p = [&](double yy, double xx) { return pixel(o[1], static_cast<int64_t>(yy), static_cast<int64_t>(xx)); };
               return (p(y0, x0) * (1 - fx) + p(y0, x0 + 1) * fx) * (1 - fy) + (p(y0 + 1, x0) * (1 - fx) + p(y0 + 1, x0 + 1) * fx) * fy;
             }), 1e-5);
  checkClose(r.outputs.at(1), gathered({1, 2, 3, 4}, [&](const Shape& o) {
               double xs = clipCoordinate(reflectCoordinate(source(o, 0, W, true), W, true), W);
               double ys = clipCoordinate(reflectCoordinate(source(o, 1, H, true), H, true), H);
               return pixel(o[1], static_cast<int64_t>(std::nearbyint(ys)), static_cast<int64_t>(std::nearbyint(xs)));
             }), 1e-5);
  // Bicubic: 4 x 4 taps around the position, each tap's index through the padding mode.
  auto bicubic = [&](const std::string& padding, bool align) {
    return gathered({1, 2, 3, 4}, [&](const Shape& o) {
      double xs = source(o, 0, W, align), ys = source(o, 1, H, align);
      double x0 = std::floor(xs), y0 = std::floor(ys);
      auto index = [&](double i, int64_t n) {
        if (padding == "border") return static_cast<int64_t>(clipCoordinate(i, n));
        if (padding == "reflection") return static_cast<int64_t>(clipCoordinate(reflectCoordinate(i, n, align), n));
        return static_cast<int64_t>(i);
      };
      double rows[4];
      for (int i = 0; i < 4; ++i) {
        double taps[4];
        for (int j = 0; j < 4; ++j) taps[j] = pixel(o[1], index(y0 - 1 + i, H), index(x0 - 1 + j, W));
        rows[i] = cubic(taps, xs - x0);
      }
      return cubic(rows, ys - y0);
    });
  };
  checkClose(r.outputs.at(2), bicubic("zeros", false), 1e-5);
  checkClose(r.outputs.at(3), bicubic("border", true), 1e-5);
  checkClose(r.outputs.at(4), bicubic("reflection", false), 1e-5);
  // Trilinear over (D, H, W) with a grid of (x, y, z).
  checkClose(r.outputs.at(5), gathered({1, 2, 2, 3, 2}, [&](const Shape& o) {
               auto g = [&](int component) { return static_cast<double>(at(grid3, ((o[2] * 3 + o[3]) * 2 + o[4]) * 3 + component)); };
               double pos[3] = {clipCoordinate(unnormalize(g(2), D, true), D), clipCoordinate(unnormalize(g(1), H, true), H),
                                clipCoordinate(unnormalize(g(0), W, true), W)};
               const int64_t n[3] = {D, H, W};
               double sum = 0;
               for (int corner = 0; corner < 8; ++corner) {
                 int64_t idx[3];
                 double w = 1;
                 for (int k = 0; k < 3; ++k) {
                   double base = std::floor(pos[k]);
                   bool upper = (corner >> (2 - k)) & 1;
                   idx[k] = static_cast<int64_t>(base) + upper;
                   w *= upper ? pos[k] - base : 1 - (pos[k] - base);
                 }
                 bool inside = true;
                 for (int k = 0; k < 3; ++k) inside &= idx[k] >= 0 && idx[k] < n[k];
                 if (inside) sum += w * at(v, (((o[1] * D + idx[0]) * H + idx[1]) * W) + idx[2]);
               }
               return sum;
             }), 1e-5);
}
