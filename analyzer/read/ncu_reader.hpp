// Reads every Nsight Compute CSV form (raw page, details page, --metrics lists, live stdout,
// --print-summary, 2019-era exports) and hands on one launch_record at a time, so memory
// grows with the launch being assembled, not with the file.
#pragma once

#include "analyzer/read/launch_record.hpp"
#include "analyzer/read/numbers.hpp"
#include "analyzer/read/parallel_rows.hpp"

#include <functional>
#include <istream>
#include <string>
#include <vector>

namespace roofline {

enum class ncu_form { raw, details, metrics, summary };
const char* ncu_form_name(ncu_form form);

struct read_options {
    number_style numbers = number_style::unknown;  // unknown: detect from the values
    // Threads that parse a raw page's rows (parallel_rows.hpp); 0: one per core, at most 4. With 1,
    // or on any other form, one thread reads. The launches and their order do not depend on it.
    // The cap is a guess, not a measurement: only 2 cores were measured (bench/RESULTS.md), where
    // the calling thread's share (the kernel table, ~12% of the work) would bound the gain at ~8x.
    std::size_t threads = 0;
    parallel_options parallel;
};

struct read_summary {
    ncu_form form = ncu_form::raw;
    number_style style = number_style::unknown;
    bool style_assumed = false;  // only ambiguous values were seen; ncu's default was used
    std::size_t launches = 0;
    std::size_t skipped_lines = 0;      // non-CSV lines (==PROF==, program output)
    std::size_t parallel_launches = 0;  // of `launches`, those the parallel reader's workers parsed
    std::vector<std::string> notes;     // things the report should say about the input
};

using launch_sink = std::function<void(launch_record&&)>;

// Throws input_error (file:line:column) on input that is not a readable ncu export.
read_summary read_ncu_csv(std::istream& in, const std::string& file, const read_options& options,
                          const launch_sink& sink);

}  // namespace roofline
