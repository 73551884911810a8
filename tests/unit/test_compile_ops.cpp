// The kernels of the remaining ops end to end against float64 references written here, on fresh
// random inputs each run: activations, where / ewise_fma / astype / broadcast_to, fills and
// triangles, take / strided_slice, argmax / cumsum, std / variance, layer_norm / rms_norm / prelu,
// pooling, outer.
#include <doctest/doctest.h>

#include <cmath>
#include <algorithm>
#include <functional>
#include <limits>
#include <type_traits>
#include <string>

#include "tests/support/run_helpers.h"

namespace {

using namespace tvms;
using test::at;
using test::checkClose;
using test::compileAndRun;
using test::module;

std::vector<double> map(const runtime::NDArray& x, const std::function<double(double)>& f) {
  std::vector<double> out;
  for (int64_t i = 0; i < x.numel(); ++i) out.push_back(f(at(x, i)));
  return out;
}

const std::string F = "\"float32\"";
using test::T;

}  // namespace

TEST_CASE("compile and run: activations, where, ewise_fma, astype, broadcast_to, outer") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({5, 33}, rng, -3, 3);
  std::string body = "        a = R.nn.leakyrelu(x, alpha=0.2)\n        b = R.nn.selu(x)\n        c = R.nn.softplus(x, beta=2.0)\n"
                     "        d = R.nn.gelu_tanh(x)\n        return (a, b, c, d)\n";
  std::string t = T("(5, 33)");
  test::Run r = compileAndRun(module("x: " + t, "R.Tuple(" + t + ", " + t + ", " + t + ", " + t + ")", body), {x});
  checkClose(r.outputs.at(0), map(x, [](double v) { return v > 0 ? v : 0.2 * v; }));
  checkClose(r.outputs.at(1), map(x, [](double v) { return 1.0507009873554805 * (v > 0 ? v : 1.6732632423543772 * (std::exp(v) - 1)); }), 1e-5);
  checkClose(r.outputs.at(2), map(x, [](double v) { return 2 * v > 20 ? v : std::log1p(std::exp(2 * v)) / 2; }), 1e-5);
  checkClose(r.outputs.at(3), map(x, [](double v) { return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))); }), 1e-5);

  auto y = h.tensor({5, 33}, rng), z = h.tensor({33}, rng), row = h.tensor({1, 33}, rng);
  body = "        m = R.greater(x, y)\n        w = R.where(m, x, z)\n        f = R.ewise_fma(x, y, y)\n"
         "        i = R.astype(x, \"int32\")\n        g = R.astype(i, \"float32\")\n        b = R.broadcast_to(row, (5, 33))\n"
         "        o = R.outer(z, z)\n        return (w, f, g, b, o)\n";
  r = compileAndRun(module("x: " + t + ", y: " + t + ", z: " + T("(33,)") + ", row: " + T("(1, 33)"),
                           "R.Tuple(" + t + ", " + t + ", " + t + ", " + t + ", " + T("(33, 33)") + ")", body), {x, y, z, row});
  std::vector<double> w, fma, g, b, o;
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 33; ++j) {
      double xv = at(x, i * 33 + j), yv = at(y, i * 33 + j);
      w.push_back(xv > yv ? xv : at(z, j));
      fma.push_back(xv * yv + yv);
      g.push_back(std::trunc(xv));
      b.push_back(at(row, j));
    }
  for (int64_t i = 0; i < 33; ++i)
    for (int64_t j = 0; j < 33; ++j) o.push_back(static_cast<double>(at(z, i)) * at(z, j));
  checkClose(r.outputs.at(0), w);
  checkClose(r.outputs.at(1), fma);
  checkClose(r.outputs.at(2), g);
  checkClose(r.outputs.at(3), b);
  checkClose(r.outputs.at(4), o);
}

TEST_CASE("compile and run: fills, tril / triu, take, strided_slice") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({6, 7}, rng), v = h.tensor({}, rng);
  std::string t = T("(6, 7)");
  std::string body = "        z = R.zeros((6, 7), \"float32\")\n        o = R.ones_like(x)\n        f = R.full((6, 7), v)\n"
                     "        c = R.full_like(x, R.const(2.5, \"float32\"))\n        l = R.tril(x, k=1)\n        u = R.triu(x, k=-2)\n"
                     "        return (z, o, f, c, l, u)\n";
  test::Run r = compileAndRun(module("x: " + t + ", v: " + T("()"), "R.Tuple(" + t + ", " + t + ", " + t + ", " + t + ", " + t + ", " + t + ")", body), {x, v});
  std::vector<double> zeros(42, 0), ones(42, 1), full(42, at(v, 0)), c(42, 2.5), lower, upper;
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 7; ++j) {
      lower.push_back(j - i <= 1 ? at(x, i * 7 + j) : 0);
      upper.push_back(j - i >= -2 ? at(x, i * 7 + j) : 0);
    }
  checkClose(r.outputs.at(0), zeros);
  checkClose(r.outputs.at(1), ones);
  checkClose(r.outputs.at(2), full);
  checkClose(r.outputs.at(3), c);
  checkClose(r.outputs.at(4), lower);
  checkClose(r.outputs.at(5), upper);

  auto idx = h.ints({2, 2}, {6, 0, 3, 9});  // 9 is past the axis: clipped to 6
  body = "        a = R.take(x, i, axis=1, mode=\"clip\")\n        b = R.strided_slice(x, axes=[0, 1], begin=[1, -1], end=[6, 0], strides=[2, -3])\n"
         "        return (a, b)\n";
  r = compileAndRun(module("x: " + t + ", i: " + T("(2, 2)", "\"int64\""), "R.Tuple(" + T("(6, 2, 2)") + ", " + T("(3, 2)") + ")", body), {x, idx});
  std::vector<double> taken, sliced;
  int64_t cols[] = {6, 0, 3, 6};
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t k = 0; k < 4; ++k) taken.push_back(at(x, i * 7 + cols[k]));
  for (int64_t i = 1; i < 6; i += 2)
    for (int64_t j = 6; j > 0; j -= 3) sliced.push_back(at(x, i * 7 + j));
  checkClose(r.outputs.at(0), taken);
  checkClose(r.outputs.at(1), sliced);
}

