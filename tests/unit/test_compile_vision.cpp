// vision.roi_align and vision.roi_pool against references written here from TOPI's formulas
// (topi/vision/roi_align.py, roi_pool.py), on fresh random feature maps and regions.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "compiler/analysis/lint.h"
#include "compiler/syntax/document.h"
#include "tests/support/run_helpers.h"

using namespace tvms;
using test::at;
using test::checkClose;
using test::compileAndRun;
using test::T;

namespace {

constexpr int64_t N = 2, C = 3, H = 7, W = 9;

// Regions in image coordinates (spatial_scale 0.5 maps them onto the 7 x 9 map): some past the
// map's edge, one smaller than a pixel, one with a batch index out of range (clamped).
runtime::NDArray regions(test::Host& h, std::mt19937& rng) {
  auto rois = h.tensor({5, 5}, rng);
  std::uniform_real_distribution<float> u(-4, 22);
  float* p = static_cast<float*>(rois.data());
  for (int i = 0; i < 5; ++i) {
    float x1 = u(rng), y1 = u(rng);
    p[i * 5 + 0] = static_cast<float>(i % 2);
    p[i * 5 + 1] = x1, p[i * 5 + 2] = y1, p[i * 5 + 3] = x1 + std::abs(u(rng)) / 2, p[i * 5 + 4] = y1 + std::abs(u(rng)) / 2;
  }
  p[3 * 5 + 3] = p[3 * 5 + 1] + 0.3f, p[3 * 5 + 4] = p[3 * 5 + 2] + 0.2f;  // under a pixel once scaled
  p[4 * 5 + 0] = 7;                                                       // no such batch: clamped to the last
  return rois;
}

double pixel(const runtime::NDArray& x, bool nhwc, int64_t n, int64_t c, int64_t y, int64_t xx) {
  return at(x, nhwc ? ((n * H + y) * W + xx) * C + c : ((n * C + c) * H + y) * W + xx);
}

std::vector<double> roiAlignRef(const runtime::NDArray& x, const runtime::NDArray& rois, int ph, int pw, double scale, int ratio, bool aligned,
                                bool avg, bool nhwc) {
  std::vector<double> out;
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t a = 0; a < (nhwc ? ph : C); ++a)
      for (int64_t b = 0; b < (nhwc ? pw : ph); ++b)
        for (int64_t d = 0; d < (nhwc ? C : pw); ++d) {
          int64_t c = nhwc ? d : a, py = nhwc ? a : b, px = nhwc ? b : d;
          auto roi = [&](int k) { return static_cast<double>(at(rois, i * 5 + k)); };
          int64_t n = std::clamp<int64_t>(static_cast<int64_t>(roi(0)), 0, N - 1);
          float sw = static_cast<float>(roi(1) * scale), sh = static_cast<float>(roi(2) * scale);
          float rh = static_cast<float>(roi(4) * scale) - sh, rw = static_cast<float>(roi(3) * scale) - sw;
          if (!aligned) rh = std::max(rh, 1.0f), rw = std::max(rw, 1.0f);
          float bh = rh / static_cast<float>(ph), bw = rw / static_cast<float>(pw);
          int64_t gh = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(bh)), gw = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(bw));
          double acc = avg ? 0 : -INFINITY;
          for (int64_t sy = 0; sy < gh; ++sy)
            for (int64_t sx = 0; sx < gw; ++sx) {
              // In float32 and in the kernel's order, so a sample on a pixel boundary falls the same way.
              float y = (sh + static_cast<float>(py) * bh) + (static_cast<float>(sy) + 0.5f) * (bh / static_cast<float>(gh));
              float xx = (sw + static_cast<float>(px) * bw) + (static_cast<float>(sx) + 0.5f) * (bw / static_cast<float>(gw));
              double v = 0;
              if (!(y < -1 || xx < -1 || y > H || xx > W)) {
                double yc = std::clamp<double>(y, 0, H - 1), xc = std::clamp<double>(xx, 0, W - 1);
                int64_t yl = static_cast<int64_t>(std::floor(yc)), xl = static_cast<int64_t>(std::floor(xc));
                int64_t yh = std::min<int64_t>(static_cast<int64_t>(std::ceil(yc)), H - 1), xh = std::min<int64_t>(static_cast<int64_t>(std::ceil(xc)), W - 1);
                double fy = yc - static_cast<double>(yl), fx = xc - static_cast<double>(xl);
                double top = pixel(x, nhwc, n, c, yl, xl) + (pixel(x, nhwc, n, c, yl, xh) - pixel(x, nhwc, n, c, yl, xl)) * fx;
                double bottom = pixel(x, nhwc, n, c, yh, xl) + (pixel(x, nhwc, n, c, yh, xh) - pixel(x, nhwc, n, c, yh, xl)) * fx;
                v = top + (bottom - top) * fy;
              }
              acc = avg ? acc + v / static_cast<double>(gh * gw) : std::max(acc, v);
            }
          out.push_back(gh * gw == 0 ? (avg ? 0 : -INFINITY) : acc);
        }
  return out;
}

}  // namespace

