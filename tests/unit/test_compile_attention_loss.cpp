// nn.attention (scale, bias, causal masks) and the losses nn.nll_loss / nn.cross_entropy_with_logits
// end to end against float64 references written here, on fresh random inputs each run.
#include <doctest/doctest.h>

#include <cstdlib>

#include <cmath>
#include <functional>
#include <string>

#include "tests/support/corpus.h"
#include "tests/support/run_helpers.h"

namespace {

using namespace tvms;
using test::at;
using test::checkClose;
using test::compileAndRun;

using test::T;

// Attention over (B, S, N, H) tensors: softmax(q k^T * scale + bias) v, keys j with hidden(s, j) left out.
std::vector<double> attentionReference(const runtime::NDArray& q, const runtime::NDArray& k, const runtime::NDArray& v, int B, int S, int Skv, int N,
                                       int H, int Hv, double scale, const std::function<double(int, int, int, int)>& bias,
                                       const std::function<bool(int, int)>& hidden) {
  std::vector<double> out;
  for (int b = 0; b < B; ++b)
    for (int s = 0; s < S; ++s)
      for (int n = 0; n < N; ++n) {
        std::vector<double> score(static_cast<size_t>(Skv));
        double mx = -INFINITY;
        for (int j = 0; j < Skv; ++j) {
          double d = 0;
          for (int h = 0; h < H; ++h) d += static_cast<double>(at(q, ((b * S + s) * N + n) * H + h)) * at(k, ((b * Skv + j) * N + n) * H + h);
          score[static_cast<size_t>(j)] = d * scale + bias(b, n, s, j);
          if (!hidden(s, j)) mx = std::max(mx, score[static_cast<size_t>(j)]);
        }
        for (int hv = 0; hv < Hv; ++hv) {
          double sum = 0, acc = 0;
          for (int j = 0; j < Skv; ++j) {
            if (hidden(s, j)) continue;
            double e = std::exp(score[static_cast<size_t>(j)] - mx);
            sum += e;
            acc += e * at(v, ((b * Skv + j) * N + n) * Hv + hv);
          }
          out.push_back(sum > 0 ? acc / sum : 0);
        }
      }
  return out;
}

}  // namespace

TEST_CASE("compile and run: nn.attention with the default scale, a broadcast bias, TopLeft and BottomRight causal masks") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  const int B = 2, S = 3, Skv = 5, N = 2, H = 4, Hv = 3;
  auto q = h.tensor({B, S, N, H}, rng), k = h.tensor({B, Skv, N, H}, rng), v = h.tensor({B, Skv, N, Hv}, rng), bias = h.tensor({1, N, S, Skv}, rng);
  std::string body =
      "        a = R.nn.attention(q, k, v)\n        b = R.nn.attention(q, k, v, bias, scale=0.25)\n"
      "        c = R.nn.attention(q, k, v, causal_mask=\"TopLeft\")\n        d = R.nn.attention(q, k, v, causal_mask=\"BottomRight\")\n"
      "        return (a, b, c, d)\n";
  std::string o = T("(2, 3, 2, 3)");
  test::Run r = compileAndRun(test::module("q: " + T("(2, 3, 2, 4)") + ", k: " + T("(2, 5, 2, 4)") + ", v: " + T("(2, 5, 2, 3)") + ", bias: " + T("(1, 2, 3, 5)"),
                                           "R.Tuple(" + o + ", " + o + ", " + o + ", " + o + ")", body),
                              {q, k, v, bias});
  auto none = [](int, int, int, int) { return 0.0; };
  auto all = [](int, int) { return false; };
  checkClose(r.outputs.at(0), attentionReference(q, k, v, B, S, Skv, N, H, Hv, 1 / std::sqrt(4.0), none, all), 1e-5);
  checkClose(r.outputs.at(1), attentionReference(q, k, v, B, S, Skv, N, H, Hv, 0.25,
                                                 [&](int, int n, int s, int j) { return static_cast<double>(at(bias, (n * S + s) * Skv + j)); }, all), 1e-5);
  checkClose(r.outputs.at(2), attentionReference(q, k, v, B, S, Skv, N, H, Hv, 0.5, none, [](int s, int j) { return j > s; }), 1e-5);
  checkClose(r.outputs.at(3), attentionReference(q, k, v, B, S, Skv, N, H, Hv, 0.5, none, [&](int s, int j) { return j > s + Skv - S; }), 1e-5);
}