TEST_CASE("compile and run: argmax / argmin, cumsum / cumprod, std / variance") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({4, 9, 3}, rng, 0.5, 1.5);
  std::string body = "        a = R.argmax(x, axis=1)\n        b = R.argmin(x)\n        c = R.cumsum(x, axis=1)\n"
                     "        d = R.cumprod(x, axis=2, exclusive=True)\n        s = R.std(x, axis=[1])\n        v = R.variance(x, axis=[0, 2])\n"
                     "        return (a, b, c, d, s, v)\n";
  std::string t = T("(4, 9, 3)");
  test::Run r = compileAndRun(module("x: " + t, "R.Tuple(" + T("(4, 3)", "\"int64\"") + ", " + T("()", "\"int64\"") + ", " + t + ", " + t + ", " +
                                                    T("(4, 3)") + ", " + T("(9,)") + ")", body), {x});
  auto X = [&](int64_t i, int64_t j, int64_t k) { return static_cast<double>(at(x, (i * 9 + j) * 3 + k)); };
  const auto* am = static_cast<const int64_t*>(r.outputs.at(0).data());
  int64_t argmin = 0;
  for (int64_t i = 1; i < 108; ++i) if (at(x, i) < at(x, argmin)) argmin = i;
  CHECK(*static_cast<const int64_t*>(r.outputs.at(1).data()) == argmin);
  std::vector<double> cs, cp, sd(12), var(9);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t k = 0; k < 3; ++k) {
      int64_t best = 0;
      double sum = 0, mean = 0, sq = 0;
      for (int64_t j = 0; j < 9; ++j) { if (X(i, j, k) > X(i, best, k)) best = j; mean += X(i, j, k) / 9; }
      for (int64_t j = 0; j < 9; ++j) sq += (X(i, j, k) - mean) * (X(i, j, k) - mean);
      CHECK(am[i * 3 + k] == best);
      sd[static_cast<size_t>(i * 3 + k)] = std::sqrt(sq / 9);
      (void)sum;
    }
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 9; ++j)
      for (int64_t k = 0; k < 3; ++k) {
        double s = 0, p = 1;
        for (int64_t q = 0; q <= j; ++q) s += X(i, q, k);
        for (int64_t q = 0; q < k; ++q) p *= X(i, j, q);
        cs.push_back(s);
        cp.push_back(p);
      }
  for (int64_t j = 0; j < 9; ++j) {
    double mean = 0, sq = 0;
    for (int64_t i = 0; i < 4; ++i) for (int64_t k = 0; k < 3; ++k) mean += X(i, j, k) / 12;
    for (int64_t i = 0; i < 4; ++i) for (int64_t k = 0; k < 3; ++k) sq += (X(i, j, k) - mean) * (X(i, j, k) - mean);
    var[static_cast<size_t>(j)] = sq / 12;
  }
  checkClose(r.outputs.at(2), cs, 1e-5);
  checkClose(r.outputs.at(3), cp, 1e-5);
  checkClose(r.outputs.at(4), sd, 1e-5);
  checkClose(r.outputs.at(5), var, 1e-5);
}

