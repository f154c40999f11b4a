#include "analyzer/timeline/timeline_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace roofline::timeline {
namespace {

using interval = std::pair<std::int64_t, std::int64_t>;

// Sorted, possibly overlapping intervals -> their union, in order.
std::vector<interval> merged(const std::vector<interval>& sorted) {
    std::vector<interval> out;
    for (const auto& iv : sorted) {
        if (!out.empty() && iv.first <= out.back().second) {
            out.back().second = std::max(out.back().second, iv.second);
        } else {
            out.push_back(iv);
        }
    }
    return out;
}

std::int64_t length(const std::vector<interval>& intervals) {
    std::int64_t total = 0;
    for (const auto& iv : intervals) total += iv.second - iv.first;
    return total;
}

std::int64_t intersection(const std::vector<interval>& left, const std::vector<interval>& right) {
    std::int64_t total = 0;
    std::size_t i = 0, j = 0;
    while (i < left.size() && j < right.size()) {
        const auto lo = std::max(left[i].first, right[j].first), hi = std::min(left[i].second, right[j].second);
        if (hi > lo) total += hi - lo;
        (left[i].second < right[j].second ? i : j)++;
    }
    return total;
}

// What the analysis looks calls up by.
struct call_index {
    std::unordered_map<std::int64_t, std::size_t> by_correlation;
    // Per CPU thread, the calls the CPU waits in, by the time they return.
    std::map<std::int64_t, std::vector<std::size_t>> blocking_by_thread;
    std::unordered_set<std::size_t> pageable_launches;  // async copy calls of pageable memory (they block too)
    // Per CPU thread, every call, by start: the call made just before another.
    std::map<std::int64_t, std::vector<std::size_t>> by_thread;
};

call_index index_calls(const trace& tr) {
    call_index lookup;
    for (std::size_t i = 0; i < tr.calls.size(); ++i)
        if (tr.calls[i].correlation >= 0) lookup.by_correlation.emplace(tr.calls[i].correlation, i);
    for (const auto& op : tr.ops)
        if (op.pageable)
            if (auto it = lookup.by_correlation.find(op.correlation); it != lookup.by_correlation.end())
                lookup.pageable_launches.insert(it->second);
    for (std::size_t i = 0; i < tr.calls.size(); ++i) {
        const auto kind = tr.calls[i].kind;
        if (kind == call_kind::sync || kind == call_kind::sync_copy || kind == call_kind::sync_memset ||
            lookup.pageable_launches.count(i))
            lookup.blocking_by_thread[tr.calls[i].thread].push_back(i);
    }
    for (auto& [thread, calls] : lookup.blocking_by_thread)
        std::sort(calls.begin(), calls.end(), [&](std::size_t left, std::size_t right) {
            return std::tie(tr.calls[left].end_ns, left) < std::tie(tr.calls[right].end_ns, right);
        });
    for (std::size_t i = 0; i < tr.calls.size(); ++i) lookup.by_thread[tr.calls[i].thread].push_back(i);
    for (auto& [thread, calls] : lookup.by_thread)
        std::sort(calls.begin(), calls.end(), [&](std::size_t left, std::size_t right) {
            return std::tie(tr.calls[left].start_ns, left) < std::tie(tr.calls[right].start_ns, right);
        });
    return lookup;
}

// The last call on `thread` the CPU waited in that began before the GPU went idle (`idle_from`) and
// returned after it, but before `launched`: the wait that left nothing queued.
std::optional<std::size_t> blocking_before(const trace& tr, const call_index& lookup, std::int64_t thread,
                                           std::int64_t idle_from, std::int64_t launched) {
    auto it = lookup.blocking_by_thread.find(thread);
    if (it == lookup.blocking_by_thread.end()) return std::nullopt;
    const auto& calls = it->second;
    auto past = std::upper_bound(calls.begin(), calls.end(), launched,
                                 [&](std::int64_t when, std::size_t call) { return when < tr.calls[call].end_ns; });
    for (auto pos = past; pos != calls.begin();) {
        const api_call& call = tr.calls[*--pos];
        if (call.end_ns < idle_from) break;
        if (call.start_ns <= idle_from) return *pos;
    }
    return std::nullopt;
}

// The outermost CPU operator on the call's thread that encloses it (aten::item around the
// cudaStreamSynchronize of `.item()`). cpu_ops are sorted by (thread, start).
std::optional<std::size_t> caller_of(const trace& tr, const api_call& call) {
    auto it = std::upper_bound(tr.cpu_ops.begin(), tr.cpu_ops.end(), std::make_pair(call.thread, call.start_ns),
                               [](const std::pair<std::int64_t, std::int64_t>& key, const cpu_range& range) {
                                   return key < std::make_pair(range.thread, range.start_ns);
                               });
    std::optional<std::size_t> outermost;
    // Every operator that encloses the call starts before it: walking back by start, the last one met
    // that still covers the call is the outermost. The walk is bounded, so a pathological trace cannot
    // make it quadratic (4096 operators started between the outermost one and the call).
    for (int walked = 0; it != tr.cpu_ops.begin() && walked < 4096; ++walked) {
        const cpu_range& range = *--it;
        if (range.thread != call.thread) break;
        if (range.end_ns >= call.end_ns) outermost = static_cast<std::size_t>(it - tr.cpu_ops.begin());
    }
    return outermost;
}

// Whether the call the thread made just before `call` is a pageable copy: a synchronising call right
// after it waits for that copy (`.cuda()` of pageable memory is cudaMemcpyAsync, then
// cudaStreamSynchronize). Read from the CUDA calls alone, so it holds on traces without CPU operators.
bool follows_pageable_copy(const trace& tr, const call_index& lookup, std::size_t call) {
    auto it = lookup.by_thread.find(tr.calls[call].thread);
    if (it == lookup.by_thread.end()) return false;
    const auto& calls = it->second;
    auto at = std::lower_bound(calls.begin(), calls.end(), call, [&](std::size_t left, std::size_t right) {
        return std::tie(tr.calls[left].start_ns, left) < std::tie(tr.calls[right].start_ns, right);
    });
    return at != calls.begin() && at != calls.end() && *at == call && lookup.pageable_launches.count(*std::prev(at));
}

gap_cause cause_of_blocking(const trace& tr, const call_index& lookup, std::size_t call) {
    switch (tr.calls[call].kind) {
        case call_kind::sync:
            return gap_cause::sync;
        case call_kind::sync_memset:
            return gap_cause::memset;
        case call_kind::sync_copy:
            return gap_cause::pageable;
        default:
            return lookup.pageable_launches.count(call) ? gap_cause::pageable : gap_cause::other;
    }
}

void classify(const trace& tr, const call_index& lookup, idle_gap& gap) {
    const gpu_op& op = tr.ops[gap.next_op];
    auto launch_it = lookup.by_correlation.find(op.correlation);
    if (launch_it == lookup.by_correlation.end()) {
        gap.cause = gap_cause::other;
        return;
    }
    gap.launch = launch_it->second;
    const api_call& launch = tr.calls[launch_it->second];
    if (auto blocking = blocking_before(tr, lookup, launch.thread, gap.start_ns, launch.start_ns)) {
        gap.blocking = blocking;
        gap.cause = cause_of_blocking(tr, lookup, *blocking);
        gap.caller = caller_of(tr, tr.calls[*blocking]);
        // A synchronising call made right after a pageable copy on the same thread is that copy's own
        // wait (`.cuda()` of pageable memory: cudaMemcpyAsync, then cudaStreamSynchronize): pinned,
        // asynchronous copies remove both, so the gap is the copy's.
        if (gap.cause == gap_cause::sync && follows_pageable_copy(tr, lookup, *blocking))
            gap.cause = gap_cause::pageable;
        if (gap.cause != gap_cause::other) return;
        gap.blocking.reset();
        gap.caller.reset();
    }
    // A pageable copy's transfer starts once the driver has staged it through pinned memory: the part
    // of the gap after its call began is the staging, the part before is the CPU being late. The
    // larger part names the cause.
    const std::int64_t late = std::max<std::int64_t>(0, launch.start_ns - gap.start_ns);
    if (op.pageable && gap.length() - late >= late) {
        gap.cause = gap_cause::pageable;
    } else if (launch.end_ns > gap.start_ns) {
        // Issued after the GPU went idle, or still being issued when it did (a graph launch can take
        // hundreds of microseconds of CPU time): the CPU is what the GPU waited for.
        gap.cause = gap_cause::host;
    } else {
        gap.cause = gap_cause::other;
    }
}

// The name with the most launches (the smallest name on a tie).
std::optional<name_id> most_common(const trace& tr, const std::map<name_id, std::size_t>& counts) {
    std::optional<name_id> best;
    for (const auto& [name, count] : counts)
        if (!best || count > counts.at(*best) || (count == counts.at(*best) && tr.name(name) < tr.name(*best)))
            best = name;
    return best;
}

std::vector<kernel_total> kernel_totals(const trace& tr, const call_index& lookup, std::size_t from, std::size_t to,
                                        const std::vector<bool>& in_steps) {
    std::unordered_map<name_id, kernel_total> by_name;
    std::unordered_map<name_id, std::map<name_id, std::size_t>> ops_of, frames_of;
    for (std::size_t i = from; i < to; ++i) {
        const gpu_op& op = tr.ops[i];
        if (op.kind != op_kind::kernel || !in_steps[i - from]) continue;
        auto& total = by_name[op.name];
        total.name = op.name;
        ++total.launches;
        add_to(total.total_ns, op.end_ns - op.start_ns);
        total.communication = op.communication;
        if (auto launch_it = lookup.by_correlation.find(op.correlation); launch_it != lookup.by_correlation.end()) {
            const api_call& call = tr.calls[launch_it->second];
            if (auto launcher = innermost_around(tr.cpu_ops, call)) ++ops_of[op.name][*launcher];
            if (auto frame = innermost_around(tr.py_frames, call)) ++frames_of[op.name][*frame];
        }
    }
    std::vector<kernel_total> out;
    out.reserve(by_name.size());
    for (auto& [name, total] : by_name) {
        if (auto it = ops_of.find(name); it != ops_of.end()) total.launched_by = most_common(tr, it->second);
        if (auto it = frames_of.find(name); it != frames_of.end()) total.frame = most_common(tr, it->second);
        out.push_back(total);
    }
    std::sort(out.begin(), out.end(), [&](const kernel_total& left, const kernel_total& right) {
        if (left.total_ns != right.total_ns) return left.total_ns > right.total_ns;
        return tr.name(left.name) < tr.name(right.name);
    });
    return out;
}

// Per cause, the union of the time the threads spent in blocking calls of that cause, within [from, to].
std::array<std::int64_t, all_causes.size()> blocked_time(const trace& tr, const call_index& lookup,
                                                         const std::set<std::int64_t>& threads, std::int64_t from,
                                                         std::int64_t to) {
    std::array<std::int64_t, all_causes.size()> total{};
    for (auto thread : threads) {
        auto it = lookup.blocking_by_thread.find(thread);
        if (it == lookup.blocking_by_thread.end()) continue;
        std::array<std::vector<interval>, all_causes.size()> per_cause;
        for (auto call : it->second) {
            const auto lo = std::max(from, tr.calls[call].start_ns), hi = std::min(to, tr.calls[call].end_ns);
            if (hi > lo) per_cause[static_cast<std::size_t>(cause_of_blocking(tr, lookup, call))].emplace_back(lo, hi);
        }
        for (std::size_t cause = 0; cause < per_cause.size(); ++cause) {
            std::sort(per_cause[cause].begin(), per_cause[cause].end());
            total[cause] += length(merged(per_cause[cause]));
        }
    }
    return total;
}

// The steps' critical path (timeline_model.hpp): each op belongs to the step whose CPU range its launch
// began in; the gaps, in time order, to the window they fall in.
critical_path step_path(const trace& tr, const call_index& lookup, std::size_t from, std::size_t to,
                        const std::vector<idle_gap>& gaps, const step_figures& steps) {
    critical_path crit_path;
    // Each step's window: the first op it launched (by start), and the last op's end.
    std::vector<std::int64_t> first(steps.ranges.size(), INT64_MAX), last(steps.ranges.size(), INT64_MIN);
    for (std::size_t i = from; i < to; ++i) {
        auto launch_it = lookup.by_correlation.find(tr.ops[i].correlation);
        if (launch_it == lookup.by_correlation.end()) continue;
        const std::int64_t at = tr.calls[launch_it->second].start_ns;
        auto step_it =
            std::upper_bound(steps.ranges.begin(), steps.ranges.end(), at,
                             [](std::int64_t when, const cpu_range& range) { return when < range.start_ns; });
        if (step_it == steps.ranges.begin()) continue;
        const auto step = static_cast<std::size_t>(std::prev(step_it) - steps.ranges.begin());
        if (at > steps.ranges[step].end_ns) continue;
        first[step] = std::min(first[step], tr.ops[i].start_ns);
        last[step] = std::max(last[step], tr.ops[i].end_ns);
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> windows;
    for (std::size_t step = 0; step < first.size(); ++step)
        if (first[step] != INT64_MAX) windows.emplace_back(first[step], last[step]);
    std::sort(windows.begin(), windows.end());
    for (std::size_t step = 0; step + 1 < windows.size(); ++step)
        windows[step].second = std::max(windows[step].first, windows[step + 1].first);
    std::size_t next_gap = 0;
    for (const auto& [win_start, win_end] : windows) {
        std::int64_t cpu = 0, wait = 0;
        while (next_gap < gaps.size() && gaps[next_gap].end_ns <= win_start) ++next_gap;
        for (; next_gap < gaps.size() && gaps[next_gap].start_ns < win_end; ++next_gap) {
            const std::int64_t lo = std::max(win_start, gaps[next_gap].start_ns),
                               hi = std::min(win_end, gaps[next_gap].end_ns);
            if (hi <= lo) continue;
            (gaps[next_gap].cause == gap_cause::other ? wait : cpu) += hi - lo;
            if (gaps[next_gap].end_ns > win_end) break;  // the rest of it is the next window's
        }
        const std::int64_t len = win_end - win_start;
        ++crit_path.steps;
        crit_path.total_ns += len;
        crit_path.cpu_ns += cpu;
        crit_path.wait_ns += wait;
        crit_path.gpu_ns += std::max<std::int64_t>(0, len - cpu - wait);
        crit_path.longest_ns = std::max(crit_path.longest_ns, len);
        crit_path.shortest_ns = crit_path.steps == 1 ? len : std::min(crit_path.shortest_ns, len);
    }
    return crit_path;
}

device_timeline model_device(const trace& tr, const call_index& lookup, std::size_t from, std::size_t to,
                             std::int64_t min_gap_ns, const step_figures& steps) {
    device_timeline gpu;
    gpu.device = tr.ops[from].device;
    int sm_count = 0;  // 0: unknown, and so is every grid's fill
    for (const auto& info : tr.devices)
        if (info.id == gpu.device) gpu.name = info.name, sm_count = info.sm_count;
    // Work launched before the trace began (its launch is not in it) that runs before the first op
    // launched within it: the profiler started while the GPU was finishing it, and the idle time after
    // it is the profiler's start, not the program's. Where the trace records no launch at all, it stays.
    std::size_t first = from;
    while (first < to && !lookup.by_correlation.count(tr.ops[first].correlation)) ++first;
    if (first == to) first = from;
    for (std::size_t i = from; i < first; ++i) {
        ++gpu.before_trace.count;
        add_to(gpu.before_trace.total_ns, tr.ops[i].end_ns - tr.ops[i].start_ns);
    }
    from = first;
    gpu.first_ns = tr.ops[from].start_ns;
    std::vector<interval> all, comm, compute;
    std::set<std::int64_t> launch_threads;
    std::int64_t covered_to = tr.ops[from].start_ns;
    std::vector<idle_gap> every_gap;  // long and short, for the steps' critical path
    for (std::size_t i = from; i < to; ++i) {
        const gpu_op& op = tr.ops[i];
        ++gpu.ops;
        if (i > from && op.start_ns > covered_to) {
            idle_gap gap;
            gap.start_ns = covered_to;
            gap.end_ns = op.start_ns;
            gap.next_op = i;
            const auto record = [&every_gap, &gap] {
                if (every_gap.size() < std::size_t(1) << 26) every_gap.push_back(gap);  // 1.6 GB of trace and more
            };
            if (gap.length() > min_gap_ns) {
                classify(tr, lookup, gap);
                auto& cause_sum = gpu.by_cause[static_cast<std::size_t>(gap.cause)];
                ++cause_sum.count;
                cause_sum.total_ns += gap.length();
                gpu.gaps.push_back(gap);
                record();
            } else {
                ++gpu.short_gaps.count;
                gpu.short_gaps.total_ns += gap.length();
                // The CPU's lateness does not stop at the threshold: what a CPU-bound fix removes includes
                // the short intervals the GPU waited for a launch.
                classify(tr, lookup, gap);
                if (gap.cause == gap_cause::host) ++gpu.short_host.count, gpu.short_host.total_ns += gap.length();
                record();
            }
        }
        covered_to = std::max(covered_to, op.end_ns);
        all.emplace_back(op.start_ns, op.end_ns);
        const auto dur = op.end_ns - op.start_ns;
        if (op.kind == op_kind::kernel) {
            ++gpu.kernels;
            (op.communication ? comm : compute).emplace_back(op.start_ns, op.end_ns);
            if (dur < small_kernel_ns) ++gpu.small_kernels, add_to(gpu.small_kernel_ns, dur);
            // NCCL kernels use a few blocks by design (one per channel): what they leave idle is the
            // exposed-communication finding's.
            if (op.grid_blocks > 0 && sm_count > 0 && !op.communication) {
                ++gpu.grids_known;
                if (op.grid_blocks < std::uint32_t(sm_count)) {
                    ++gpu.small_grids.count;
                    add_to(gpu.small_grids.total_ns, dur);
                    add_to(gpu.small_grid_idle_sm_ns,
                           std::llround(double(dur) * (1.0 - double(op.grid_blocks) / double(sm_count))));
                }
            }
        } else if (op.kind == op_kind::memcpy) {
            ++gpu.copies;
            if (op.pageable) ++gpu.pageable_copies, gpu.pageable_bytes += op.bytes, add_to(gpu.pageable_ns, dur);
            // Small copies measure the launch, not the link: only those of 1 MiB or more set the rate.
            const bool host_link =
                op.direction == copy_direction::host_to_device || op.direction == copy_direction::device_to_host;
            if (!op.pageable && host_link && op.bytes >= (std::uint64_t(1) << 20) && dur > 0)
                gpu.pinned_rate = std::max(gpu.pinned_rate.value_or(0.0), double(op.bytes) / double(dur));
        } else {
            ++gpu.memsets;
        }
        if (auto launch_it = lookup.by_correlation.find(op.correlation); launch_it != lookup.by_correlation.end())
            launch_threads.insert(tr.calls[launch_it->second].thread);
    }
    gpu.last_ns = covered_to;
    gpu.busy_ns = length(merged(all));
    std::vector<interval> without_pageable;
    for (std::size_t i = from; i < to; ++i)
        if (!tr.ops[i].pageable) without_pageable.emplace_back(tr.ops[i].start_ns, tr.ops[i].end_ns);
    gpu.pageable_exclusive_ns = gpu.busy_ns - length(merged(without_pageable));
    const auto comm_union = merged(comm), compute_union = merged(compute);
    gpu.communication_ns = length(comm_union);
    gpu.compute_ns = length(compute_union);
    gpu.overlap_ns = intersection(comm_union, compute_union);
    gpu.cpu_blocked_ns = blocked_time(tr, lookup, launch_threads, gpu.first_ns, gpu.last_ns);
    // Where the trace marks steps, the GPU work of the steps is what their CPU ranges launched (the
    // CPU runs ahead of the GPU, so the work of a step can run well after its range ends). An op whose
    // launch is not in the trace was launched before the profiler recorded CPU events (a warm-up step's
    // work still running when the active steps began): not the steps'.
    std::vector<bool> in_steps(to - from, true);
    gpu.steps_first_ns = gpu.first_ns;
    gpu.steps_last_ns = gpu.last_ns;
    if (steps.count > 0) {
        gpu.steps_first_ns = gpu.last_ns;
        gpu.steps_last_ns = gpu.first_ns;
        for (std::size_t i = from; i < to; ++i) {
            auto launch_it = lookup.by_correlation.find(tr.ops[i].correlation);
            in_steps[i - from] = launch_it != lookup.by_correlation.end() &&
                                 tr.calls[launch_it->second].start_ns >= steps.first_ns &&
                                 tr.calls[launch_it->second].start_ns <= steps.last_ns;
            if (!in_steps[i - from]) continue;
            gpu.steps_first_ns = std::min(gpu.steps_first_ns, tr.ops[i].start_ns);
            gpu.steps_last_ns = std::max(gpu.steps_last_ns, tr.ops[i].end_ns);
        }
        if (gpu.steps_last_ns < gpu.steps_first_ns) gpu.steps_first_ns = gpu.steps_last_ns = gpu.first_ns;
    }
    gpu.kernel_totals = kernel_totals(tr, lookup, from, to, in_steps);
    if (steps.count > 0) gpu.path = step_path(tr, lookup, from, to, every_gap, steps);
    return gpu;
}

step_figures model_steps(std::vector<cpu_range>& steps) {
    step_figures figures;
    std::sort(steps.begin(), steps.end(), [](const cpu_range& left, const cpu_range& right) {
        return std::tie(left.start_ns, left.end_ns) < std::tie(right.start_ns, right.end_ns);
    });
    if (steps.empty()) return figures;
    figures.count = steps.size();
    figures.first_ns = steps.front().start_ns;
    figures.last_ns = steps.back().end_ns;
    std::int64_t total = 0;
    figures.min_ns = figures.max_ns = steps.front().end_ns - steps.front().start_ns;
    for (const auto& range : steps) {
        const auto duration = range.end_ns - range.start_ns;
        total += duration;
        figures.min_ns = std::min(figures.min_ns, duration);
        figures.max_ns = std::max(figures.max_ns, duration);
    }
    figures.mean_ns = total / static_cast<std::int64_t>(figures.count);
    figures.ranges = steps;
    return figures;
}

}  // namespace

// The innermost range of `ranges` (sorted by thread, start, outer first) on the call's thread that
// encloses it: the operator or frame that made the call. The walk back is bounded as caller_of's is.
std::optional<name_id> innermost_around(const std::vector<cpu_range>& ranges, const api_call& call) {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(call.thread, call.start_ns),
                               [](const std::pair<std::int64_t, std::int64_t>& key, const cpu_range& range) {
                                   return key < std::make_pair(range.thread, range.start_ns);
                               });
    for (int walked = 0; it != ranges.begin() && walked < 4096; ++walked) {
        const cpu_range& range = *--it;
        if (range.thread != call.thread) break;
        if (range.end_ns >= call.end_ns) return range.name;  // the latest-starting range that covers the call
    }
    return std::nullopt;
}

