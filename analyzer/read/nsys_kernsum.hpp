// Nsight Systems' kernel summary as CSV (`nsys stats --report cuda_gpu_kern_sum --format csv`, the
// older `gpukernsum` report, or a stream of several reports of which one is the kernel summary),
// read into one row per kernel name. The layouts are those of /work/shared/ncu/FORMATS.md,
// "Nsight Systems"; anything else is refused with file:line:column.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

namespace roofline {

struct nsys_kernel {
    std::string name;        // the demangled name as nsys writes it
    double total_ns = 0.0;   // GPU time summed over every instance
    double instances = 0.0;  // launches
    std::size_t line = 0;    // the (first) row it was read from
    std::size_t rows = 1;    // rows merged into it (the layout with GridXYZ/BlockXYZ has one per launch shape)
};

struct nsys_kernsum {
    std::string file;
    std::string layout;  // "cuda_gpu_kern_sum", "cuda_gpu_kern_sum (with GridXYZ, BlockXYZ)" or "gpukernsum"
    std::size_t header_line = 0;
    std::vector<nsys_kernel> kernels;  // in the order of the file, one per name
};

// Throws input_error naming file:line:column: no kernel summary in the input (unknown_format), a row
// with a different number of fields than the header (column_count), a broken quote (bad_quote), a
// time or count that is not a number (bad_number), a time unit other than ns, us, ms or s (bad_unit),
// two kernel summaries in one stream or none with a row (header_only, empty_input).
nsys_kernsum read_nsys_kernsum(std::istream& in, const std::string& file);
// The same for a path; "-" reads stdin.
nsys_kernsum read_nsys_kernsum_file(const std::string& path);

}  // namespace roofline