TEST_CASE("compile and run: layer_norm, rms_norm, prelu") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({3, 4, 10}, rng), g = h.tensor({10}, rng), b = h.tensor({10}, rng), alpha = h.tensor({4}, rng);
  std::string t = T("(3, 4, 10)");
  std::string body = "        l = R.nn.layer_norm(x, g, b, axes=[-1], epsilon=1e-5)\n        r = R.nn.rms_norm(x, g, axes=[-1])\n"
                     "        p = R.nn.prelu(x, a, axis=1)\n        return (l, r, p)\n";
  test::Run r = compileAndRun(module("x: " + t + ", g: " + T("(10,)") + ", b: " + T("(10,)") + ", a: " + T("(4,)"),
                                     "R.Tuple(" + t + ", " + t + ", " + t + ")", body), {x, g, b, alpha});
  std::vector<double> ln, rms, pr;
  for (int64_t row = 0; row < 12; ++row) {
    double mean = 0, var = 0, ms = 0;
    for (int64_t k = 0; k < 10; ++k) { mean += at(x, row * 10 + k) / 10; ms += at(x, row * 10 + k) * at(x, row * 10 + k) / 10; }
    for (int64_t k = 0; k < 10; ++k) var += (at(x, row * 10 + k) - mean) * (at(x, row * 10 + k) - mean) / 10;
    for (int64_t k = 0; k < 10; ++k) {
      double v = at(x, row * 10 + k);
      ln.push_back((v - mean) / std::sqrt(var + 1e-5) * at(g, k) + at(b, k));
      rms.push_back(v / std::sqrt(ms + 1e-5) * at(g, k));
      pr.push_back(v > 0 ? v : at(alpha, row % 4) * v);
    }
  }
  checkClose(r.outputs.at(0), ln, 1e-4);
  checkClose(r.outputs.at(1), rms, 1e-4);
  checkClose(r.outputs.at(2), pr);
}

TEST_CASE("compile and run: max / avg pooling (strides, padding, NHWC) and adaptive average pooling") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({2, 3, 9, 8}, rng);
  std::string body = "        m = R.nn.max_pool2d(x, pool_size=(3, 3), strides=(2, 2), padding=(1, 1))\n"
                     "        a = R.nn.avg_pool2d(x, pool_size=(2, 3), strides=(1, 2), padding=(0, 1, 1, 0))\n"
                     "        p = R.nn.adaptive_avg_pool2d(x, output_size=(4, 3))\n        return (m, a, p)\n";
  test::Run r = compileAndRun(module("x: " + T("(2, 3, 9, 8)"), "R.Tuple(" + T("(2, 3, 5, 4)") + ", " + T("(2, 3, 9, 4)") + ", " + T("(2, 3, 4, 3)") + ")", body), {x});
  auto X = [&](int64_t n, int64_t c, int64_t i, int64_t j) { return static_cast<double>(at(x, ((n * 3 + c) * 9 + i) * 8 + j)); };
  std::vector<double> mx, av, ad;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 3; ++c) {
      for (int64_t oi = 0; oi < 5; ++oi)
        for (int64_t oj = 0; oj < 4; ++oj) {
          double m = -INFINITY;
          for (int64_t a = 0; a < 3; ++a)
            for (int64_t b = 0; b < 3; ++b) {
              int64_t i = oi * 2 + a - 1, j = oj * 2 + b - 1;
              if (i >= 0 && i < 9 && j >= 0 && j < 8) m = std::max(m, X(n, c, i, j));
            }
          mx.push_back(m);
        }
      for (int64_t oi = 0; oi < 9; ++oi)
        for (int64_t oj = 0; oj < 4; ++oj) {
          double s = 0;
          int cnt = 0;
          for (int64_t a = 0; a < 2; ++a)
            for (int64_t b = 0; b < 3; ++b) {
              int64_t i = oi + a, j = oj * 2 + b - 1;
              if (i >= 0 && i < 9 && j >= 0 && j < 8) { s += X(n, c, i, j); ++cnt; }
            }
          av.push_back(s / cnt);
        }
      for (int64_t oi = 0; oi < 4; ++oi)
        for (int64_t oj = 0; oj < 3; ++oj) {
          int64_t i0 = oi * 9 / 4, i1 = ((oi + 1) * 9 + 3) / 4, j0 = oj * 8 / 3, j1 = ((oj + 1) * 8 + 2) / 3;
          double s = 0;
          for (int64_t i = i0; i < i1; ++i) for (int64_t j = j0; j < j1; ++j) s += X(n, c, i, j);
          ad.push_back(s / static_cast<double>((i1 - i0) * (j1 - j0)));
        }
    }
  checkClose(r.outputs.at(0), mx);
  checkClose(r.outputs.at(1), av);
  checkClose(r.outputs.at(2), ad);
}

TEST_CASE("compile and run: concat and stack along an axis") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto a = h.tensor({2, 3, 4}, rng), b = h.tensor({2, 5, 4}, rng), c = h.tensor({2, 1, 4}, rng);
  std::string body = "        j = R.concat((a, b, c), axis=1)\n        s = R.stack((a, a), axis=3)\n        return (j, s)\n";
  test::Run r = compileAndRun(module("a: " + T("(2, 3, 4)") + ", b: " + T("(2, 5, 4)") + ", c: " + T("(2, 1, 4)"),
                                     "R.Tuple(" + T("(2, 9, 4)") + ", " + T("(2, 3, 4, 2)") + ")", body), {a, b, c});
  std::vector<double> joined, stacked;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 9; ++j)
      for (int64_t k = 0; k < 4; ++k)
        joined.push_back(j < 3 ? at(a, (i * 3 + j) * 4 + k) : j < 8 ? at(b, (i * 5 + j - 3) * 4 + k) : at(c, i * 4 + k));
  for (int64_t i = 0; i < 24; ++i) { stacked.push_back(at(a, i)); stacked.push_back(at(a, i)); }
  checkClose(r.outputs.at(0), joined);
  checkClose(r.outputs.at(1), stacked);
}

