// roofline's public interface, part 1: read a capture and analyse it.
//
//   roofline::analysis a = roofline::analyze_file("report.csv", {});
//   for (const auto& k : a.kernels)  // longest first
//       k.verdict.bound, k.verdict.limiter, k.verdict.reasons   (typed: models/classify.hpp)
//       k.roof.resources                                          (busy, useful, practical, floor per resource)
//       k.diagnosis.findings                                      (id, evidence, estimate, fixes)
//
// Input errors throw roofline::input_error (file, line, column, code). The GPU specs, rule trees and
// metric catalogue are compiled into the library: nothing is read from the source tree.
#pragma once

#include "analyzer/base/input_error.hpp"
#include "analyzer/pipeline/analysis.hpp"