const char* cause_name(gap_cause cause) {
    switch (cause) {
        case gap_cause::sync:
            return "sync";
        case gap_cause::host:
            return "host";
        case gap_cause::pageable:
            return "pageable";
        case gap_cause::memset:
            return "memset";
        case gap_cause::other:
            return "other";
    }
    return "other";
}

std::vector<std::size_t> longest_of(const device_timeline& gpu, gap_cause cause, std::size_t count) {
    std::vector<std::size_t> indexes;
    for (std::size_t i = 0; i < gpu.gaps.size(); ++i)
        if (gpu.gaps[i].cause == cause) indexes.push_back(i);
    std::stable_sort(indexes.begin(), indexes.end(), [&](std::size_t left, std::size_t right) {
        return gpu.gaps[left].length() > gpu.gaps[right].length();
    });
    if (indexes.size() > count) indexes.resize(count);
    return indexes;
}

timeline_model model_timeline(trace& tr, std::int64_t min_gap_ns) {
    std::sort(tr.ops.begin(), tr.ops.end(), [](const gpu_op& left, const gpu_op& right) {
        return std::tie(left.device, left.start_ns, left.end_ns, left.correlation) <
               std::tie(right.device, right.start_ns, right.end_ns, right.correlation);
    });
    // Outer before inner where two start together: the longer one first.
    const auto outer_first = [](const cpu_range& left, const cpu_range& right) {
        return std::make_tuple(left.thread, left.start_ns, -left.end_ns) <
               std::make_tuple(right.thread, right.start_ns, -right.end_ns);
    };
    std::sort(tr.cpu_ops.begin(), tr.cpu_ops.end(), outer_first);
    std::sort(tr.py_frames.begin(), tr.py_frames.end(), outer_first);
    timeline_model model;
    model.source = &tr;
    model.min_gap_ns = min_gap_ns;
    const call_index lookup = index_calls(tr);
    model.steps = model_steps(tr.steps);
    for (std::size_t from = 0; from < tr.ops.size();) {
        std::size_t to = from;
        while (to < tr.ops.size() && tr.ops[to].device == tr.ops[from].device) ++to;
        model.devices.push_back(model_device(tr, lookup, from, to, min_gap_ns, model.steps));
        from = to;
    }
    attribute_cpu(tr, model.devices, model.steps);
    return model;
}

}  // namespace roofline::timeline
