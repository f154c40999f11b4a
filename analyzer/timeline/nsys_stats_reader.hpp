// `nsys stats --format csv` reports as a trace: cuda_gpu_trace (every kernel, copy and memset with its
// start, duration, device, stream and correlation id) and, where given, cuda_api_trace (the runtime
// and driver calls, for the gaps' causes). The layouts are /work/shared/timeline/FORMATS.md section 4:
// "Label (unit)" headers (ns by default, --timeunit changes it), "NVIDIA H100 (0)" devices, copies named
// "[CUDA memcpy Host-to-Device]" with their memory kinds in SrcMemKd/DstMemKd, sizes in MB (1e6 B).
// The report may follow nsys' own NOTICE and "Processing [...]" lines.
#pragma once

#include "analyzer/timeline/trace.hpp"

#include <string>

namespace roofline::timeline {

// Whether the text's first lines hold a cuda_gpu_trace header.
bool is_nsys_gpu_trace(std::string_view head);

// Throws input_error naming file:line:column: no cuda_gpu_trace header (unknown_format), a row with
// another number of fields than the header (column_count), a time or number that is not one
// (bad_number), a unit other than ns, us, ms or s (bad_unit), no rows (bad_trace). `api_path` ("": none)
// is the cuda_api_trace report of the same run.
trace read_nsys_gpu_trace(const std::string& path, const std::string& api_path);

}  // namespace roofline::timeline
