// What the model stage makes of one kernel: its metrics (the kernel table's group), its launch
// shape, its roofline and its verdict. Plain values: the diagnosis reads them, nothing edits them.
#pragma once

#include "analyzer/read/kernel_origin.hpp"
#include "analyzer/read/kernel_table.hpp"
#include "models/classify.hpp"
#include "models/gpu_spec.hpp"
#include "models/roofline_model.hpp"

namespace roofline {

struct kernel_result {
    kernel_group group;
    launch_shape shape;
    kernel_roofline roof;
    classification verdict;
    kernel_origin origin;  // whose kernel it is, from its name (rules/origins/*.json)
};

// The roofline, launch shape and verdict of one kernel on the GPU of `spec`.
kernel_result model_kernel(kernel_group group, const gpu_spec& spec);

// The same kernel with every resource at the least work its counters prove (roof_reading::least_work): its
// roofline and verdict. For a provisional first finding only; the report shows `kernel`'s.
kernel_result at_least_work(const kernel_result& kernel, const gpu_spec& spec);

}  // namespace roofline