namespace {
std::vector<double> asDoubles(const runtime::NDArray& a) {
  std::vector<double> out;
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (a.dtype == runtime::DType::I64) out.push_back(static_cast<double>(static_cast<const int64_t*>(a.data())[i]));
    else if (a.dtype == runtime::DType::I32) out.push_back(static_cast<const int32_t*>(a.data())[i]);
    else out.push_back(at(a, i));
  }
  return out;
}
}  // namespace

TEST_CASE("compile and run: split, sort / argsort / topk (ties in index order), arange, dropout at inference") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({3, 7}, rng);
  static_cast<float*>(x.data())[4] = static_cast<float*>(x.data())[1];  // a tie in row 0
  std::string body = "        p = R.split(x, indices_or_sections=[2, 5], axis=1)\n        s = R.sort(x, axis=1)\n"
                     "        i = R.argsort(x, axis=1, descending=True, dtype=\"int64\")\n        k = R.topk(x, k=3, axis=1, dtype=\"int64\")\n"
                     "        r = R.arange(2, 11, 3, \"float32\")\n        d = R.nn.dropout(x, rate=0.3)\n"
                     "        q = R.multiply(p[2], p[2])\n"  // a tuple item as an operand: Normalize binds it to a variable
                     "        return (p[0], q, s, i, k[0], k[1], r, d[0], d[1])\n";
  std::string t = T("(3, 7)");
  test::Run r = compileAndRun(module("x: " + t, "R.Tuple(" + T("(3, 2)") + ", " + T("(3, 2)") + ", " + t + ", " + T("(3, 7)", "\"int64\"") + ", " +
                                                    T("(3, 3)") + ", " + T("(3, 3)", "\"int64\"") + ", " + T("(3,)") + ", " + t + ", " + t + ")", body), {x});
  std::vector<double> first, last, sorted, argDesc, topV, topI;
  for (int64_t row = 0; row < 3; ++row) {
    std::vector<std::pair<double, int64_t>> v;
    for (int64_t j = 0; j < 7; ++j) v.push_back({at(x, row * 7 + j), j});
    for (int64_t j = 0; j < 2; ++j) first.push_back(v[j].first);
    for (int64_t j = 5; j < 7; ++j) last.push_back(v[j].first * v[j].first);
    auto asc = v;
    std::stable_sort(asc.begin(), asc.end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (auto& e : asc) sorted.push_back(e.first);
    auto desc = v;
    std::stable_sort(desc.begin(), desc.end(), [](auto& a, auto& b) { return a.first > b.first; });
    for (auto& e : desc) argDesc.push_back(static_cast<double>(e.second));
    for (int k = 0; k < 3; ++k) { topV.push_back(desc[k].first); topI.push_back(static_cast<double>(desc[k].second)); }
  }
  checkClose(r.outputs.at(0), first);
  checkClose(r.outputs.at(1), last);
  checkClose(r.outputs.at(2), sorted);
  CHECK(asDoubles(r.outputs.at(3)) == argDesc);
  checkClose(r.outputs.at(4), topV);
  CHECK(asDoubles(r.outputs.at(5)) == topI);
  checkClose(r.outputs.at(6), {2, 5, 8});
  checkClose(r.outputs.at(7), map(x, [](double v) { return v; }));
  checkClose(r.outputs.at(8), std::vector<double>(21, 1.0));
}

