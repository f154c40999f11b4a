// Every rank of a distributed job, one trace each (Kineto files with distributedInfo, per-rank nsys
// exports): each rank read, modelled and summarised on its own (in parallel threads, each trace freed
// once summarised, so memory is a few traces' whatever the job's size), then compared.
//
// The straggler, without trusting the ranks' clocks to agree: a collective's NCCL kernel starts on
// each rank when that rank launches it and ends when the last rank has arrived, so a rank that arrived
// early spins in it. Matched by position (the k-th NCCL kernel of every rank is one collective, as DDP
// and FSDP issue them in one order), the rank whose kernel is the shortest arrived last; every other
// rank waited its kernel's duration less that shortest one. The straggler is the rank that arrived last
// at most collectives; the others' wait is what it costs them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace roofline::timeline {

struct rank_summary {
    std::string file;
    int rank = -1;            // distributedInfo's rank, or the file's position among the inputs
    int world_size = 0;       // distributedInfo's (0: unknown)
    std::int32_t device = 0;  // the GPU summarised: the one with NCCL kernels (the first otherwise)
    std::string gpu;
    std::int64_t span_ns = 0, busy_ns = 0;
    std::size_t steps = 0;
    std::int64_t step_ns = 0;  // the GPU work of a step (the steps' span / steps), or the span without steps
    std::int64_t communication_ns = 0, overlap_ns = 0;
    std::vector<std::int64_t> collectives;  // NCCL kernels' durations, in start order
    // Where compute kernels ran beside each NCCL kernel: offsets from its start, [covered_begin[k],
    // covered_begin[k + 1]) indexing `covered` (a wait beside compute is not on the rank's critical path).
    std::vector<std::pair<std::int64_t, std::int64_t>> covered;
    std::vector<std::size_t> covered_begin;

    // The part of the first `wait` ns of collective `collective` that no compute kernel ran beside.
    std::int64_t exposed(std::size_t collective, std::int64_t wait) const;
    std::string first_finding;  // its own first finding (as `roofline timeline FILE` ranks it)
    std::optional<double> first_speedup;
    std::string first_category;          // the CPU category of a host-gap first finding ("" otherwise)
    std::int64_t first_per_step_ns = 0;  // that category's idle time per step
    std::uint64_t bytes = 0;             // the file's size

    double utilisation() const { return span_ns > 0 ? double(busy_ns) / double(span_ns) : 0.0; }
};

struct ranks_model {
    std::vector<rank_summary> ranks;            // by rank
    std::size_t collectives = 0;                // matched on every rank (the fewest any rank has)
    bool counts_differ = false;                 // the ranks hold different numbers of NCCL kernels
    std::vector<std::int64_t> waited_ns;        // per rank: its collectives' durations less the shortest
    std::vector<std::int64_t> exposed_wait_ns;  // per rank: the part of that wait with no compute beside it
    std::vector<std::size_t> arrived_last;      // per rank: the collectives whose shortest kernel was its
    std::optional<std::size_t> straggler;       // index into ranks: last at more than half the collectives
    std::optional<double> est_speedup;          // the others' step without their wait for it
    std::int64_t others_wait_per_step_ns = 0;   // their mean exposed wait per step
    std::int64_t step_ns = 0;                   // the job's step: the longest rank's
};

// A folder's trace files (.json, .json.gz, .sqlite, .nsys-rep), by name: one per rank. Throws input_error
// naming the folder where it cannot be listed or holds none.
std::vector<std::string> trace_files_in(const std::string& dir);

// Progress as each rank is summarised: (ranks done, ranks, bytes read so far).
using rank_progress = std::function<void(std::size_t, std::size_t, std::uint64_t)>;

// Reads every file (at most `threads` at a time); the first file that fails, in input order, throws.
ranks_model model_ranks(const std::vector<std::string>& files, std::int64_t min_gap_ns, unsigned threads,
                        const rank_progress& progress = {});

std::string ranks_markdown(const ranks_model& model);
// The same document as one HTML page (render/document.hpp).
std::string ranks_html(const ranks_model& model);
std::string ranks_json(const ranks_model& model);

}  // namespace roofline::timeline
