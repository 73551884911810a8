#pragma once
// Shape arithmetic on 64-bit integers that says so when a result does not fit, instead of wrapping
// (a wrapped element count allocates a few bytes and kernels write far past them) or trapping
// (INT64_MIN / -1 raises SIGFPE on x86). Every element count, byte size and dim program goes through it.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

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

// One step of shape arithmetic by its bytecode code: + - * / (floor) % M (max) m (min).
inline int64_t shapeOp(int64_t op, int64_t a, int64_t b) {
  switch (op) {
    case '+': return shapeAdd(a, b);
    case '-': return shapeSub(a, b);
    case '*': return shapeMul(a, b);
    case '/': return shapeFloorDiv(a, b);
    case '%': return shapeFloorMod(a, b);
    case 'M': return a > b ? a : b;
    case 'm': return a < b ? a : b;
  }
  throw std::runtime_error("bad shape arithmetic in the bytecode");
}

// A dim expression in postfix, as (code, value) pairs: code 0 pushes the value, 1 pushes dim slot
// `value` (read through `slot`), an operator code pops two and pushes shapeOp of them.
template <typename SlotFn>
int64_t evalDimProgram(const std::vector<int64_t>& program, SlotFn&& slot) {
  std::vector<int64_t> stack;
  for (size_t i = 0; i + 1 < program.size(); i += 2) {
    int64_t code = program[i], value = program[i + 1];
    if (code == 0) stack.push_back(value);
    else if (code == 1) stack.push_back(slot(value));
    else {
      if (stack.size() < 2) throw std::runtime_error("bad dim program in the bytecode");
      int64_t b = stack.back();
      stack.pop_back();
      stack.back() = shapeOp(code, stack.back(), b);
    }
  }
  if (stack.size() != 1) throw std::runtime_error("bad dim program in the bytecode");
  return stack.back();
}

}  // namespace tvms::runtime