TEST_CASE("compile and run: instance_norm, group_norm, batch_norm (training and inference)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  const int64_t N = 2, C = 6, H = 3, W = 4;
  auto x = h.tensor({N, C, H, W}, rng), g = h.tensor({C}, rng), b = h.tensor({C}, rng), mm = h.tensor({C}, rng);
  auto mv = h.tensor({C}, rng, 0.5, 1.5);
  std::string t = T("(2, 6, 3, 4)"), c = T("(6,)");
  std::string body = "        a = R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2, 3])\n"
                     "        q = R.nn.group_norm(x, g, b, num_groups=3, channel_axis=1, axes=[2, 3])\n"
                     "        tr = R.nn.batch_norm(x, g, b, mm, mv, axis=1, momentum=0.25, training=True)\n"
                     "        ev = R.nn.batch_norm(x, g, b, mm, mv, axis=1, training=False)\n"
                     "        return (a, q, tr[0], tr[1], tr[2], ev[0], ev[2])\n";
  test::Run r = compileAndRun(module("x: " + t + ", g: " + c + ", b: " + c + ", mm: " + c + ", mv: " + c,
                                     "R.Tuple(" + t + ", " + t + ", " + t + ", " + c + ", " + c + ", " + t + ", " + c + ")", body), {x, g, b, mm, mv});
  auto X = [&](int64_t n, int64_t ch, int64_t i) { return static_cast<double>(at(x, (n * C + ch) * H * W + i)); };
  auto stats = [&](const std::vector<std::pair<int64_t, int64_t>>& cells) {  // (n, c) pairs, all H*W each
    double mean = 0, var = 0, cnt = static_cast<double>(cells.size() * H * W);
    for (auto [n, ch] : cells) for (int64_t i = 0; i < H * W; ++i) mean += X(n, ch, i) / cnt;
    for (auto [n, ch] : cells) for (int64_t i = 0; i < H * W; ++i) var += (X(n, ch, i) - mean) * (X(n, ch, i) - mean) / cnt;
    return std::pair{mean, var};
  };
  std::vector<double> inst(N * C * H * W), grp(N * C * H * W), bn(N * C * H * W), ev(N * C * H * W), newMean, newVar;
  for (int64_t ch = 0; ch < C; ++ch) {
    std::vector<std::pair<int64_t, int64_t>> all;
    for (int64_t n = 0; n < N; ++n) all.push_back({n, ch});
    auto [m, v] = stats(all);
    newMean.push_back(0.75 * at(mm, ch) + 0.25 * m);
    newVar.push_back(0.75 * at(mv, ch) + 0.25 * v);
    for (int64_t n = 0; n < N; ++n) {
      auto [im, iv] = stats({{n, ch}});
      int64_t g0 = ch / 2 * 2;
      auto [gm, gv] = stats({{n, g0}, {n, g0 + 1}});
      for (int64_t i = 0; i < H * W; ++i) {
        size_t k = static_cast<size_t>((n * C + ch) * H * W + i);
        inst[k] = (X(n, ch, i) - im) / std::sqrt(iv + 1e-5) * at(g, ch) + at(b, ch);
        grp[k] = (X(n, ch, i) - gm) / std::sqrt(gv + 1e-5) * at(g, ch) + at(b, ch);
        bn[k] = (X(n, ch, i) - m) / std::sqrt(v + 1e-5) * at(g, ch) + at(b, ch);
        ev[k] = (X(n, ch, i) - at(mm, ch)) / std::sqrt(at(mv, ch) + 1e-5) * at(g, ch) + at(b, ch);
      }
    }
  }
  checkClose(r.outputs.at(0), inst, 1e-4);
  checkClose(r.outputs.at(1), grp, 1e-4);
  checkClose(r.outputs.at(2), bn, 1e-4);
  checkClose(r.outputs.at(3), newMean, 1e-5);
  checkClose(r.outputs.at(4), newVar, 1e-5);
  checkClose(r.outputs.at(5), ev, 1e-4);
  checkClose(r.outputs.at(6), asDoubles(mv));  // inference hands the moving variance back
}

TEST_CASE("compile and run: matmul with 1-D operands and broadcast batch dims") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto v = h.tensor({5}, rng), m = h.tensor({5, 4}, rng), a = h.tensor({2, 1, 3, 5}, rng), b = h.tensor({3, 5, 4}, rng);
  std::string body = "        p = R.matmul(v, m)\n        q = R.matmul(m, R.const(1, \"float32\") + R.zeros((4,), \"float32\"))\n"
                     "        r = R.matmul(a, b)\n        s = R.matmul(v, v)\n        return (p, q, r, s)\n";
  test::Run r = compileAndRun(module("v: " + T("(5,)") + ", m: " + T("(5, 4)") + ", a: " + T("(2, 1, 3, 5)") + ", b: " + T("(3, 5, 4)"),
                                     "R.Tuple(" + T("(4,)") + ", " + T("(5,)") + ", " + T("(2, 3, 3, 4)") + ", " + T("()") + ")", body), {v, m, a, b});
  std::vector<double> p(4, 0), q(5, 0), out, s{0};
  for (int64_t j = 0; j < 4; ++j) for (int64_t k = 0; k < 5; ++k) p[j] += static_cast<double>(at(v, k)) * at(m, k * 4 + j);
  for (int64_t i = 0; i < 5; ++i) for (int64_t k = 0; k < 4; ++k) q[i] += at(m, i * 4 + k);
  for (int64_t k = 0; k < 5; ++k) s[0] += static_cast<double>(at(v, k)) * at(v, k);
  for (int64_t x = 0; x < 2; ++x)
    for (int64_t y = 0; y < 3; ++y)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 4; ++j) {
          double acc = 0;
          for (int64_t k = 0; k < 5; ++k) acc += static_cast<double>(at(a, (x * 3 + i) * 5 + k)) * at(b, (y * 5 + k) * 4 + j);
          out.push_back(acc);
        }
  checkClose(r.outputs.at(0), p);
  checkClose(r.outputs.at(1), q);
  checkClose(r.outputs.at(2), out);
  checkClose(r.outputs.at(3), s);
}

