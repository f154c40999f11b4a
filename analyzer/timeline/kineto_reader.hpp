// PyTorch profiler (Kineto) Chrome traces, `.json` or `.json.gz`, read as a stream of SAX events
// (nlohmann's interface): only the events the analysis reads are kept (trace.hpp). The shapes are
// those of /work/shared/timeline/FORMATS.md section 1: GPU ops are `cat` kernel, gpu_memcpy and
// gpu_memset (Kernel, Memcpy, Memset in older PyTorch), linked to the CUDA call that launched them by
// args.correlation; ts and dur are microseconds with three decimals, read exactly to nanoseconds.
#pragma once

#include "analyzer/timeline/byte_source.hpp"
#include "analyzer/timeline/trace.hpp"

#include <string>

namespace roofline::timeline {

// Throws input_error naming file:line:column: JSON that does not parse (a truncated trace among
// them), a document with no traceEvents, a GPU op without ts or dur or with a pid that is no device
// number, or no GPU activity at all (bad_trace).
trace read_kineto(byte_source& source, const std::string& file);

}  // namespace roofline::timeline
