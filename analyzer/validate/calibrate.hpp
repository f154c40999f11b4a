// `roofline calibrate DIR`: the practical share of each roof, fitted (models/practical_fit) to the
// kernels of a pairs capture that sit on the roof they were built for: the fixed side of every pair
// and the roof references whose verdict is what kernels/pairs.json expects. The result goes into
// the GPU's hwspecs file as practical_fraction, which the gain estimates divide by.
#pragma once

#include "analyzer/validate/pairs_report.hpp"
#include "models/bandwidth_fit.hpp"
#include "models/practical_fit.hpp"

#include <string>
#include <vector>

namespace roofline {

std::vector<roof_sample> calibration_samples(const pairs_report& report);

// Per launch, the bytes and time of every kernel whose practical floor a memory level sets, at 60%
// of that floor or more, and that the classification calls limited by it (it streams at that
// level), from the given analyses (a kernel named in
// several counts once, from the first).
std::vector<transfer_sample> transfer_samples(const std::vector<const analysis*>& captures);

// A markdown table of the fit, its held-out check (cross_validate_practical_shares), the bandwidth
// and latency of each memory level (fit_bandwidths), then the hwspecs fragment
// ("practical_fraction": {...}) to paste.
std::string render_calibration(const pairs_report& report, const std::vector<practical_share>& fit,
                               const cross_validation& cv, const std::vector<bandwidth_fit>& bandwidths,
                               const std::string& dir);

// The GPU's shipped spec file with the fitted practical shares in place (roofs not fitted keep
// their entries): a whole spec that `analyze --hwspecs DIR` loads over the shipped one. Throws
// input_error where the capture's GPU has no shipped spec.
std::string calibrated_spec(const pairs_report& report, const std::vector<practical_share>& fit,
                            const std::string& dir);

}  // namespace roofline
