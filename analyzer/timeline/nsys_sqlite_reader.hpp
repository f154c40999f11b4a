// Nsight Systems' SQLite export (`nsys export --type sqlite`), read row by row: kernels, copies and
// memsets from the CUPTI_ACTIVITY_KIND_* tables, the CUDA runtime and driver calls (for the causes)
// from CUPTI_ACTIVITY_KIND_RUNTIME, names from StringIds, devices from TARGET_INFO_GPU, and NVTX push/pop
// or start/end ranges from NVTX_EVENTS (the CPU ranges that name a call's caller; ranges whose text
// starts with "ProfilerStep#" or "step" are the steps). The layout is /work/shared/timeline/FORMATS.md
// section 3: times are integer nanoseconds; a table an export lacks held no data.
#pragma once

#include "analyzer/timeline/trace.hpp"

#include <string>

namespace roofline::timeline {

// Throws input_error naming the file: not an SQLite database or one SQLite cannot read (io), no GPU
// activity table or no rows in any (bad_trace, with the nsys option that records them), a table
// without a column the reader needs (bad_trace, naming table and column).
trace read_nsys_sqlite(const std::string& path);

}  // namespace roofline::timeline