TEST_CASE("compile and run: nn.attention in its row form on a CPU and its recomputing form for symbolic or long rows of keys") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  const char* target = std::getenv("TVMS_TEST_TARGET");
  bool cpu = !(target && std::string(target) == "cuda");
  // Static shapes: on a CPU each query row's scores go to a local array ("scores") once.
  std::string staticModule = test::module("q: " + T("(1, 3, 2, 4)") + ", k: " + T("(1, 5, 2, 4)") + ", v: " + T("(1, 5, 2, 3)"), T("(1, 3, 2, 3)"),
                                          "        o = R.nn.attention(q, k, v, causal_mask=\"BottomRight\")\n        return o\n");
  CHECK((test::printedAfterLegalizeOps(test::lower(staticModule).module(), test::testOptions()).find("scores") != std::string::npos) == cpu);
  // Symbolic sequence lengths, and 4,100 keys (past the row form's 4,096): the recomputing form.
  auto q = h.tensor({1, 3, 2, 4}, rng), k = h.tensor({1, 5, 2, 4}, rng), v = h.tensor({1, 5, 2, 3}, rng);
  std::string symbolic = test::module("q: R.Tensor((1, \"s\", 2, 4), \"float32\"), k: R.Tensor((1, \"t\", 2, 4), \"float32\"), v: R.Tensor((1, \"t\", 2, 3), \"float32\")",
                                      "R.Tensor((1, \"s\", 2, 3), \"float32\")", "        o = R.nn.attention(q, k, v, causal_mask=\"TopLeft\")\n        return o\n");
  CHECK(test::printedAfterLegalizeOps(test::lower(symbolic).module(), test::testOptions()).find("scores") == std::string::npos);
  test::Run r = compileAndRun(symbolic, {q, k, v});
  auto none = [](int, int, int, int) { return 0.0; };
  checkClose(r.outputs.at(0), attentionReference(q, k, v, 1, 3, 5, 2, 4, 3, 0.5, none, [](int s, int j) { return j > s; }), 1e-5);
  const int L = 4100;
  auto q1 = h.tensor({1, 2, 1, 2}, rng), kl = h.tensor({1, L, 1, 2}, rng), vl = h.tensor({1, L, 1, 2}, rng);
  test::Run longRow = compileAndRun(test::module("q: " + T("(1, 2, 1, 2)") + ", k: " + T("(1, 4100, 1, 2)") + ", v: " + T("(1, 4100, 1, 2)"), T("(1, 2, 1, 2)"),
                                                 "        o = R.nn.attention(q, k, v)\n        return o\n"),
                                    {q1, kl, vl});
  checkClose(longRow.outputs.at(0), attentionReference(q1, kl, vl, 1, 2, L, 1, 2, 2, 1 / std::sqrt(2.0), none, [](int, int) { return false; }), 1e-5);
}

TEST_CASE("compile and run: float32 attention at 64 and 128 features against float64 (on cuda the fused float32 kernel, nothing else)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  const char* target = std::getenv("TVMS_TEST_TARGET");
  const char* offload = std::getenv("TVMS_TEST_OFFLOAD");
  const bool fused = target && std::string(target) == "cuda" && !(offload && std::string(offload) == "0");
  auto none = [](int, int, int, int) { return 0.0; };
  auto all = [](int, int) { return false; };
  // 70 query rows cross the float32 kernel's 64- and 32-row blocks, 90 keys its 32- and 16-key tiles.
  const int B = 2, S = 70, Skv = 90, N = 3;
  for (int H : {64, 128}) {
    INFO(H << " features");
    auto q = h.tensor({B, S, N, H}, rng), k = h.tensor({B, Skv, N, H}, rng), v = h.tensor({B, Skv, N, H}, rng), bias = h.tensor({1, N, S, Skv}, rng);
    const std::string d = std::to_string(H), o = T("(2, 70, 3, " + d + ")");
    test::Run r = compileAndRun(
        test::module("q: " + o + ", k: " + T("(2, 90, 3, " + d + ")") + ", v: " + T("(2, 90, 3, " + d + ")") + ", bias: " + T("(1, 3, 70, 90)"),
                     "R.Tuple(" + o + ", " + o + ", " + o + ")",
                     "        a = R.nn.attention(q, k, v, bias)\n        b = R.nn.attention(q, k, v, scale=0.25, causal_mask=\"TopLeft\")\n"
                     "        c = R.nn.attention(q, k, v, causal_mask=\"BottomRight\")\n        return (a, b, c)\n"),
        {q, k, v, bias});
    CHECK(r.exe.libraryFunctions.size() == (fused ? 3u : 0u));
    for (const auto& name : r.exe.libraryFunctions) CHECK(name.rfind("tvms.attention?", 0) == 0);
    const double scale = 1 / std::sqrt(static_cast<double>(H));
    checkClose(r.outputs.at(0), attentionReference(q, k, v, B, S, Skv, N, H, H, scale,
                                                   [&](int, int n, int s, int j) { return static_cast<double>(at(bias, (n * S + s) * Skv + j)); }, all), 1e-5);
    checkClose(r.outputs.at(1), attentionReference(q, k, v, B, S, Skv, N, H, H, 0.25, none, [](int s, int j) { return j > s; }), 1e-5);
    checkClose(r.outputs.at(2), attentionReference(q, k, v, B, S, Skv, N, H, H, scale, none, [&](int s, int j) { return j > s + Skv - S; }), 1e-5);
  }
  // Written out on (B, N, S, H) tensors with K already transposed: one call on cuda too.
  auto q = h.tensor({2, 4, 100, 64}, rng), kt = h.tensor({2, 4, 64, 100}, rng), v = h.tensor({2, 4, 100, 64}, rng);
  test::Run w = compileAndRun(test::module("q: " + T("(2, 4, 100, 64)") + ", kt: " + T("(2, 4, 64, 100)") + ", v: " + T("(2, 4, 100, 64)"), T("(2, 4, 100, 64)"),
                                           "        s = R.multiply(R.matmul(q, kt), R.const(0.125, \"float32\"))\n"
                                           "        p = R.nn.softmax(s, axis=-1)\n        o = R.matmul(p, v)\n        return o\n"),
                              {q, kt, v});
  CHECK(w.exe.libraryFunctions == (fused ? std::vector<std::string>{"tvms.attention?q=0,1,2,3&k=0,1,3,2&v=0,1,2,3&o=0,1,2,3&scale=0.125&causal=0"}
                                         : std::vector<std::string>{}));
  std::vector<double> want;
  for (int bn = 0; bn < 8; ++bn)
    for (int s = 0; s < 100; ++s) {
      std::vector<double> p(100);
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j < 100; ++j) {
        double dot = 0;
        for (int e = 0; e < 64; ++e) dot += static_cast<double>(at(q, (bn * 100 + s) * 64 + e)) * at(kt, (bn * 64 + e) * 100 + j);
        p[static_cast<size_t>(j)] = dot * 0.125;
        mx = std::max(mx, p[static_cast<size_t>(j)]);
      }
      for (auto& x : p) sum += (x = std::exp(x - mx));
      for (int e = 0; e < 64; ++e) {
        double acc = 0;
        for (int j = 0; j < 100; ++j) acc += p[static_cast<size_t>(j)] * at(v, (bn * 100 + j) * 64 + e);
        want.push_back(acc / sum);
      }
    }
  checkClose(w.outputs.at(0), want, 1e-5);
}

