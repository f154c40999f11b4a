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

}  // namespace roofline