TEST_CASE("compile and run: einsum (contraction, batch, trace, implicit output)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto a = h.tensor({2, 3, 4}, rng), b = h.tensor({2, 4, 5}, rng), s = h.tensor({4, 4}, rng);
  std::string body = "        p = R.einsum((a, b), \"bij,bjk->bik\")\n        d = R.einsum((s,), \"ii->i\")\n"
                     "        t = R.einsum((s,), \"ij->\")\n        q = R.einsum((s, s), \"ij,jk\")\n        return (p, d, t, q)\n";
  test::Run r = compileAndRun(module("a: " + T("(2, 3, 4)") + ", b: " + T("(2, 4, 5)") + ", s: " + T("(4, 4)"),
                                     "R.Tuple(" + T("(2, 3, 5)") + ", " + T("(4,)") + ", " + T("()") + ", " + T("(4, 4)") + ")", body), {a, b, s});
  std::vector<double> p, d, total{0}, q;
  for (int64_t x = 0; x < 2; ++x)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t k = 0; k < 5; ++k) {
        double acc = 0;
        for (int64_t j = 0; j < 4; ++j) acc += static_cast<double>(at(a, (x * 3 + i) * 4 + j)) * at(b, (x * 4 + j) * 5 + k);
        p.push_back(acc);
      }
  for (int64_t i = 0; i < 4; ++i) d.push_back(at(s, i * 5));
  for (int64_t i = 0; i < 16; ++i) total[0] += at(s, i);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t k = 0; k < 4; ++k) {
      double acc = 0;
      for (int64_t j = 0; j < 4; ++j) acc += static_cast<double>(at(s, i * 4 + j)) * at(s, j * 4 + k);
      q.push_back(acc);
    }
  checkClose(r.outputs.at(0), p);
  checkClose(r.outputs.at(1), d);
  checkClose(r.outputs.at(2), total);
  checkClose(r.outputs.at(3), q);
}

TEST_CASE("compile and run: median as TVM computes it: the lower median, with its index along an axis (ties: the first)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({4, 5}, rng);
  float* px = static_cast<float*>(x.data());
  px[6] = px[8];  // a tie in row 1
  px[10] = px[11] = px[12];  // a three-way tie in row 2: the median is one of them
  std::string i64 = "\"int64\"";
  test::Run r = compileAndRun(
      module("x: " + T("(4, 5)"),
             "R.Tuple(" + T("(4,)") + ", " + T("(4,)", i64) + ", " + T("(5,)") + ", " + T("(5,)", i64) + ", " + T("()") + ")",
             "        a = R.median(x, axis=[1])\n        b = R.median(x, axis=[0])\n        c = R.median(x)\n"
             "        av = a[0]\n        ai = a[1]\n        bv = b[0]\n        bi = b[1]\n        return (av, ai, bv, bi, c)\n"),
      {x});
  // topi's median: a stable ascending sort, the element at (n - 1) // 2, and where it came from.
  auto med = [](const std::vector<double>& v) {
    std::vector<size_t> order(v.size());
    for (size_t k = 0; k < v.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](size_t p, size_t q) { return v[p] < v[q]; });
    size_t m = order[(v.size() - 1) / 2];
    return std::pair{v[m], static_cast<double>(m)};
  };
  std::vector<double> rowV, rowI, colV, colI, all;
  for (int64_t i = 0; i < 4; ++i) {
    std::vector<double> v;
    for (int64_t j = 0; j < 5; ++j) v.push_back(at(x, i * 5 + j));
    auto [m, k] = med(v);
    rowV.push_back(m);
    rowI.push_back(k);
  }
  for (int64_t j = 0; j < 5; ++j) {
    std::vector<double> v;
    for (int64_t i = 0; i < 4; ++i) v.push_back(at(x, i * 5 + j));
    auto [m, k] = med(v);  // an even length: the lower of the two middle elements, not their mean
    colV.push_back(m);
    colI.push_back(k);
  }
  for (int64_t i = 0; i < 20; ++i) all.push_back(at(x, i));
  checkClose(r.outputs.at(0), rowV);
  const int64_t* ri = static_cast<const int64_t*>(r.outputs.at(1).data());
  for (size_t k = 0; k < rowI.size(); ++k) CHECK(ri[k] == static_cast<int64_t>(rowI[k]));
  checkClose(r.outputs.at(2), colV);
  const int64_t* ci = static_cast<const int64_t*>(r.outputs.at(3).data());
  for (size_t k = 0; k < colI.size(); ++k) CHECK(ci[k] == static_cast<int64_t>(colI[k]));
  checkClose(r.outputs.at(4), {med(all).first});
}

