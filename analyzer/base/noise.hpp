// What two measurements of one program cannot tell apart: both pipelines (the kernel analysis and the
// timeline) compare against it.
#pragma once

namespace roofline {

// Run-to-run noise: the largest relative spread of a time-based share between two captures of one
// program on one GPU (examples/h200/forms: a transformer layer and diff_demo each captured twice, and
// examples/h100/diff's before/before_again: 136 busy shares of 22 kernels, median 0.6%, 90th percentile
// 2.1%, largest 3.8%; durations at most 2.8%), rounded up. Two values closer than this cannot be told
// apart, and a value this close to a threshold may fall on either side of it in another capture.
inline constexpr double run_to_run_noise = 0.04;

}  // namespace roofline
