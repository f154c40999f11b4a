// The vocabulary of the model, in one place: every resource a kernel can be limited by (FLOP roofs,
// memory levels, pipes, issue slots, the SM as a whole) and every bound a verdict can name. Rule
// files, spec files and reports spell them by name; the engine passes the enums.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

enum class resource : std::uint8_t {
    // FLOP roofs: CUDA-core precisions, then tensor-core source types.
    fp64,
    fp32,
    fp16,
    tensor_fp64,
    tensor_tf32,
    tensor_fp16,
    tensor_bf16,
    tensor_fp8,
    tensor_int8,
    tensor_fp4,
    // Memory levels, nearest DRAM first.
    dram,
    l2,
    l1,
    // The SM as ncu's speed of light sees it, and its issue slots.
    sm,
    issue,
    // Execution pipes (warp instructions over the pipe's peak rate) and the tensor pipe's MMA cycles.
    pipe_alu,
    pipe_fma,
    pipe_fp64,
    pipe_xu,
    pipe_lsu,
    pipe_uniform,
    pipe_adu,
    pipe_cbu,
    pipe_tex,
    pipe_tma,
    pipe_tensor,
};

enum class resource_kind { compute, memory };

struct resource_info {
    resource id;
    const char* name;  // as rules, spec files and reports write it: "tensor_bf16"
    resource_kind kind;
    bool precision;         // a FLOP roof (its work is FLOPs, or integer ops for tensor_int8)
    bool tensor;            // a tensor-core precision
    bool pipe;              // an execution pipe (pipe_*)
    bool in_floor;          // false for composites that only say what is busy (sm, pipe_tensor)
    const char* work_unit;  // "FLOP", "OP", "B" ("" where the work is a share only)
};

// Every resource, in the order above.
const std::vector<resource_info>& all_resources();
const resource_info& info(resource id);
const char* name(resource id);
// nullopt for a name no resource has.
std::optional<resource> resource_named(std::string_view name);
// The FLOP roofs a GPU spec lists, in report order.
const std::vector<resource>& precisions();
// "fp64, fp32, ..." for messages that list what is known.
std::string resource_names(bool precisions_only = false);

// What limits a kernel, from classify(): near a memory roof, near a compute roof, or, with nothing
// near a roof, waiting on latency, too small a grid, or launch overhead. unknown: not placed.
enum class bound : std::uint8_t { memory, compute, latency, small_grid, launch, unknown };

const char* name(bound value);
// nullopt for a name no bound has.
std::optional<bound> bound_named(std::string_view name);
const std::vector<bound>& all_bounds();  // in the order above

}  // namespace roofline