TEST_CASE("compile and run: atan2, log_add_exp, isnan / isinf / isfinite, bitwise ops and shifts on int32") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto a = h.tensor({40}, rng, -30, 30), b = h.tensor({40}, rng, -30, 30);
  float* pa = static_cast<float*>(a.data());
  pa[0] = NAN;
  pa[1] = INFINITY;
  pa[2] = -INFINITY;
  std::string t = T("(40,)"), bt = T("(40,)", "\"bool\"");
  test::Run r = compileAndRun(module("a: " + t + ", b: " + t, "R.Tuple(" + t + ", " + t + ", " + bt + ", " + bt + ", " + bt + ")",
                                     "        p = R.atan2(a, b)\n        q = R.log_add_exp(a, b)\n        n = R.isnan(a)\n"
                                     "        i = R.isinf(a)\n        f = R.isfinite(a)\n        return (p, q, n, i, f)\n"), {a, b});
  auto boolAt = [](const runtime::NDArray& x, int64_t k) { return static_cast<const uint8_t*>(x.data())[k] != 0; };
  for (int64_t k = 3; k < 40; ++k) {
    double x = at(a, k), y = at(b, k);
    CHECK(std::abs(at(r.outputs.at(0), k) - std::atan2(x, y)) < 1e-5);
    CHECK(std::abs(at(r.outputs.at(1), k) - std::log(std::exp(x) + std::exp(y))) < 1e-4 * std::max(1.0, std::abs(std::max(x, y))));
  }
  for (int64_t k = 0; k < 40; ++k) {
    float x = at(a, k);
    CHECK(boolAt(r.outputs.at(2), k) == std::isnan(x));
    CHECK(boolAt(r.outputs.at(3), k) == std::isinf(x));
    CHECK(boolAt(r.outputs.at(4), k) == std::isfinite(x));
  }

  runtime::NDArray u, v;
  for (auto* x : {&u, &v}) {
    x->dtype = runtime::DType::I32;
    x->shape = {16};
    x->storage = std::make_shared<runtime::Storage>(h.device, -1, x->bytes());
  }
  std::uniform_int_distribution<int32_t> any(-100000, 100000), shift(0, 7);
  for (int k = 0; k < 16; ++k) { static_cast<int32_t*>(u.data())[k] = any(rng); static_cast<int32_t*>(v.data())[k] = shift(rng); }
  std::string it = T("(16,)", "\"int32\"");
  test::Run ri = compileAndRun(module("u: " + it + ", v: " + it, "R.Tuple(" + it + ", " + it + ", " + it + ", " + it + ", " + it + ", " + it + ")",
                                      "        a = R.bitwise_and(u, v)\n        o = R.bitwise_or(u, v)\n        x = R.bitwise_xor(u, v)\n"
                                      "        n = R.bitwise_not(u)\n        l = R.left_shift(u, v)\n        s = R.right_shift(u, v)\n"
                                      "        return (a, o, x, n, l, s)\n"), {u, v});
  auto I = [](const runtime::NDArray& x, int k) { return static_cast<const int32_t*>(x.data())[k]; };
  for (int k = 0; k < 16; ++k) {
    int32_t p = I(u, k), q = I(v, k);
    CHECK(I(ri.outputs.at(0), k) == (p & q));
    CHECK(I(ri.outputs.at(1), k) == (p | q));
    CHECK(I(ri.outputs.at(2), k) == (p ^ q));
    CHECK(I(ri.outputs.at(3), k) == ~p);
    CHECK(I(ri.outputs.at(4), k) == static_cast<int32_t>(static_cast<uint32_t>(p) << q));
    CHECK(I(ri.outputs.at(5), k) == (p >> q));
  }
}

// Issue 36: integer division and modulo never trap (x86's idiv raises SIGFPE for a zero divisor and
// for INT_MIN / -1) and give NumPy's results on every device: x // 0 == 0, x % 0 == 0,
// INT_MIN // -1 == INT_MIN (wrapping), x % -1 == 0; elsewhere floor semantics (truncation for divide).
TEST_CASE("compile and run: integer division and modulo by zero, by -1 and of INT_MIN follow NumPy (int32 and int64)") {
  test::Host h;
  auto run = [&](runtime::DType dtype, const char* name, auto minValue) {
    using V = decltype(minValue);
    std::vector<V> xs = {7, -7, minValue, minValue, 7, -7, 0, 9, -9, minValue};
    std::vector<V> ys = {0, 0, -1, 0, 2, 2, -1, -4, 4, 1};
    const int n = static_cast<int>(xs.size());
    runtime::NDArray x, y;
    for (auto* a : {&x, &y}) {
      a->dtype = dtype;
      a->shape = {n};
      a->storage = std::make_shared<runtime::Storage>(h.device, -1, a->bytes());
    }
    std::copy(xs.begin(), xs.end(), static_cast<V*>(x.data()));
    std::copy(ys.begin(), ys.end(), static_cast<V*>(y.data()));
    std::string t = T("(" + std::to_string(n) + ",)", std::string("\"") + name + "\"");
    test::Run r = compileAndRun(module("x: " + t + ", y: " + t, "R.Tuple(" + t + ", " + t + ", " + t + ")",
                                       "        a = R.floor_divide(x, y)\n        b = R.floor_mod(x, y)\n        c = R.divide(x, y)\n"
                                       "        return (a, b, c)\n"),
                                {x, y});
    auto got = [&](int out, int k) { return static_cast<const V*>(r.outputs.at(out).data())[k]; };
    for (int k = 0; k < n; ++k) {
      V a = xs[k], b = ys[k];
      V floorDiv = 0, floorMod = 0, trunc = 0;
      if (b == -1) {
        floorDiv = trunc = static_cast<V>(V(0) - static_cast<std::make_unsigned_t<V>>(a));  // wraps at INT_MIN
      } else if (b != 0) {
        trunc = a / b;
        floorDiv = trunc - ((a % b != 0) && ((a < 0) != (b < 0)));
        floorMod = a - floorDiv * b;
      }
      INFO(name << ": " << a << " and " << b);
      CHECK(got(0, k) == floorDiv);
      CHECK(got(1, k) == floorMod);
      CHECK(got(2, k) == trunc);
    }
  };
  run(runtime::DType::I32, "int32", std::numeric_limits<int32_t>::min());
  run(runtime::DType::I64, "int64", std::numeric_limits<int64_t>::min());
}

