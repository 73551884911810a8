// float8_e4m3fn and float8_e5m2: the host conversions (runtime/dtype.h, the definition the code
// generators follow) against values the formats define, and kernels (CPU; cuda:0 with
// TVMS_TEST_TARGET=cuda) that store and read them, cast to them and quantize to them, bit for bit
// against the host conversions.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tests/support/run_helpers.h"

using namespace tvms;
using runtime::DType;
using runtime::floatToFp8;
using runtime::fp8ToFloat;

TEST_CASE("float8: the conversions give the formats' values, round to nearest even and saturate") {
  // e4m3fn: bias 7, 3 mantissa bits, no infinity, 0x7f is NaN, largest 448.
  CHECK(floatToFp8(1.0f, DType::F8E4M3) == 0x38);
  CHECK(floatToFp8(-2.0f, DType::F8E4M3) == 0xc0);
  CHECK(floatToFp8(448.0f, DType::F8E4M3) == 0x7e);
  CHECK(floatToFp8(1e6f, DType::F8E4M3) == 0x7e);                                          // saturates
  CHECK(floatToFp8(-std::numeric_limits<float>::infinity(), DType::F8E4M3) == 0xfe);      // to the largest finite
  CHECK(floatToFp8(std::ldexp(1.0f, -9), DType::F8E4M3) == 0x01);                          // the smallest subnormal
  CHECK(floatToFp8(std::ldexp(1.0f, -10), DType::F8E4M3) == 0x00);                         // half of it: a tie, to even (0)
  CHECK(floatToFp8(3 * std::ldexp(1.0f, -10), DType::F8E4M3) == 0x02);                     // 1.5 of it: a tie, to even (2)
  CHECK(floatToFp8(std::ldexp(1.0f, -6), DType::F8E4M3) == 0x08);                          // the smallest normal
  CHECK(floatToFp8(1.0625f, DType::F8E4M3) == 0x38);                                       // 1 + 1/16: a tie, to even (1.0)
  CHECK(floatToFp8(1.1875f, DType::F8E4M3) == 0x3a);                                       // 1 + 3/16: a tie, to even (1.25)
  CHECK(floatToFp8(15.5f, DType::F8E4M3) == 0x58);                                         // rounds up into the next exponent (16)
  CHECK(floatToFp8(std::nanf(""), DType::F8E4M3) == 0x7f);
  CHECK(fp8ToFloat(0x7e, DType::F8E4M3) == 448.0f);
  CHECK(fp8ToFloat(0x01, DType::F8E4M3) == std::ldexp(1.0f, -9));
  CHECK(std::isnan(fp8ToFloat(0x7f, DType::F8E4M3)));
  CHECK(std::isnan(fp8ToFloat(0xff, DType::F8E4M3)));
  // e5m2: bias 15, 2 mantissa bits, IEEE-like infinities and NaNs, largest 57344.
  CHECK(floatToFp8(1.0f, DType::F8E5M2) == 0x3c);
  CHECK(floatToFp8(57344.0f, DType::F8E5M2) == 0x7b);
  CHECK(floatToFp8(std::numeric_limits<float>::infinity(), DType::F8E5M2) == 0x7b);
  CHECK(floatToFp8(std::ldexp(1.0f, -16), DType::F8E5M2) == 0x01);
  CHECK(floatToFp8(-0.0f, DType::F8E5M2) == 0x80);
  CHECK(std::isinf(fp8ToFloat(0x7c, DType::F8E5M2)));
  CHECK(std::isnan(fp8ToFloat(0x7d, DType::F8E5M2)));
  CHECK(fp8ToFloat(0x7b, DType::F8E5M2) == 57344.0f);
  // Every finite code converts back to itself, and the positive codes are in increasing order.
  for (DType t : {DType::F8E4M3, DType::F8E5M2}) {
    float previous = -1;
    for (int b = 0; b < 0x80; ++b) {
      float v = fp8ToFloat(static_cast<uint8_t>(b), t);
      if (!std::isfinite(v)) continue;
      INFO(runtime::dtypeName(t) << " code " << b);
      CHECK(floatToFp8(v, t) == b);
      CHECK(floatToFp8(-v, t) == (b | 0x80));
      CHECK(v > previous);
      previous = v;
    }
  }
}