TEST_CASE("compile and run: nn.nll_loss with reductions none, sum and mean, class weights and ignore_index, and nn.cross_entropy_with_logits") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  const int N = 4, C = 5, D = 3;
  auto p = h.tensor({N, C, D}, rng, -3, 0), w = h.tensor({C}, rng, 0.5, 2), logits = h.tensor({N, C}, rng), labels = h.tensor({N, C}, rng, 0, 1);
  std::uniform_int_distribution<int64_t> cls(0, C - 1);
  std::vector<int64_t> targets;
  for (int i = 0; i < N * D; ++i) targets.push_back(i == 5 ? 2 : cls(rng));  // index 5: ignored below (ignore_index=2 only there)
  for (int i = 0; i < N * D; ++i)
    if (i != 5 && targets[static_cast<size_t>(i)] == 2) targets[static_cast<size_t>(i)] = 3;
  std::string body =
      "        a = R.nn.nll_loss(p, t, w, reduction=\"none\", ignore_index=2)\n        b = R.nn.nll_loss(p, t, w, \"sum\", 2)\n"
      "        c = R.nn.nll_loss(p, t, w, reduction=\"mean\", ignore_index=2)\n        d = R.nn.nll_loss(p, t)\n"
      "        e = R.nn.cross_entropy_with_logits(logits, labels)\n        return (a, b, c, d, e)\n";
  test::Run r = compileAndRun(test::module("p: " + T("(4, 5, 3)") + ", t: " + T("(4, 3)", "\"int64\"") + ", w: " + T("(5,)") + ", logits: " + T("(4, 5)") +
                                               ", labels: " + T("(4, 5)"),
                                           "R.Tuple(" + T("(4, 3)") + ", " + T("()") + ", " + T("()") + ", " + T("()") + ", " + T("()") + ")", body),
                              {p, h.ints({N, D}, targets), w, logits, labels});
  std::vector<double> none;
  double sum = 0, weights = 0, plain = 0;
  for (int n = 0; n < N; ++n)
    for (int d = 0; d < D; ++d) {
      int64_t t = targets[static_cast<size_t>(n * D + d)];
      double pv = at(p, (n * C + t) * D + d);
      plain += -pv;
      double loss = t == 2 ? 0 : -pv * at(w, t);
      none.push_back(loss);
      sum += loss;
      weights += t == 2 ? 0 : at(w, t);
    }
  double ce = 0;
  for (int i = 0; i < N * C; ++i) ce += static_cast<double>(at(logits, i)) * at(labels, i);
  checkClose(r.outputs.at(0), none);
  checkClose(r.outputs.at(1), {sum}, 1e-5);
  checkClose(r.outputs.at(2), {sum / weights}, 1e-5);
  checkClose(r.outputs.at(3), {plain / (N * D)}, 1e-5);
  checkClose(r.outputs.at(4), {-ce / N}, 1e-5);
}
