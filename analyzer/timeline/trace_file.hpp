// Opens a whole-run trace of any form `roofline timeline` reads, told apart by its content (not its
// name): a PyTorch profiler Chrome trace (JSON, gzip-compressed or not) or an Nsight Systems SQLite
// export, or `nsys stats` cuda_gpu_trace report (with its cuda_api_trace for the causes); a .nsys-rep
// report is exported with nsys where it is on PATH. A file of another form gets a
// message naming the command that reads it or makes the right one.
#pragma once

#include "analyzer/timeline/trace.hpp"

#include <string>

namespace roofline::timeline {

// Throws input_error naming the file: unknown_format for a form it does not read (with the command
// that helps), and what the form's reader throws.
// `api_path` ("": none): the cuda_api_trace report that goes with an nsys stats cuda_gpu_trace report.
trace read_trace_file(const std::string& path, const std::string& api_path = "");

// Whether the file is of a form read_trace_file reads (told the same way: a .nsys-rep name, or content
// that is JSON, SQLite or an nsys stats cuda_gpu_trace report), not an Nsight Compute export: how
// `roofline diff` picks which comparison to make. Throws input_error (io) where it cannot be read.
bool looks_like_trace(const std::string& path);

}  // namespace roofline::timeline
