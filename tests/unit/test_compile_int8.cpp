// int8 and uint8 tensors (what quantized models hold) and quantize / dequantize, against references
// written here with numpy's semantics: wrapping arithmetic, uint8 compared and divided unsigned
// (division by zero 0, never a trap), conversions to float exact, round half to even in quantize.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "tests/support/run_helpers.h"

namespace tvms {

namespace {

runtime::NDArray bytes(runtime::DType t, std::vector<int64_t> shape, const std::vector<int>& values, test::Host& h) {
  runtime::NDArray a;
  a.dtype = t;
  a.shape = std::move(shape);
  a.storage = std::make_shared<runtime::Storage>(h.device, -1, a.bytes());
  for (size_t i = 0; i < values.size(); ++i) static_cast<uint8_t*>(a.data())[i] = static_cast<uint8_t>(values[i]);
  return a;
}

template <typename T>
T element(const runtime::NDArray& a, int64_t i) { return static_cast<const T*>(a.data())[i]; }

}  // namespace

TEST_CASE("compile and run: int8 and uint8 arithmetic, comparisons, division and conversions as numpy has them") {
  test::Host h;
  std::vector<int> av = {-128, -5, 0, 5, 100, 127, -1, 64}, bv = {0, 1, 2, 127, 128, 200, 254, 255};
  auto a = bytes(runtime::DType::I8, {8}, av, h), b = bytes(runtime::DType::U8, {8}, bv, h), d = bytes(runtime::DType::U8, {8}, {3, 0, 7, 2, 255, 9, 1, 0}, h);
  std::string text = test::module(
      "a: R.Tensor((8,), \"int8\"), b: R.Tensor((8,), \"uint8\"), d: R.Tensor((8,), \"uint8\")",
      "R.Tuple(R.Tensor((8,), \"int8\"), R.Tensor((8,), \"uint8\"), R.Tensor((8,), \"uint8\"), R.Tensor((8,), \"uint8\"), R.Tensor((8,), \"bool\"), "
      "R.Tensor((8,), \"float32\"), R.Tensor((8,), \"float32\"), R.Tensor((8,), \"int32\"), R.Tensor((8,), \"int8\"))",
      "        s = R.add(a, a)\n        q = R.floor_divide(b, d)\n        m = R.floor_mod(b, d)\n        x = R.maximum(b, d)\n"
      "        c = R.less(b, R.const(128, \"uint8\"))\n        f = R.astype(b, \"float32\")\n        g = R.astype(a, \"float32\")\n"
      "        w = R.astype(b, \"int32\")\n        n = R.negative(a)\n        return (s, q, m, x, c, f, g, w, n)\n");
  test::Run r = test::compileAndRun(text, {a, b, d});
  REQUIRE(r.outputs.size() == 9);
  for (int64_t i = 0; i < 8; ++i) {
    INFO("element " << i);
    int8_t ai = static_cast<int8_t>(av[i]);
    uint8_t bi = static_cast<uint8_t>(bv[i]), di = element<uint8_t>(d, i);
    CHECK(element<int8_t>(r.outputs[0], i) == static_cast<int8_t>(ai + ai));
    CHECK(element<uint8_t>(r.outputs[1], i) == (di ? bi / di : 0));
    CHECK(element<uint8_t>(r.outputs[2], i) == (di ? bi % di : 0));
    CHECK(element<uint8_t>(r.outputs[3], i) == std::max(bi, di));
    CHECK(element<uint8_t>(r.outputs[4], i) == (bi < 128));
    CHECK(element<float>(r.outputs[5], i) == static_cast<float>(bi));
    CHECK(element<float>(r.outputs[6], i) == static_cast<float>(ai));
    CHECK(element<int32_t>(r.outputs[7], i) == static_cast<int32_t>(bi));
    CHECK(element<int8_t>(r.outputs[8], i) == static_cast<int8_t>(-ai));
  }
}

TEST_CASE("compile and run: quantize and dequantize per tensor and per axis, int8 and uint8, round half to even and clamped") {
  test::Host h;
  TVMS_FRESH_RNG(rng);
  auto x = h.tensor({4, 3}, rng, -3, 3);
  // Values on a half step of the scale (round to even) and far out of range (clamped).
  static_cast<float*>(x.data())[0] = 0.25f;   // 2.5 steps of 0.1 -> 2 (even), + zero point
  static_cast<float*>(x.data())[1] = 100.0f;  // clamped to 127
  static_cast<float*>(x.data())[2] = -100.0f;
  std::vector<float> scales = {0.1f, 0.05f, 0.02f};
  runtime::NDArray s;
  s.shape = {3};
  s.storage = std::make_shared<runtime::Storage>(h.device, -1, s.bytes());
  for (size_t i = 0; i < 3; ++i) static_cast<float*>(s.data())[i] = scales[i];
  auto z = bytes(runtime::DType::I8, {3}, {0, -3, 7}, h);
  std::string text = test::module(
      "x: " + test::T("(4, 3)") + ", s: " + test::T("(3,)") + ", z: R.Tensor((3,), \"int8\")",
      "R.Tuple(R.Tensor((4, 3), \"int8\"), R.Tensor((4, 3), \"float32\"), R.Tensor((4, 3), \"uint8\"))",
      "        q = R.quantize(x, s, z, axis=1, out_dtype=\"int8\")\n        d = R.dequantize(q, s, z, axis=1, out_dtype=\"float32\")\n"
      "        u = R.quantize(x, R.const(0.05, \"float32\"), R.const(128, \"uint8\"), out_dtype=\"uint8\")\n        return (q, d, u)\n");
  test::Run r = test::compileAndRun(text, {x, s, z});
  REQUIRE(r.outputs.size() == 3);
  for (int64_t i = 0; i < 12; ++i) {
    INFO("element " << i << " = " << test::at(x, i));
    int64_t c = i % 3;
    float xs = test::at(x, i) / scales[static_cast<size_t>(c)];
    double q = std::clamp(static_cast<double>(std::nearbyint(xs)) + element<int8_t>(z, c), -128.0, 127.0);
    CHECK(element<int8_t>(r.outputs[0], i) == static_cast<int8_t>(q));
    CHECK(std::abs(element<float>(r.outputs[1], i) - static_cast<float>((q - element<int8_t>(z, c)) * scales[static_cast<size_t>(c)])) < 1e-6);
    double u = std::clamp(static_cast<double>(std::nearbyint(test::at(x, i) / 0.05f)) + 128, 0.0, 255.0);
    CHECK(element<uint8_t>(r.outputs[2], i) == static_cast<uint8_t>(u));
  }
  CHECK(element<int8_t>(r.outputs[0], 0) == 2);    // 2.5 rounds to even
  CHECK(element<int8_t>(r.outputs[0], 1) == 127);  // clamped
  CHECK(element<int8_t>(r.outputs[0], 2) == -128);
}

// The wider integer types: uint32 and uint64 divided, compared and converted unsigned (a uint32 past
// INT32_MAX to float and back), int16 and uint16 wrapping as numpy has them.
TEST_CASE("compile and run: int16, uint16, uint32 and uint64 division, maximum and conversions as numpy has them") {
  test::Host h;
  auto tensor = [&](runtime::DType t, auto values) {
    runtime::NDArray a;
    a.dtype = t;
    a.shape = {static_cast<int64_t>(values.size())};
    a.storage = std::make_shared<runtime::Storage>(h.device, -1, a.bytes());
    std::memcpy(a.data(), values.data(), a.bytes());
    return a;
  };
  std::vector<uint32_t> u32 = {0, 7, 3000000000u, 4294967295u}, d32 = {3, 0, 7, 2};
  std::vector<uint64_t> u64 = {1, 18446744073709551615ull, 10000000000ull, 5}, d64 = {0, 10, 3, 5};
  std::vector<int16_t> i16 = {-32768, -7, 300, 32767};
  std::vector<uint16_t> u16 = {0, 65535, 40000, 9};
  std::string text = test::module(
      "a: R.Tensor((4,), \"uint32\"), b: R.Tensor((4,), \"uint32\"), c: R.Tensor((4,), \"uint64\"), d: R.Tensor((4,), \"uint64\"), "
      "e: R.Tensor((4,), \"int16\"), f: R.Tensor((4,), \"uint16\")",
      "R.Tuple(R.Tensor((4,), \"uint32\"), R.Tensor((4,), \"uint32\"), R.Tensor((4,), \"uint64\"), R.Tensor((4,), \"float32\"), "
      "R.Tensor((4,), \"uint32\"), R.Tensor((4,), \"int16\"), R.Tensor((4,), \"int32\"))",
      "        q = R.floor_divide(a, b)\n        x = R.maximum(a, b)\n        r = R.floor_mod(c, d)\n        g = R.astype(a, \"float32\")\n"
      "        back = R.astype(g, \"uint32\")\n        s = R.add(e, e)\n        w = R.astype(f, \"int32\")\n        return (q, x, r, g, back, s, w)\n");
  test::Run r = test::compileAndRun(text, {tensor(runtime::DType::U32, u32), tensor(runtime::DType::U32, d32), tensor(runtime::DType::U64, u64),
                                           tensor(runtime::DType::U64, d64), tensor(runtime::DType::I16, i16), tensor(runtime::DType::U16, u16)});
  REQUIRE(r.outputs.size() == 7);
  for (int64_t i = 0; i < 4; ++i) {
    INFO("element " << i);
    CHECK(element<uint32_t>(r.outputs[0], i) == (d32[i] ? u32[i] / d32[i] : 0));
    CHECK(element<uint32_t>(r.outputs[1], i) == std::max(u32[i], d32[i]));
    CHECK(element<uint64_t>(r.outputs[2], i) == (d64[i] ? u64[i] % d64[i] : 0));
    CHECK(element<float>(r.outputs[3], i) == static_cast<float>(u32[i]));
    if (u32[i] < 4000000000u) CHECK(element<uint32_t>(r.outputs[4], i) == static_cast<uint32_t>(static_cast<float>(u32[i])));
    CHECK(element<int16_t>(r.outputs[5], i) == static_cast<int16_t>(i16[i] + i16[i]));
    CHECK(element<int32_t>(r.outputs[6], i) == static_cast<int32_t>(u16[i]));
  }
}

}  // namespace tvms
