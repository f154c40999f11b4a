// Whose kernel it is: the user's own, a library's (cuBLAS, cuDNN, FlashAttention, CUB, NCCL), a
// compiler's (Triton from torch.compile) or a framework's (PyTorch ATen), and the facts its name
// carries (the architecture it was built for, operand alignment, tile, math path, ...). Decided from
// the name alone by the patterns of rules/origins/*.json (compiled in), first match wins; a name no
// pattern matches is the user's. Where a kernel comes from says who can change it: the advice for a
// library kernel is what its caller controls (shapes, dtype, layout, fusion), not its source.
#pragma once

#include "analyzer/base/pooled_string.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

// Keep `library` last: rule_tree.cpp walks the kinds from user to library.
enum class origin_kind : unsigned char {
    user,       // no library pattern matched: the user's own kernel
    cutlass,    // a CUTLASS template the user instantiates (kernel-author advice applies)
    cublas,     // cuBLAS / cuBLASLt (nvjet, xmma, the CUTLASS kernels it ships, gemv, split-K reduce)
    cudnn,      // cuDNN (convolutions, its fused attention, layout transposes)
    attention,  // FlashAttention and PyTorch's memory-efficient attention
    triton,     // Triton kernels TorchInductor generated (torch.compile)
    aten,       // PyTorch's own CUDA kernels (ATen: elementwise, reductions, norms, copies, ...)
    cub,        // CUB / Thrust device algorithms (sort, scan, reduce, histogram), under any framework
    nccl,       // collective communication
    cupy,       // kernels CuPy generated from the user's expressions
    library,    // another library the patterns name
};
// "user", "cutlass", "cublas", ...: the names rules/origins/*.json and the JSON report use.
const char* name(origin_kind kind);
std::optional<origin_kind> origin_kind_named(std::string_view name);
// The kind as a table names it in one word: "cuBLAS", "ATen", "Triton", "user".
const char* label(origin_kind kind);
// Whether the user owns the kernel's source, so kernel-author advice (tiles, wgmma, cp.async) is theirs
// to act on: their own kernels and the CUTLASS templates they instantiate.
inline bool source_owned(origin_kind kind) { return kind == origin_kind::user || kind == origin_kind::cutlass; }

// What a library or compiler kernel's name says about it. Each is unknown (0, "") where the name
// does not say it.
struct origin_facts {
    int built_for_sm = 0;  // the architecture the kernel was built for, x10 (75: sm_75); cutlass_75_, sm80_xmma_
    int alignment = 0;     // operand alignment in elements (align1, aligna4/alignc4: the smallest)
    int vector_width = 0;  // ATen's vectorized_elementwise_kernel<VEC, ...>
    bool split_k = false;  // a split-K GEMM or its reduction
    std::string tile;      // "256x128x8": the CTA tile (and K step) in the name
    pooled_string math;    // fp32_simt, tf32_tensor, bf16_tensor, fp16_tensor, int8_tensor, fp8_tensor, fp64_tensor,
                           // no_mma (a kind of kernel that runs no tensor-core instruction: ATen's own)
    // The tensor-core instruction path: "wgmma" (Hopper's warpgroup MMA: cuDNN's _wgmma_ kernels, cuBLASLt's
    // nvjet_sm90), "mma_sync" (FlashAttention-2's Sm80 kernel traits). A kernel built for an architecture
    // before sm_90 cannot issue wgmma or TMA either way (wgmma_named, below).
    pooled_string mma_path;
    pooled_string path;     // ATen elementwise: vectorized, unrolled, strided; inductor: pointwise, reduction, ...
    std::string fused_ops;  // TorchInductor: the ATen ops fused into the kernel ("add_gelu")
};

// What the name says of warpgroup MMA: 1 it issues wgmma, 0 it cannot (mma_sync, or built for an architecture
// before sm_90: wgmma and TMA are sm_90a instructions), nullopt where the name does not say.
std::optional<bool> wgmma_named(const origin_facts& facts);

struct kernel_origin {
    origin_kind kind = origin_kind::user;
    pooled_string pattern;  // the id of the pattern that matched ("" for none)
    pooled_string library;  // "cuBLAS", "PyTorch ATen", ... ("" for the user's own)
    origin_facts facts;
};

// The origin of a kernel by its name as ncu or a trace writes it (demangled, with or without the
// parameter list, or mangled: "_ZN2at6native..." matches the same patterns by their literal parts).
kernel_origin classify_origin(std::string_view kernel_name);
// What the caller of a kernel of this pattern can change (its "levers"), for findings whose rule node
// has no fix written for the kernel's origin; empty for the user's own kernels.
const std::vector<std::string>& origin_levers(std::string_view pattern_id);
// Parses a pattern file as classify_origin's loader does; throws input_error (bad_rule) naming the
// file and what is wrong. For tests and for `roofline rules`-style checks of an edited file.
void check_origin_patterns(const std::string& json_text, const std::string& file);

}  // namespace roofline
