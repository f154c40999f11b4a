// fusion-candidate: a finding about a run of kernels, not one kernel. Consecutive launches that
// are each DRAM-bound, with the same grid and block, where each reads about as many bytes from
// DRAM as the one before wrote, look like a chain of elementwise passes over one buffer: fused,
// the intermediates would stay in registers and only the first read and the last write remain.
// The finding goes on the first kernel of the run; its estimate is for the whole run.
#pragma once

#include "analyzer/diagnose/diagnosis.hpp"
#include "models/kernel_result.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace roofline::diagnose {

// The finding's id and its one threshold, wherever it is named (the finding itself, `roofline explain`).
// Its words are in analyzer/report/text.hpp (engine_finding::fusion_run).
struct fusion_rule {
    static constexpr const char* id = "fusion-candidate";
    // How close one kernel's DRAM writes and the next one's DRAM reads must be to count as one buffer
    // passed along: a quarter covers what the caches keep or add between the two (partial lines, a
    // small table each pass also reads) without matching kernels of unrelated sizes.
    static constexpr double same_buffer_tolerance = 0.25;
};

struct workload_finding {
    std::size_t kernel = 0;  // index into the kernels given, the first of the run
    finding what;
    visited_node path;  // the "workload / fusion-candidate" entry of the kernel's tree path
};

// kernels in order of first launch (as kernel_table gives them). One finding per run; the caller
// adds it to the first kernel's diagnosis and settles that kernel's findings again.
std::vector<workload_finding> fusion_candidates(const std::vector<const kernel_result*>& kernels, const gpu_spec& spec);

}  // namespace roofline::diagnose
