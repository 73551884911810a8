#pragma once
// Shape arithmetic on 64-bit integers that says so when a result does not fit, instead of wrapping
// (a wrapped element count allocates a few bytes and kernels write far past them) or trapping
// (INT64_MIN / -1 raises SIGFPE on x86). Every element count, byte size and dim program goes through it.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tvms::runtime {

[[noreturn]] inline void shapeOverflow(const std::string& what) {
  throw std::runtime_error(what + " does not fit a 64-bit integer (more than 9.2e18): check the shape's dimensions");
}

inline int64_t shapeAdd(int64_t a, int64_t b, const char* what = "shape arithmetic") {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) shapeOverflow(what);
  return r;
}
inline int64_t shapeSub(int64_t a, int64_t b, const char* what = "shape arithmetic") {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) shapeOverflow(what);
  return r;
}
inline int64_t shapeMul(int64_t a, int64_t b, const char* what = "shape arithmetic") {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) shapeOverflow(what);
  return r;
}
// Floor division and modulo as TIR's floordiv / floormod; a zero divisor is an error here (a shape
// divided by zero has no meaning), unlike tensor elements (the kernels give 0, as NumPy).
inline int64_t shapeFloorDiv(int64_t a, int64_t b, const char* what = "shape arithmetic") {
  if (b == 0) throw std::runtime_error(std::string(what) + " divides by zero");
  if (b == -1) return shapeSub(0, a, what);
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
inline int64_t shapeFloorMod(int64_t a, int64_t b, const char* what = "shape arithmetic") {
  if (b == 0) throw std::runtime_error(std::string(what) + " divides by zero");
  if (b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

}  // namespace tvms::runtime
