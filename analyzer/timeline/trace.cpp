#include "analyzer/timeline/trace.hpp"

namespace roofline::timeline {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }
bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// "cudaStreamSynchronize_v3020" -> "cudaStreamSynchronize" (Nsight Systems' runtime names).
std::string_view without_version(std::string_view name) {
    const auto suffix_pos = name.rfind("_v");
    if (suffix_pos == std::string_view::npos || suffix_pos + 2 == name.size()) return name;
    for (std::size_t i = suffix_pos + 2; i < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9') return name;
    return name.substr(0, suffix_pos);
}

}  // namespace

name_id trace::intern(std::string_view name) {
    auto it = index_.find(std::string(name));
    if (it != index_.end()) return it->second;
    const auto id = static_cast<name_id>(names.size());
    names.emplace_back(name);
    index_.emplace(names.back(), id);
    return id;
}

call_kind classify_call(std::string_view name) {
    name = without_version(name);
    // The calls that return only once the GPU has finished what they wait for.
    for (std::string_view sync_name : {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
                                       "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize"})
        if (name == sync_name) return call_kind::sync;
    const bool async = contains(name, "Async");
    if (starts_with(name, "cudaMemcpy") || starts_with(name, "cuMemcpy"))
        return async ? call_kind::launch : call_kind::sync_copy;
    if (starts_with(name, "cudaMemset") || starts_with(name, "cuMemset"))
        return async ? call_kind::launch : call_kind::sync_memset;
    if (starts_with(name, "cudaLaunch") || starts_with(name, "cuLaunch") || contains(name, "GraphLaunch"))
        return call_kind::launch;
    return call_kind::other;
}

std::optional<cpu_mark> mark_of(std::string_view name, bool python_frame) {
    cpu_mark mark;
    if (python_frame) {
        // Frames of torch's own data loading and optimizers, wherever torch is installed.
        if (contains(name, "torch/utils/data/")) {
            mark.what = cpu_activity::data_loading;
        } else if (contains(name, "torch/optim/")) {
            mark.what = cpu_activity::optimizer;
        } else {
            return std::nullopt;
        }
        return mark;
    }
    if (starts_with(name, "ProfilerStep#")) return std::nullopt;
    if (starts_with(name, "enumerate(DataLoader)")) {
        mark.what = cpu_activity::data_loading;
        mark.worker_processes = contains(name, "MultiProcessing");
    } else if (starts_with(name, "Optimizer.step#") || starts_with(name, "Optimizer.zero_grad#")) {
        mark.what = cpu_activity::optimizer;
    } else if (starts_with(name, "aten::") || name.empty()) {
        return std::nullopt;  // an operator's NVTX range (emit_nvtx): dispatch, not a range the user named
    }
    return mark;
}

bool is_communication_kernel(std::string_view name) {
    // NCCL names its kernels ncclKernel_* (older) and ncclDevKernel_* (2.19 on); a kernel of a
    // namespace or template spells it inside (`void ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)`).
    return contains(name, "ncclKernel") || contains(name, "ncclDevKernel") || starts_with(name, "nccl");
}

}  // namespace roofline::timeline
