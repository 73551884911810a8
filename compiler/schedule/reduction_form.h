#pragma once
// The reduction form the schedules recognise: an accumulator updated as `acc = acc op e` with op one
// of + * max min (e free of acc), in loops that do nothing else. Shared by the GPU schedule (a warp
// or a block per output, several blocks per output) and the CPU schedule (a long reduction split
// into parts on the thread pool).
#include <map>
#include <optional>
#include <vector>

#include "compiler/tir/loop_ir.h"

namespace tvms::schedule {

// The combining operator of `s` when it is `acc = acc op e`.
std::optional<tir::BinOp> combinerOf(const tir::Stmt& s);

// The e of `acc = acc op e` (either side of op), for a statement combinerOf accepts.
tir::ExprP combinedOperand(const tir::Stmt& s);

// Whether `body` (and the loops inside it) only accumulates; the accumulators and their operators.
bool reductionBody(const std::vector<tir::StmtP>& body, std::map<int, tir::BinOp>& accumulators);

}  // namespace tvms::schedule
