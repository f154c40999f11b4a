// A whole-run trace as the timeline analysis reads it, whatever file it came from (a PyTorch profiler
// Chrome trace, an Nsight Systems SQLite export or its `nsys stats` CSVs): the GPU's work (kernels,
// copies, memsets), the CPU's calls into CUDA that launched or waited for it, the CPU operators that
// made those calls, and the steps the program marked. Times are integer nanoseconds on the trace's
// own clock; names are stored once (`names`) and referred to by index.
//
// Memory: one fixed-size record per event the analysis reads (about 48 bytes, against 300-700 bytes
// of JSON text per event), and one string per distinct name. Events the analysis does not read (most
// CPU-side events, flows, counters) are skipped while the file is parsed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace roofline::timeline {

using name_id = std::uint32_t;

enum class op_kind : std::uint8_t { kernel, memcpy, memset };

// Where a copy went, as CUPTI names it ("Memcpy HtoD (Pageable -> Device)").
enum class copy_direction : std::uint8_t { none, host_to_device, device_to_host, device_to_device, peer, other };

struct gpu_op {
    std::int64_t start_ns = 0, end_ns = 0;
    std::int64_t correlation = -1;  // the launching call's id (a graph replay's ops share the graph launch's)
    std::int64_t stream = -1;
    std::uint64_t bytes = 0;  // copies and memsets
    name_id name = 0;
    std::int32_t device = 0;
    op_kind kind = op_kind::kernel;
    copy_direction direction = copy_direction::none;
    bool pageable = false;          // a copy from or to pageable host memory
    bool communication = false;     // an NCCL kernel
    std::uint32_t grid_blocks = 0;  // a kernel's blocks (grid x * y * z), where the trace gives them (0: unknown)
};

// What a CUDA runtime or driver call does, as far as the GPU's idle time is concerned.
enum class call_kind : std::uint8_t {
    launch,       // puts work on a stream and returns (kernel launches, graph launches, async copies/memsets)
    sync,         // waits for the GPU: cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize
    sync_copy,    // a copy the CPU waits for (cudaMemcpy without Async)
    sync_memset,  // a memset the CPU may wait for (cudaMemset without Async)
    other,
};

struct api_call {
    std::int64_t start_ns = 0, end_ns = 0;
    std::int64_t correlation = -1;
    std::int64_t thread = 0;  // the CPU thread (OS tid)
    name_id name = 0;
    call_kind kind = call_kind::other;
};

// A CPU-side range: a framework operator (aten::item) or a step the program marked (ProfilerStep#3).
struct cpu_range {
    std::int64_t start_ns = 0, end_ns = 0;
    std::int64_t thread = 0;
    name_id name = 0;
};

// What a CPU range says the program was doing, where its name tells (timeline_model.hpp's CPU
// attribution): PyTorch's own ranges around a DataLoader's batches and an optimizer's step, or a range
// the user named (record_function, NVTX).
enum class cpu_activity : std::uint8_t { data_loading, optimizer, user_range };

struct cpu_mark {
    cpu_range range;
    cpu_activity what = cpu_activity::user_range;
    bool worker_processes = false;  // data loading: a DataLoader with workers (the main thread waits for them)
};

// The activity a range's name marks: PyTorch's record_function names ("enumerate(DataLoader)#_Single
// ProcessDataLoaderIter.__next__", "Optimizer.step#Adam.step", "Optimizer.zero_grad#Adam.zero_grad") and
// its Python frames ("torch/utils/data/dataloader.py(...): __next__", "torch/optim/adam.py(...): step");
// none for an operator, a step mark or any other frame.
std::optional<cpu_mark> mark_of(std::string_view name, bool python_frame);

struct device_info {
    std::int32_t id = 0;
    std::string name;  // "NVIDIA H100 80GB HBM3", where the trace says
    int compute_major = 0, compute_minor = 0;
    int sm_count = 0;  // 0: the trace does not say
};

struct trace {
    std::string file;
    std::string form;  // "PyTorch profiler (Kineto) trace", "Nsight Systems SQLite export", ...
    std::vector<std::string> names;
    std::vector<gpu_op> ops;
    std::vector<api_call> calls;
    std::vector<cpu_range> cpu_ops;
    // The program's own Python frames and nn.Module ranges (Kineto's python_function events of a trace
    // taken with_stack or with_modules), without the frames of torch, site-packages and the interpreter:
    // where in the user's code each launch came from.
    std::vector<cpu_range> py_frames;
    std::vector<cpu_range> steps;  // ProfilerStep#N or the marked step ranges, in time order
    // Ranges that name what the CPU was doing (data loading, the optimizer, the user's own ranges).
    std::vector<cpu_mark> marks;
    std::vector<device_info> devices;
    std::size_t events_read = 0;  // every event of the file, kept or skipped
    // Under torch.distributed, Kineto's distributedInfo: this trace's rank and the job's size (-1, 0: unknown).
    int rank = -1, world_size = 0;

    name_id intern(std::string_view name);
    const std::string& name(name_id id) const { return names[id]; }

private:
    std::unordered_map<std::string, name_id> index_;
};

// The longest time the model takes from an input, 2^62 ns (146 years): a start or duration beyond it is
// refused where it is read, so a start plus a duration never wraps.
inline constexpr std::int64_t max_trace_ns = std::int64_t(1) << 62;

// A sum of durations that overlap (kernels on several streams, ops of a graph replay): it may exceed the
// span, and saturates rather than wraps.
inline void add_to(std::int64_t& total, std::int64_t value) {
    if (__builtin_add_overflow(total, value, &total)) total = value > 0 ? INT64_MAX : INT64_MIN;
}

// The kind of a CUDA call from its name (a trailing `_v7000` version suffix, as Nsight Systems writes
// it, is ignored).
call_kind classify_call(std::string_view name);
// NCCL's kernels (ncclKernel_AllReduce_..., ncclDevKernel_...): communication, not compute.
bool is_communication_kernel(std::string_view name);

}  // namespace roofline::timeline