TEST_CASE("compile and run: vision.roi_align averages or takes the max of bilinear samples per bin (NCHW and NHWC, fixed and adaptive grids)") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({N, C, H, W}, rng), xh = h.tensor({N, H, W, C}, rng);
  auto rois = regions(h, rng);
  std::string body =
      "        a = R.vision.roi_align(x, rois, pooled_size=(2, 3), spatial_scale=0.5, sample_ratio=2)\n"
      "        b = R.vision.roi_align(x, rois, pooled_size=2, spatial_scale=0.5, aligned=True, mode=\"max\")\n"
      "        c = R.vision.roi_align(xh, rois, pooled_size=(3, 2), spatial_scale=0.5, layout=\"NHWC\")\n"
      "        return (a, b, c)\n";
  test::Run r = compileAndRun(test::module("x: " + T("(2, 3, 7, 9)") + ", xh: " + T("(2, 7, 9, 3)") + ", rois: " + T("(5, 5)"),
                                           "R.Tuple(" + T("(5, 3, 2, 3)") + ", " + T("(5, 3, 2, 2)") + ", " + T("(5, 3, 2, 3)") + ")", body),
                              {x, xh, rois});
  checkClose(r.outputs.at(0), roiAlignRef(x, rois, 2, 3, 0.5, 2, false, true, false), 1e-5);
  checkClose(r.outputs.at(1), roiAlignRef(x, rois, 2, 2, 0.5, -1, true, false, false), 1e-5);
  checkClose(r.outputs.at(2), roiAlignRef(xh, rois, 3, 2, 0.5, -1, false, true, true), 1e-5);
}

TEST_CASE("compile and run: vision.roi_pool takes the max of each bin's pixels, 0 for an empty bin") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  auto x = h.tensor({N, C, H, W}, rng);
  auto rois = regions(h, rng);
  test::Run r = compileAndRun(test::module("x: " + T("(2, 3, 7, 9)") + ", rois: " + T("(5, 5)"), T("(5, 3, 2, 3)"),
                                           "        p = R.vision.roi_pool(x, rois, pooled_size=(2, 3), spatial_scale=0.5)\n        return p\n"),
                              {x, rois});
  std::vector<double> want;
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t py = 0; py < 2; ++py)
        for (int64_t px = 0; px < 3; ++px) {
          auto rounded = [&](int k) { return static_cast<int64_t>(std::floor(at(rois, i * 5 + k) * 0.5f + 0.5f)); };
          int64_t n = std::clamp<int64_t>(static_cast<int64_t>(at(rois, i * 5)), 0, N - 1);
          int64_t sw = rounded(1), sh = rounded(2), ew = rounded(3), eh = rounded(4);
          float bh = static_cast<float>(std::max<int64_t>(eh - sh + 1, 1)) / 2.0f, bw = static_cast<float>(std::max<int64_t>(ew - sw + 1, 1)) / 3.0f;
          int64_t hs = std::clamp<int64_t>(static_cast<int64_t>(std::floor(static_cast<float>(py) * bh)) + sh, 0, H);
          int64_t he = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(static_cast<float>(py + 1) * bh)) + sh, 0, H);
          int64_t ws = std::clamp<int64_t>(static_cast<int64_t>(std::floor(static_cast<float>(px) * bw)) + sw, 0, W);
          int64_t we = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(static_cast<float>(px + 1) * bw)) + sw, 0, W);
          double best = -INFINITY;
          for (int64_t y = hs; y < he; ++y)
            for (int64_t xx = ws; xx < we; ++xx) best = std::max(best, pixel(x, false, n, c, y, xx));
          want.push_back(he <= hs || we <= ws ? 0.0 : best);
        }
  checkClose(r.outputs.at(0), want, 1e-6);
}

TEST_CASE("vision.roi_pool (and roi_align, which shares its deduction) refuses a pooled_size that is not one or two positive integers") {
  for (std::string pooled : {"(2, 0)", "(2, 3, 4)", "-1"}) {
    CAPTURE(pooled);
    syntax::Document doc(test::module("x: " + T("(2, 3, 7, 9)") + ", rois: " + T("(5, 5)"), T("(5, 3, 2, 3)"),
                                      "        p = R.vision.roi_pool(x, rois, pooled_size=" + pooled + ", spatial_scale=0.5)\n        return p\n"));
    bool said = false;
    for (auto& d : analysis::lintDocument(doc, {}).diagnostics)
      said |= d.message.find("pooled_size must be one or two positive integers") != std::string::npos;
    CHECK(said);
  }
}
