#pragma once
// VM values as text, for R.print and R.assert_op's messages: numbers as Python prints them, tensors
// as numpy prints them (nested brackets, long axes summarised with "..."), tuples as "(a, b)".
#include <string>

#include "runtime/ndarray.h"

namespace tvms::runtime {

// A tensor whose bytes are in host memory.
std::string hostTensorText(const NDArray& host);
// Python's str.format for "{}" only: each "{}" becomes the next of `args`; "{{" and "}}" are braces.
// Throws std::runtime_error when the format has more "{}" than there are arguments.
std::string formatWithBraces(const std::string& format, const std::vector<std::string>& args);

}  // namespace tvms::runtime
