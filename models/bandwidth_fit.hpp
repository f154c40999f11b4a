// Bandwidth per memory level with a latency term, t = bytes / bandwidth + t0, fitted by least
// squares to kernels that stream at that level (`roofline calibrate` takes them from a capture of
// kernels/: every kernel whose floor that level sets, at 60% of the floor or more).
#pragma once

#include <string>
#include <vector>

namespace roofline {

struct transfer_sample {
    std::string level;            // dram, l2, l1
    std::string kernel;           // for the record
    double bytes = 0;             // per launch
    double ns = 0;                // per launch
    double peak_bytes_per_s = 0;  // the level's peak at the capture's clocks (0: unknown)
};

struct transfer_residual {
    std::string kernel;
    double bytes = 0, ns = 0;
    double fitted_ns = 0;
    double error() const { return fitted_ns / ns; }  // 1 = the line goes through it
};

struct bandwidth_fit {
    std::string level;
    std::size_t kernels = 0;
    bool fitted = false;                       // false: under 3 kernels, or their sizes too alike to separate t0
    double bytes_per_s = 0.0;                  // the slope's inverse
    double t0_ns = 0.0;                        // the intercept: what a launch costs before its first byte arrives
    double rms = 1.0;                          // exp(root mean square of log(error)): 1.03 = 3% typical miss
    double peak_bytes_per_s = 0.0;             // the median of the kernels' peaks (0: unknown)
    std::vector<transfer_residual> residuals;  // by bytes
};

// One fit per level, levels in name order. Relative least squares (each row divided by its
// time), so a 60 us kernel counts as much as a 3 ms one; the 2x2 problem is solved with Eigen.
// A level needs 3 kernels whose largest transfer is at least twice the smallest.
std::vector<bandwidth_fit> fit_bandwidths(const std::vector<transfer_sample>& samples);

}  // namespace roofline
