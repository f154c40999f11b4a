// The practical share of each roof: how close real, well-written kernels get to it on one GPU.
// Gain estimates divide a kernel's floor by it (rules/README.md), so it is fitted to kernels that
// are known to sit on that roof: the fixed side of every naive -> fixed pair and the roof
// references of kernels/, as `roofline calibrate` does from a capture folder.
#pragma once

#include <string>
#include <vector>

namespace roofline {

struct roof_sample {
    std::string roof;    // dram, fp32, ...: the resource the kernel is bound by
    std::string kernel;  // for the record
    double utilisation;  // its share of that roof, 0..1
};

struct practical_share {
    std::string roof;
    double fraction = 0.0;  // the fitted share, 0..1
    double spread = 0.0;    // geometric standard deviation of the samples around it (1 = no spread)
    double lowest = 0.0, highest = 0.0;
    std::vector<std::string> kernels;
};

// Least squares in log space: log(u_i) = log(p_roof(i)) + e_i. The estimate of a kernel's time after
// a fix is floor / p, so log-space residuals weigh a kernel 10% slow and one 10% fast alike.
// Roofs in name order; a sample with utilisation outside (0, 1.5] is refused (std::invalid_argument).
std::vector<practical_share> fit_practical_shares(const std::vector<roof_sample>& samples);

// One kernel checked against a share fitted without it.
struct held_out_sample {
    std::string roof, kernel;
    int fold = 0;                                             // 0 or 1: the half it belongs to (fitted on the other)
    double utilisation = 0.0;                                 // measured share of the roof
    double predicted = 0.0;                                   // the share fitted on the other half
    double error() const { return utilisation / predicted; }  // 1 = the held-out share predicts it exactly
};

// The held-out check of one roof.
struct roof_check {
    std::string roof;
    std::size_t kernels = 0;  // samples on this roof
    std::size_t checked = 0;  // of them, checked against the other half (0 where one kernel is all there is)
    double rms = 1.0;         // exp(root mean square of log(error)) over the checked ones: 1.05 = 5% typical miss
    double worst = 1.0;       // the error furthest from 1 (as a ratio measured / predicted)
    std::string worst_kernel;
};

struct cross_validation {
    std::vector<held_out_sample> samples;  // by roof, then kernel name
    std::vector<roof_check> roofs;         // roofs in name order
};

// Two-fold cross-validation of fit_practical_shares: on each roof the kernels, sorted by name, go
// alternately into two halves; each half is fitted on its own and predicts the other, so no share
// is judged on the kernels it was fitted to. Deterministic. A roof with one kernel is not checked.
cross_validation cross_validate_practical_shares(const std::vector<roof_sample>& samples);

}  // namespace roofline
