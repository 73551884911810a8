#pragma once
// The attributes of the reductions (sum, mean, max, min, prod, std, variance, median, argmax, argmin)
// as one typed record, read from a call once by struct-info deduction and by the kernel builder.
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace tvms::ir {
struct Call;
}

namespace tvms::op {

struct ReduceAttrs {
  std::optional<std::vector<int64_t>> axes;  // as written (one int or a list); none: every axis
  bool keepdims = false;
  // The reduced axes of an operand of rank `rank`, negatives counted from the end; every axis when
  // none were written. (Deduction reports axes out of range; this only normalizes.)
  std::set<int> reduced(int rank) const;
};
ReduceAttrs reduceAttrs(const ir::Call& call);

}  // namespace tvms::op
