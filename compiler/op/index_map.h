#pragma once
// R.layout_transform's index map, as TVMScript writes it: `lambda a, b, c: (a, c, b // 3, b % 3)`,
// optionally inside T.index_map(...). The results are integer expressions (+ - * // % and
// constants) over the lambda's parameters; the output shape is each result's largest value + 1
// over the input's shape (so b // 3 over b < 20 gives 7: the last row is padding).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/prim_expr.h"

namespace tvms::op {

struct IndexMap {
  std::vector<std::string> params;
  std::vector<ir::PrimExprPtr> results;  // over primVar(param)
};

// nullopt when the text is not such a lambda.
std::optional<IndexMap> parseIndexMap(std::string_view text);

// The output shape of `map` over an input of `shape` (one dim per parameter); nullopt when a result
// uses something other than + - * // % of non-negative constants and the parameters.
std::optional<std::vector<ir::PrimExprPtr>> indexMapShape(const IndexMap& map, const std::vector<ir::PrimExprPtr>& shape);

}  // namespace tvms::op
