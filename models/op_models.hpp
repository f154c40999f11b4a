// Static models of common GPU operations (GEMM, attention, elementwise, norms, ...) for
// `roofline predict`: what an operation must cost before it is written. For each op: its FLOPs and
// the FLOP roof they run on, the compulsory DRAM traffic (every input read once, every output
// written once: no kernel moves less), the arithmetic intensity, and on a GPU spec the floor time at
// its practical shares. Pure: no I/O; the catalogue of ops and keys is data (op_catalogue()).
#pragma once

#include "models/gpu_spec.hpp"
#include "models/roofline_model.hpp"
#include "models/resources.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

// One key an op takes: KEY=VALUE on the command line.
struct op_key {
    std::string name;
    std::string fallback;              // the default; "" where the key is required or follows another
    std::string meaning;               // one line for --help and messages
    std::vector<std::string> choices;  // the values it takes; empty: a whole number of `least` or more
    std::uint64_t least = 1;
    std::string follows{};  // the key whose value it takes when not given (out_dtype: dtype; kv_heads: heads)
};

struct op_info {
    std::string name;
    std::string summary;
    std::vector<op_key> keys;
};

// Every op predict knows, in the order --help lists them.
const std::vector<op_info>& op_catalogue();

// The largest whole number a key takes: far above any real shape, small enough that every product
// the models form stays finite and exact to a double's precision in its leading digits.
constexpr std::uint64_t op_key_max = 1'000'000'000'000ULL;

struct op_parameter {
    std::string key;
    std::string value;
    bool defaulted = false;  // not given: the key's default
};

// What an op's model counts and assumes, and why, as values: analyzer/report/predict_report.hpp
// (op_note_text) words each.
enum class op_note_kind {
    gemm_beta_zero,           // element_bytes: C's (C += A x B would read C too)
    gemm_transpose_recorded,  // transa, transb: recorded, no effect on the floor
    gemm_batch_own_operands,  // each batch reads its own A and B
    gemm_fp32_on_cuda_cores,  // dtype=fp32: FFMA; dtype=tf32 would use the tensor cores
    gemm_fp64_path,           // dtype=fp64: DMMA where the GPU has it, else the FP64 CUDA cores
    gemm_int8_ops,            // dtype=int8: integer OPs against the spec's TOPS
    attention_fused,          // S and P never reach DRAM
    attention_flops,          // Q K^T and P V; the softmax's work is not counted
    attention_forward_only,   //
    attention_causal,         // causal=1: the mask aligned bottom-right, masked pairs free
    attention_grouped_query,  // count: K/V heads; total: query heads
    elementwise_no_broadcast,
    elementwise_flops_stated,  // flops_per_element is the caller's
    reduction_flops,
    reduction_bytes,
    layernorm_flops,
    layernorm_bytes,
    rmsnorm_flops,
    rmsnorm_bytes,
    softmax_flops,
    softmax_bytes,
    embedding_rows_gathered,  // count: vocab; total: hidden
    embedding_int64_indices,
    conv2d_implicit_gemm,
    conv2d_bytes,
    conv2d_fp32_on_cuda_cores,  // dtype=fp32
};

struct op_note {
    op_note_kind kind = op_note_kind::gemm_beta_zero;
    std::uint64_t count = 0, total = 0;
    double element_bytes = 0.0;
    std::string transa, transb;
};

// What an op must do, independent of the GPU.
struct op_cost {
    std::string op;
    std::vector<op_parameter> parameters;  // every key of the op, in catalogue order, defaults filled in
    double flops = 0.0;                    // OPs for int8
    std::optional<resource> compute;       // the FLOP roof the work runs on; nullopt: no arithmetic (a gather)
    bool bf16 = false;          // half-precision CUDA-core work in BF16 (its own rate where the spec gives one)
    std::string flops_formula;  // "2 x M x N x K x batch = 2 x 8192 x 8192 x 8192 x 1"
    double bytes = 0.0;         // compulsory DRAM bytes
    std::string bytes_formula;
    std::vector<op_note> notes;  // what this op's model counts and assumes, and why
    // FLOP per compulsory byte; 0 where there is no arithmetic.
    double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
};

// Builds an op's cost from its name and KEY=VALUE arguments. Every key is checked: an unknown op
// or key (with "did you mean"), a key given twice, a missing required key, a value that is not one
// of the key's choices or not a whole number in range, and shapes that cannot be (a convolution
// whose filter is larger than its padded input, heads not a multiple of kv_heads) throw
// input_error(usage) located at "roofline" (as every command-line error), naming the argument.
op_cost model_op(const std::string& op, const std::vector<std::string>& key_values);

// The floor of an op on one GPU, from the spec's published peaks at the clocks they hold at.
struct op_floor {
    std::string gpu_id;
    std::string gpu_name;
    std::optional<double> compute_peak;  // per second; nullopt where the spec gives no peak for the precision
    // Where the compute peak comes from (analyzer/report/predict_report.cpp words it): the precision whose
    // peak it is (after FP64 matrix work falls back to the CUDA cores), whether it is the spec's BF16
    // figure for the fp16 pipe, and the spec's own source and clock for the figure.
    resource compute_precision = resource::fp32;
    bool compute_peak_bf16 = false;
    std::string compute_peak_source;
    std::optional<double> compute_peak_at_mhz;
    practical_choice compute_practical;  // practical share of that peak (practical_share_of)
    double dram_peak = 0.0;              // B/s
    std::string dram_peak_source;        // the spec's source of the figure
    practical_choice dram_practical;
    std::optional<double> compute_ns;     // FLOPs / (peak x share); 0 without FLOPs; nullopt where the peak is unknown
    double memory_ns = 0.0;               // bytes / (bandwidth x share)
    std::optional<double> floor_ns;       // max(compute_ns, memory_ns); nullopt where compute_ns is
    std::optional<double> peak_floor_ns;  // the same at 100% of each peak: no kernel that does this work beats it
    std::optional<bound> bound_by;        // memory or compute: the larger time; nullopt where unknown
    std::optional<resource> limiter;      // dram or the FLOP roof; nullopt where unknown
    std::optional<double> ridge;          // FLOP/B where both times are equal, at practical shares
    std::optional<double> min_kernel_ns;  // the shortest kernel measured on this GPU (the spec's), where known
};

op_floor floor_on(const op_cost& cost, const gpu_spec& spec);

}  // namespace roofline
