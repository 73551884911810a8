#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/format/formatter.h"

namespace tvms::format {

// ---- unified diff (Myers' O(ND) algorithm over lines)

namespace {

std::vector<std::string_view> splitLines(const std::string& s) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t nl = s.find('\n', pos);
    if (nl == std::string::npos) { out.push_back(std::string_view(s).substr(pos)); break; }
    out.push_back(std::string_view(s).substr(pos, nl - pos + 1));
    pos = nl + 1;
  }
  return out;
}

// Edit script: for each line, ' ' kept, '-' removed (from a), '+' added (from b). The common prefix and
// suffix are trimmed first, and each step keeps only its diagonals [-d-1, d+1], so memory is O(D^2).
std::vector<std::pair<char, std::string_view>> myers(const std::vector<std::string_view>& a0,
                                                     const std::vector<std::string_view>& b0) {
  size_t pre = 0;
  while (pre < a0.size() && pre < b0.size() && a0[pre] == b0[pre]) ++pre;
  size_t suf = 0;
  while (suf < a0.size() - pre && suf < b0.size() - pre && a0[a0.size() - 1 - suf] == b0[b0.size() - 1 - suf]) ++suf;
  std::vector<std::string_view> a(a0.begin() + pre, a0.end() - suf), b(b0.begin() + pre, b0.end() - suf);
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size()), max = n + m;
  std::vector<int> v(2 * max + 3, 0);
  auto V = [&](std::vector<int>& vec, int k) -> int& { return vec[max + 1 + k]; };
  std::vector<std::vector<int>> trace;  // trace[d][j] = v[k] before step d, for k = j - d - 1
  int found = 0;
  for (int d = 0; d <= max; ++d) {
    std::vector<int> slice(2 * d + 3);
    for (int k = -d - 1; k <= d + 1; ++k) slice[k + d + 1] = (std::abs(k) <= max + 1) ? V(v, k) : 0;
    trace.push_back(std::move(slice));
    bool done = false;
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && V(v, k - 1) < V(v, k + 1))) ? V(v, k + 1) : V(v, k - 1) + 1;
      int y = x - k;
      while (x < n && y < m && a[x] == b[y]) { ++x; ++y; }
      V(v, k) = x;
      if (x >= n && y >= m) { done = true; break; }
    }
    if (done) { found = d; break; }
  }
  std::vector<std::pair<char, std::string_view>> script;
  for (size_t i = 0; i < suf; ++i) script.emplace_back(' ', a0[a0.size() - 1 - i]);
  int x = n, y = m;
  for (int d = found; d > 0; --d) {
    const auto& vd = trace[d];
    auto at = [&](int k) { return vd[k + d + 1]; };
    int k = x - y;
    int prevK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
    int prevX = at(prevK), prevY = prevX - prevK;
    while (x > prevX && y > prevY) script.emplace_back(' ', a[--x]), --y;
    if (x == prevX) script.emplace_back('+', b[--y]);
    else script.emplace_back('-', a[--x]);
  }
  while (x > 0 && y > 0) script.emplace_back(' ', a[--x]), --y;
  for (size_t i = pre; i > 0; --i) script.emplace_back(' ', a0[i - 1]);
  return {script.rbegin(), script.rend()};
}

}  // namespace

std::string unifiedDiff(const std::string& before, const std::string& after, const std::string& path) {
  if (before == after) return "";
  auto a = splitLines(before), b = splitLines(after);
  auto script = myers(a, b);
  std::string out = "--- " + path + "\n+++ " + path + "\n";
  const size_t context = 3;
  size_t i = 0;
  int lineA = 1, lineB = 1;
  std::vector<int> posA(script.size() + 1), posB(script.size() + 1);
  for (size_t k = 0; k < script.size(); ++k) {
    posA[k] = lineA;
    posB[k] = lineB;
    if (script[k].first != '+') ++lineA;
    if (script[k].first != '-') ++lineB;
  }
  posA[script.size()] = lineA;
  posB[script.size()] = lineB;
  while (i < script.size()) {
    if (script[i].first == ' ') { ++i; continue; }
    size_t start = i >= context ? i - context : 0;
    size_t end = i;
    // extend the hunk while changes are within 2*context of each other
    while (end < script.size()) {
      if (script[end].first != ' ') { ++end; continue; }
      size_t run = end;
      while (run < script.size() && script[run].first == ' ') ++run;
      if (run < script.size() && run - end <= 2 * context) { end = run; continue; }
      end = std::min(end + context, script.size());
      break;
    }
    int countA = 0, countB = 0;
    for (size_t k = start; k < end; ++k) {
      if (script[k].first != '+') ++countA;
      if (script[k].first != '-') ++countB;
    }
    out += "@@ -" + std::to_string(countA ? posA[start] : posA[start] - 1) + "," + std::to_string(countA) + " +" +
           std::to_string(countB ? posB[start] : posB[start] - 1) + "," + std::to_string(countB) + " @@\n";
    for (size_t k = start; k < end; ++k) {
      out += script[k].first;
      out += script[k].second;
      if (script[k].second.empty() || script[k].second.back() != '\n') out += "\n\\ No newline at end of file\n";
    }
    i = end;
  }
  return out;
}

}  // namespace tvms::format
