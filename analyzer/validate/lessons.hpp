// Lesson pages: one per naive -> fixed pair of kernels/, made from a real capture. Each page asks
// the question the pair teaches, shows both kernels on a roofline chart joined by an arrow, the
// counters that tell them apart (the first finding's evidence, evaluated on both sides), the path
// the rule trees took, the fix, and the estimated against the measured gain.
// `roofline lessons DIR` writes them into DIR/lessons/: ID.md and ID.svg per pair, and README.md.
#pragma once

#include "analyzer/validate/pairs_report.hpp"

#include <string>
#include <utility>
#include <vector>

namespace roofline {

// (file name, content) pairs, in pair order, then README.md. Pure: the same report, the same bytes.
std::vector<std::pair<std::string, std::string>> render_lessons(const pairs_report& report, const std::string& dir);

}  // namespace roofline
