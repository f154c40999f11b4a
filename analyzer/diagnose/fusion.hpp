// fusion-candidate: a finding about a run of kernels, not one kernel. Consecutive launches that
// are each DRAM-bound, with the same grid and block, where each reads about as many bytes from
// DRAM as the one before wrote, look like a chain of elementwise passes over one buffer: fused,
// the intermediates would stay in registers and only the first read and the last write remain.
// The finding goes on the first kernel of the run; its estimate is for the whole run.
#pragma once

#include "analyzer/diagnose/diagnosis.hpp"

#include <vector>

namespace roofline {
struct kernel_result;
struct gpu_spec;
}  // namespace roofline

namespace roofline::rules {

// kernels in order of first launch (as kernel_table gives them). Adds the finding and a
// "workload / fusion-candidate" path entry to the first kernel of each run, and re-ranks its findings.
void add_fusion_candidates(std::vector<kernel_result>& kernels, const gpu_spec& spec);

}  // namespace roofline::rules