namespace {

// float32 values that exercise the conversions: random ones over the formats' ranges, exact ties
// between neighbouring codes, subnormals, values past the largest, zeros, an infinity and a NaN.
runtime::NDArray awkwardValues(test::Host& h, std::mt19937& rng, DType t, int64_t n) {
  auto a = h.tensor({n}, rng);
  float* p = static_cast<float*>(a.data());
  std::uniform_real_distribution<float> exponent(-20, 17), unit(-1, 1);
  std::uniform_int_distribution<int> code(0, 0x7d);
  for (int64_t i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0: p[i] = unit(rng) * std::exp2(exponent(rng)); break;
      case 1: {  // halfway between two neighbouring codes
        int c = code(rng);
        p[i] = (fp8ToFloat(static_cast<uint8_t>(c), t) + fp8ToFloat(static_cast<uint8_t>(c + 1), t)) / 2;
        break;
      }
      case 2: p[i] = fp8ToFloat(static_cast<uint8_t>(code(rng)), t) * (i % 8 == 2 ? -1.0f : 1.0f); break;
      default: p[i] = unit(rng) * 1e5f; break;
    }
  }
  p[0] = 0.0f, p[1] = -0.0f, p[2] = std::numeric_limits<float>::infinity(), p[3] = std::nanf("");
  return a;
}

}  // namespace

TEST_CASE("compile and run: float8 tensors stored by a cast and read back, bit for bit as the host converts") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  for (DType t : {DType::F8E4M3, DType::F8E5M2}) {
    std::string dt = "\"" + std::string(runtime::dtypeName(t)) + "\"";
    INFO(dt);
    const int64_t n = 400;
    auto x = awkwardValues(h, rng, t, n);
    std::string shape = "(" + std::to_string(n) + ",)";
    // q stores float8; r reads it back (float32); s is x cast twice without a store between (the cast rounds).
    test::Run r = test::compileAndRun(test::module("x: " + test::T(shape), "R.Tuple(" + test::T(shape, dt) + ", " + test::T(shape) + ", " + test::T(shape) + ")",
                                                   "        q = R.astype(x, " + dt + ")\n        r = R.astype(q, \"float32\")\n"
                                                   "        s = R.astype(R.astype(x, " + dt + "), \"float32\")\n        return (q, r, s)\n"),
                                      {x});
    REQUIRE(r.outputs[0].dtype == t);
    for (int64_t i = 0; i < n; ++i) {
      float v = static_cast<const float*>(x.data())[i];
      uint8_t want = floatToFp8(v, t);
      INFO("element " << i << " = " << v);
      CHECK(static_cast<int>(static_cast<const uint8_t*>(r.outputs[0].data())[i]) == static_cast<int>(want));
      float back = fp8ToFloat(want, t);
      for (int o = 1; o <= 2; ++o) {
        float got = static_cast<const float*>(r.outputs[static_cast<size_t>(o)].data())[i];
        CHECK((std::isnan(back) ? std::isnan(got) : got == back));
      }
    }
  }
}

TEST_CASE("compile and run: quantize to float8 (scaled, shifted, clamped to the largest value, cast) and dequantize from it") {
  TVMS_FRESH_RNG(rng);
  test::Host h;
  for (DType t : {DType::F8E4M3, DType::F8E5M2}) {
    std::string dt = "\"" + std::string(runtime::dtypeName(t)) + "\"";
    INFO(dt);
    auto x = h.tensor({4, 6}, rng, -3000, 3000);
    auto scale = h.tensor({6}, rng, 0.5, 8), zero = h.tensor({}, rng, -2, 2);
    test::Run r = test::compileAndRun(test::module("x: " + test::T("(4, 6)") + ", s: " + test::T("(6,)") + ", z: " + test::T("()"),
                                                   "R.Tuple(" + test::T("(4, 6)", dt) + ", " + test::T("(4, 6)") + ")",
                                                   "        q = R.quantize(x, s, z, axis=1, out_dtype=" + dt + ")\n"
                                                   "        d = R.dequantize(q, s, z, axis=1, out_dtype=\"float32\")\n        return (q, d)\n"),
                                      {x, scale, zero});
    float largest = t == DType::F8E4M3 ? 448 : 57344;
    for (int64_t i = 0; i < 24; ++i) {
      float s = test::at(scale, i % 6), z = test::at(zero, 0);
      float v = std::clamp(test::at(x, i) / s + z, -largest, largest);  // in float32, as the kernel computes
      uint8_t want = floatToFp8(v, t);
      INFO("element " << i);
      CHECK(static_cast<int>(static_cast<const uint8_t*>(r.outputs[0].data())[i]) == static_cast<int>(want));
      CHECK(static_cast<const float*>(r.outputs[1].data())[i] == doctest::Approx((fp8ToFloat(want, t) - z) * s).epsilon(1e-6));
    }
  }
}
