// `roofline calibrate DIR`: the practical share of each roof, fitted (models/practical_fit) to the
// kernels of a pairs capture that sit on the roof they were built for: the fixed side of every pair
// and the roof references whose verdict is what kernels/pairs.json expects. The result goes into
// the GPU's hwspecs file as practical_fraction, which the gain estimates divide by.
#pragma once

#include "analyzer/validate/pairs_report.hpp"
#include "models/practical_fit.hpp"

#include <string>
#include <vector>

namespace roofline {

std::vector<roof_sample> calibration_samples(const pairs_report& r);

// A markdown table of the fit, its held-out check (cross_validate_practical_shares), then the
// hwspecs fragment ("practical_fraction": {...}) to paste.
std::string render_calibration(const pairs_report& r, const std::vector<practical_share>& fit, const cross_validation& cv,
                               const std::string& dir);

}  // namespace roofline