// Tensor constants written as lists (issue 31's "only scalar constants"): kernel operands of their own
// shape, their values exact (int64 beyond 2^53 too), loaded on the device of the kernel that reads them.
TEST_CASE("compile and run: tensor constants written as lists are kernel operands, with exact values") {
  test::Host h;
  std::mt19937 rng(11);
  auto x = h.tensor({2, 3}, rng);
  std::string t = T("(2, 3)");
  test::Run r = compileAndRun(module("x: " + t, t,
                                     "        y = R.add(x, R.const([[1.5, 2.5, 3.5], [4.0, 5.0, 6.0]], \"float32\"))\n"
                                     "        z = R.multiply(y, R.const([10, 20, 30], \"float32\"))\n        return z\n"),
                              {x});
  const double c1[2][3] = {{1.5, 2.5, 3.5}, {4.0, 5.0, 6.0}}, c2[3] = {10, 20, 30};
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) want.push_back((at(x, i * 3 + j) + c1[i][j]) * c2[j]);
  checkClose(r.outputs.at(0), want, 1e-6);

  // int64 values past 2^53 survive (they are not stored through a double), as gather indices too.
  runtime::NDArray table;
  table.dtype = runtime::DType::I64;
  table.shape = {4};
  table.storage = std::make_shared<runtime::Storage>(h.device, -1, table.bytes());
  for (int k = 0; k < 4; ++k) static_cast<int64_t*>(table.data())[k] = 100 + k;
  std::string it = T("(4,)", "\"int64\""), ot = T("(2, 2)", "\"int64\"");
  test::Run g = compileAndRun(module("t: " + it, "R.Tuple(" + ot + ", " + ot + ")",
                                     "        a = R.take(t, R.const([[3, 0], [2, 1]], \"int64\"), axis=0)\n"
                                     "        b = R.add(a, R.const([[9007199254740993, 0], [0, -9007199254740993]], \"int64\"))\n"
                                     "        return (a, b)\n"),
                              {table});
  auto I = [](const runtime::NDArray& a, int k) { return static_cast<const int64_t*>(a.data())[k]; };
  CHECK(I(g.outputs.at(0), 0) == 103);
  CHECK(I(g.outputs.at(0), 1) == 100);
  CHECK(I(g.outputs.at(0), 2) == 102);
  CHECK(I(g.outputs.at(0), 3) == 101);
  CHECK(I(g.outputs.at(1), 0) == 9007199254740993LL + 103);
  CHECK(I(g.outputs.at(1), 3) == -9007199254740993LL + 101);
}

TEST_CASE("compile and run: integer sum / prod / max / min keep their dtype and are exact (int64 past 2^53, int32)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  std::uniform_int_distribution<int64_t> u(-1000, 1000);
  std::vector<int64_t> v;
  for (int i = 0; i < 3 * 5; ++i) v.push_back(u(rng) + (i == 7 ? (int64_t(1) << 53) + 1 : 0));
  std::string it = T("(3, 5)", "\"int64\"");
  test::Run r = compileAndRun(module("x: " + it, "R.Tuple(" + T("(3,)", "\"int64\"") + ", " + T("(5,)", "\"int64\"") + ", " + T("(5,)", "\"int64\"") +
                                         ", " + T("()", "\"int32\"") + ", " + T("(3,)", "\"int64\"") + ")",
                                     "        a = R.sum(x, axis=1)\n        b = R.max(x, axis=0)\n        c = R.min(x, axis=0)\n"
                                     "        d = R.sum(R.astype(x, \"int32\"))\n        e = R.prod(R.clip(x, -3, 3), axis=1)\n"
                                     "        return (a, b, c, d, e)\n"),
                              {h.ints({3, 5}, v)});
  auto I64 = [](const runtime::NDArray& a, int k) { return static_cast<const int64_t*>(a.data())[k]; };
  int64_t total = 0;
  for (int i = 0; i < 3; ++i) {
    int64_t s = 0, p = 1;
    for (int j = 0; j < 5; ++j) {
      s += v[static_cast<size_t>(i * 5 + j)];
      p *= std::clamp<int64_t>(v[static_cast<size_t>(i * 5 + j)], -3, 3);
      total += static_cast<int32_t>(v[static_cast<size_t>(i * 5 + j)]);
    }
    CHECK(I64(r.outputs.at(0), i) == s);
    CHECK(I64(r.outputs.at(4), i) == p);
  }
  for (int j = 0; j < 5; ++j) {
    int64_t mx = INT64_MIN, mn = INT64_MAX;
    for (int i = 0; i < 3; ++i) {
      mx = std::max(mx, v[static_cast<size_t>(i * 5 + j)]);
      mn = std::min(mn, v[static_cast<size_t>(i * 5 + j)]);
    }
    CHECK(I64(r.outputs.at(1), j) == mx);
    CHECK(I64(r.outputs.at(2), j) == mn);
  }
  CHECK(r.outputs.at(3).dtype == runtime::DType::I32);
  CHECK(*static_cast<const int32_t*>(r.outputs.at(3).data()) == static_cast<int32_t>(total));
}
