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

std::int64_t length(const std::vector<interval>& u) {
    std::int64_t total = 0;
    for (const auto& iv : u) total += iv.second - iv.first;
    return total;
}

std::int64_t intersection(const std::vector<interval>& a, const std::vector<interval>& b) {
    std::int64_t total = 0;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const auto lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
        if (hi > lo) total += hi - lo;
        (a[i].second < b[j].second ? i : j)++;
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

call_index index_calls(const trace& t) {
    call_index x;
    for (std::size_t i = 0; i < t.calls.size(); ++i)
        if (t.calls[i].correlation >= 0) x.by_correlation.emplace(t.calls[i].correlation, i);
    for (const auto& op : t.ops)
        if (op.pageable)
            if (auto it = x.by_correlation.find(op.correlation); it != x.by_correlation.end())
                x.pageable_launches.insert(it->second);
    for (std::size_t i = 0; i < t.calls.size(); ++i) {
        const auto k = t.calls[i].kind;
        if (k == call_kind::sync || k == call_kind::sync_copy || k == call_kind::sync_memset ||
            x.pageable_launches.count(i))
            x.blocking_by_thread[t.calls[i].thread].push_back(i);
    }
    for (auto& [thread, v] : x.blocking_by_thread)
        std::sort(v.begin(), v.end(), [&](std::size_t a, std::size_t b) {
            return std::tie(t.calls[a].end_ns, a) < std::tie(t.calls[b].end_ns, b);
        });
    for (std::size_t i = 0; i < t.calls.size(); ++i) x.by_thread[t.calls[i].thread].push_back(i);
    for (auto& [thread, v] : x.by_thread)
        std::sort(v.begin(), v.end(), [&](std::size_t a, std::size_t b) {
            return std::tie(t.calls[a].start_ns, a) < std::tie(t.calls[b].start_ns, b);
        });
    return x;
}

// The last call on `thread` the CPU waited in that began before the GPU went idle (`idle_from`) and
// returned after it, but before `launched`: the wait that left nothing queued.
std::optional<std::size_t> blocking_before(const trace& t, const call_index& x, std::int64_t thread,
                                           std::int64_t idle_from, std::int64_t launched) {
    auto it = x.blocking_by_thread.find(thread);
    if (it == x.blocking_by_thread.end()) return std::nullopt;
    const auto& v = it->second;
    auto past = std::upper_bound(v.begin(), v.end(), launched,
                                 [&](std::int64_t when, std::size_t c) { return when < t.calls[c].end_ns; });
    for (auto p = past; p != v.begin();) {
        const api_call& c = t.calls[*--p];
        if (c.end_ns < idle_from) break;
        if (c.start_ns <= idle_from) return *p;
    }
    return std::nullopt;
}

// The outermost CPU operator on the call's thread that encloses it (aten::item around the
// cudaStreamSynchronize of `.item()`). cpu_ops are sorted by (thread, start).
std::optional<std::size_t> caller_of(const trace& t, const api_call& c) {
    auto it = std::upper_bound(t.cpu_ops.begin(), t.cpu_ops.end(), std::make_pair(c.thread, c.start_ns),
                               [](const std::pair<std::int64_t, std::int64_t>& key, const cpu_range& r) {
                                   return key < std::make_pair(r.thread, r.start_ns);
                               });
    std::optional<std::size_t> outermost;
    // Every operator that encloses the call starts before it: walking back by start, the last one met
    // that still covers the call is the outermost. The walk is bounded, so a pathological trace cannot
    // make it quadratic (4096 operators started between the outermost one and the call).
    for (int walked = 0; it != t.cpu_ops.begin() && walked < 4096; ++walked) {
        const cpu_range& r = *--it;
        if (r.thread != c.thread) break;
        if (r.end_ns >= c.end_ns) outermost = static_cast<std::size_t>(it - t.cpu_ops.begin());
    }
    return outermost;
}

// Whether the call the thread made just before `call` is a pageable copy: a synchronising call right
// after it waits for that copy (`.cuda()` of pageable memory is cudaMemcpyAsync, then
// cudaStreamSynchronize). Read from the CUDA calls alone, so it holds on traces without CPU operators.
bool follows_pageable_copy(const trace& t, const call_index& x, std::size_t call) {
    auto it = x.by_thread.find(t.calls[call].thread);
    if (it == x.by_thread.end()) return false;
    const auto& v = it->second;
    auto at = std::lower_bound(v.begin(), v.end(), call, [&](std::size_t a, std::size_t b) {
        return std::tie(t.calls[a].start_ns, a) < std::tie(t.calls[b].start_ns, b);
    });
    return at != v.begin() && at != v.end() && *at == call && x.pageable_launches.count(*std::prev(at));
}

gap_cause cause_of_blocking(const trace& t, const call_index& x, std::size_t call) {
    switch (t.calls[call].kind) {
        case call_kind::sync:
            return gap_cause::sync;
        case call_kind::sync_memset:
            return gap_cause::memset;
        case call_kind::sync_copy:
            return gap_cause::pageable;
        default:
            return x.pageable_launches.count(call) ? gap_cause::pageable : gap_cause::other;
    }
}

void classify(const trace& t, const call_index& x, idle_gap& g) {
    const gpu_op& op = t.ops[g.next_op];
    auto l = x.by_correlation.find(op.correlation);
    if (l == x.by_correlation.end()) {
        g.cause = gap_cause::other;
        return;
    }
    g.launch = l->second;
    const api_call& launch = t.calls[l->second];
    if (auto b = blocking_before(t, x, launch.thread, g.start_ns, launch.start_ns)) {
        g.blocking = b;
        g.cause = cause_of_blocking(t, x, *b);
        g.caller = caller_of(t, t.calls[*b]);
        // A synchronising call made right after a pageable copy on the same thread is that copy's own
        // wait (`.cuda()` of pageable memory: cudaMemcpyAsync, then cudaStreamSynchronize): pinned,
        // asynchronous copies remove both, so the gap is the copy's.
        if (g.cause == gap_cause::sync && follows_pageable_copy(t, x, *b)) g.cause = gap_cause::pageable;
        if (g.cause != gap_cause::other) return;
        g.blocking.reset();
        g.caller.reset();
    }
    // A pageable copy's transfer starts once the driver has staged it through pinned memory: the part
    // of the gap after its call began is the staging, the part before is the CPU being late. The
    // larger part names the cause.
    const std::int64_t late = std::max<std::int64_t>(0, launch.start_ns - g.start_ns);
    if (op.pageable && g.length() - late >= late) {
        g.cause = gap_cause::pageable;
    } else if (launch.end_ns > g.start_ns) {
        // Issued after the GPU went idle, or still being issued when it did (a graph launch can take
        // hundreds of microseconds of CPU time): the CPU is what the GPU waited for.
        g.cause = gap_cause::host;
    } else {
        g.cause = gap_cause::other;
    }
}

// The name with the most launches (the smallest name on a tie).
std::optional<name_id> most_common(const trace& t, const std::map<name_id, std::size_t>& counts) {
    std::optional<name_id> best;
    for (const auto& [name, n] : counts)
        if (!best || n > counts.at(*best) || (n == counts.at(*best) && t.name(name) < t.name(*best))) best = name;
    return best;
}

std::vector<kernel_total> kernel_totals(const trace& t, const call_index& x, std::size_t from, std::size_t to,
                                        const std::vector<bool>& in_steps) {
    std::unordered_map<name_id, kernel_total> by_name;
    std::unordered_map<name_id, std::map<name_id, std::size_t>> ops_of, frames_of;
    for (std::size_t i = from; i < to; ++i) {
        const gpu_op& op = t.ops[i];
        if (op.kind != op_kind::kernel || !in_steps[i - from]) continue;
        auto& k = by_name[op.name];
        k.name = op.name;
        ++k.launches;
        add_to(k.total_ns, op.end_ns - op.start_ns);
        k.communication = op.communication;
        if (auto l = x.by_correlation.find(op.correlation); l != x.by_correlation.end()) {
            const api_call& call = t.calls[l->second];
            if (auto o = innermost_around(t.cpu_ops, call)) ++ops_of[op.name][*o];
            if (auto f = innermost_around(t.py_frames, call)) ++frames_of[op.name][*f];
        }
    }
    std::vector<kernel_total> out;
    out.reserve(by_name.size());
    for (auto& [name, k] : by_name) {
        if (auto it = ops_of.find(name); it != ops_of.end()) k.launched_by = most_common(t, it->second);
        if (auto it = frames_of.find(name); it != frames_of.end()) k.frame = most_common(t, it->second);
        out.push_back(k);
    }
    std::sort(out.begin(), out.end(), [&](const kernel_total& a, const kernel_total& b) {
        if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
        return t.name(a.name) < t.name(b.name);
    });
    return out;
}

// Per cause, the union of the time the threads spent in blocking calls of that cause, within [from, to].
std::array<std::int64_t, all_causes.size()> blocked_time(const trace& t, const call_index& x,
                                                         const std::set<std::int64_t>& threads, std::int64_t from,
                                                         std::int64_t to) {
    std::array<std::int64_t, all_causes.size()> total{};
    for (auto thread : threads) {
        auto it = x.blocking_by_thread.find(thread);
        if (it == x.blocking_by_thread.end()) continue;
        std::array<std::vector<interval>, all_causes.size()> v;
        for (auto c : it->second) {
            const auto lo = std::max(from, t.calls[c].start_ns), hi = std::min(to, t.calls[c].end_ns);
            if (hi > lo) v[static_cast<std::size_t>(cause_of_blocking(t, x, c))].emplace_back(lo, hi);
        }
        for (std::size_t k = 0; k < v.size(); ++k) {
            std::sort(v[k].begin(), v[k].end());
            total[k] += length(merged(v[k]));
        }
    }
    return total;
}

// The steps' critical path (timeline_model.hpp): each op belongs to the step whose CPU range its launch
// began in; the gaps, in time order, to the window they fall in.
critical_path step_path(const trace& t, const call_index& x, std::size_t from, std::size_t to,
                        const std::vector<idle_gap>& gaps, const step_figures& steps) {
    critical_path p;
    // Each step's window: the first op it launched (by start), and the last op's end.
    std::vector<std::int64_t> first(steps.ranges.size(), INT64_MAX), last(steps.ranges.size(), INT64_MIN);
    for (std::size_t i = from; i < to; ++i) {
        auto l = x.by_correlation.find(t.ops[i].correlation);
        if (l == x.by_correlation.end()) continue;
        const std::int64_t at = t.calls[l->second].start_ns;
        auto s = std::upper_bound(steps.ranges.begin(), steps.ranges.end(), at,
                                  [](std::int64_t v, const cpu_range& r) { return v < r.start_ns; });
        if (s == steps.ranges.begin()) continue;
        const auto k = static_cast<std::size_t>(std::prev(s) - steps.ranges.begin());
        if (at > steps.ranges[k].end_ns) continue;
        first[k] = std::min(first[k], t.ops[i].start_ns);
        last[k] = std::max(last[k], t.ops[i].end_ns);
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> windows;
    for (std::size_t k = 0; k < first.size(); ++k)
        if (first[k] != INT64_MAX) windows.emplace_back(first[k], last[k]);
    std::sort(windows.begin(), windows.end());
    for (std::size_t k = 0; k + 1 < windows.size(); ++k)
        windows[k].second = std::max(windows[k].first, windows[k + 1].first);
    std::size_t g = 0;
    for (const auto& [a, b] : windows) {
        std::int64_t cpu = 0, wait = 0;
        while (g < gaps.size() && gaps[g].end_ns <= a) ++g;
        for (; g < gaps.size() && gaps[g].start_ns < b; ++g) {
            const std::int64_t lo = std::max(a, gaps[g].start_ns), hi = std::min(b, gaps[g].end_ns);
            if (hi <= lo) continue;
            (gaps[g].cause == gap_cause::other ? wait : cpu) += hi - lo;
            if (gaps[g].end_ns > b) break;  // the rest of it is the next window's
        }
        const std::int64_t len = b - a;
        ++p.steps;
        p.total_ns += len;
        p.cpu_ns += cpu;
        p.wait_ns += wait;
        p.gpu_ns += std::max<std::int64_t>(0, len - cpu - wait);
        p.longest_ns = std::max(p.longest_ns, len);
        p.shortest_ns = p.steps == 1 ? len : std::min(p.shortest_ns, len);
    }
    return p;
}

device_timeline model_device(const trace& t, const call_index& x, std::size_t from, std::size_t to,
                             std::int64_t min_gap_ns, const step_figures& steps) {
    device_timeline d;
    d.device = t.ops[from].device;
    int sm_count = 0;  // 0: unknown, and so is every grid's fill
    for (const auto& info : t.devices)
        if (info.id == d.device) d.name = info.name, sm_count = info.sm_count;
    // Work launched before the trace began (its launch is not in it) that runs before the first op
    // launched within it: the profiler started while the GPU was finishing it, and the idle time after
    // it is the profiler's start, not the program's. Where the trace records no launch at all, it stays.
    std::size_t first = from;
    while (first < to && !x.by_correlation.count(t.ops[first].correlation)) ++first;
    if (first == to) first = from;
    for (std::size_t i = from; i < first; ++i) {
        ++d.before_trace.count;
        add_to(d.before_trace.total_ns, t.ops[i].end_ns - t.ops[i].start_ns);
    }
    from = first;
    d.first_ns = t.ops[from].start_ns;
    std::vector<interval> all, comm, compute;
    std::set<std::int64_t> launch_threads;
    std::int64_t covered_to = t.ops[from].start_ns;
    std::vector<idle_gap> every_gap;  // long and short, for the steps' critical path
    for (std::size_t i = from; i < to; ++i) {
        const gpu_op& op = t.ops[i];
        ++d.ops;
        if (i > from && op.start_ns > covered_to) {
            idle_gap g;
            g.start_ns = covered_to;
            g.end_ns = op.start_ns;
            g.next_op = i;
            const auto record = [&every_gap, &g] {
                if (every_gap.size() < std::size_t(1) << 26) every_gap.push_back(g);  // 1.6 GB of trace and more
            };
            if (g.length() > min_gap_ns) {
                classify(t, x, g);
                auto& c = d.by_cause[static_cast<std::size_t>(g.cause)];
                ++c.count;
                c.total_ns += g.length();
                d.gaps.push_back(g);
                record();
            } else {
                ++d.short_gaps.count;
                d.short_gaps.total_ns += g.length();
                // The CPU's lateness does not stop at the threshold: what a CPU-bound fix removes includes
                // the short intervals the GPU waited for a launch.
                classify(t, x, g);
                if (g.cause == gap_cause::host) ++d.short_host.count, d.short_host.total_ns += g.length();
                record();
            }
        }
        covered_to = std::max(covered_to, op.end_ns);
        all.emplace_back(op.start_ns, op.end_ns);
        const auto dur = op.end_ns - op.start_ns;
        if (op.kind == op_kind::kernel) {
            ++d.kernels;
            (op.communication ? comm : compute).emplace_back(op.start_ns, op.end_ns);
            if (dur < small_kernel_ns) ++d.small_kernels, add_to(d.small_kernel_ns, dur);
            // NCCL kernels use a few blocks by design (one per channel): what they leave idle is the
            // exposed-communication finding's.
            if (op.grid_blocks > 0 && sm_count > 0 && !op.communication) {
                ++d.grids_known;
                if (op.grid_blocks < std::uint32_t(sm_count)) {
                    ++d.small_grids.count;
                    add_to(d.small_grids.total_ns, dur);
                    add_to(d.small_grid_idle_sm_ns,
                           std::llround(double(dur) * (1.0 - double(op.grid_blocks) / double(sm_count))));
                }
            }
        } else if (op.kind == op_kind::memcpy) {
            ++d.copies;
            if (op.pageable) ++d.pageable_copies, d.pageable_bytes += op.bytes, add_to(d.pageable_ns, dur);
            // Small copies measure the launch, not the link: only those of 1 MiB or more set the rate.
            const bool host_link =
                op.direction == copy_direction::host_to_device || op.direction == copy_direction::device_to_host;
            if (!op.pageable && host_link && op.bytes >= (std::uint64_t(1) << 20) && dur > 0)
                d.pinned_rate = std::max(d.pinned_rate.value_or(0.0), double(op.bytes) / double(dur));
        } else {
            ++d.memsets;
        }
        if (auto l = x.by_correlation.find(op.correlation); l != x.by_correlation.end())
            launch_threads.insert(t.calls[l->second].thread);
    }
    d.last_ns = covered_to;
    d.busy_ns = length(merged(all));
    std::vector<interval> without_pageable;
    for (std::size_t i = from; i < to; ++i)
        if (!t.ops[i].pageable) without_pageable.emplace_back(t.ops[i].start_ns, t.ops[i].end_ns);
    d.pageable_exclusive_ns = d.busy_ns - length(merged(without_pageable));
    const auto comm_union = merged(comm), compute_union = merged(compute);
    d.communication_ns = length(comm_union);
    d.compute_ns = length(compute_union);
    d.overlap_ns = intersection(comm_union, compute_union);
    d.cpu_blocked_ns = blocked_time(t, x, launch_threads, d.first_ns, d.last_ns);
    // Where the trace marks steps, the GPU work of the steps is what their CPU ranges launched (the
    // CPU runs ahead of the GPU, so the work of a step can run well after its range ends). An op whose
    // launch is not in the trace was launched before the profiler recorded CPU events (a warm-up step's
    // work still running when the active steps began): not the steps'.
    std::vector<bool> in_steps(to - from, true);
    d.steps_first_ns = d.first_ns;
    d.steps_last_ns = d.last_ns;
    if (steps.count > 0) {
        d.steps_first_ns = d.last_ns;
        d.steps_last_ns = d.first_ns;
        for (std::size_t i = from; i < to; ++i) {
            auto l = x.by_correlation.find(t.ops[i].correlation);
            in_steps[i - from] = l != x.by_correlation.end() && t.calls[l->second].start_ns >= steps.first_ns &&
                                 t.calls[l->second].start_ns <= steps.last_ns;
            if (!in_steps[i - from]) continue;
            d.steps_first_ns = std::min(d.steps_first_ns, t.ops[i].start_ns);
            d.steps_last_ns = std::max(d.steps_last_ns, t.ops[i].end_ns);
        }
        if (d.steps_last_ns < d.steps_first_ns) d.steps_first_ns = d.steps_last_ns = d.first_ns;
    }
    d.kernel_totals = kernel_totals(t, x, from, to, in_steps);
    if (steps.count > 0) d.path = step_path(t, x, from, to, every_gap, steps);
    return d;
}

step_figures model_steps(std::vector<cpu_range>& steps) {
    step_figures s;
    std::sort(steps.begin(), steps.end(), [](const cpu_range& a, const cpu_range& b) {
        return std::tie(a.start_ns, a.end_ns) < std::tie(b.start_ns, b.end_ns);
    });
    if (steps.empty()) return s;
    s.count = steps.size();
    s.first_ns = steps.front().start_ns;
    s.last_ns = steps.back().end_ns;
    std::int64_t total = 0;
    s.min_ns = s.max_ns = steps.front().end_ns - steps.front().start_ns;
    for (const auto& r : steps) {
        const auto d = r.end_ns - r.start_ns;
        total += d;
        s.min_ns = std::min(s.min_ns, d);
        s.max_ns = std::max(s.max_ns, d);
    }
    s.mean_ns = total / static_cast<std::int64_t>(s.count);
    s.ranges = steps;
    return s;
}

}  // namespace

// The innermost range of `ranges` (sorted by thread, start, outer first) on the call's thread that
// encloses it: the operator or frame that made the call. The walk back is bounded as caller_of's is.
std::optional<name_id> innermost_around(const std::vector<cpu_range>& ranges, const api_call& c) {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(c.thread, c.start_ns),
                               [](const std::pair<std::int64_t, std::int64_t>& key, const cpu_range& r) {
                                   return key < std::make_pair(r.thread, r.start_ns);
                               });
    for (int walked = 0; it != ranges.begin() && walked < 4096; ++walked) {
        const cpu_range& r = *--it;
        if (r.thread != c.thread) break;
        if (r.end_ns >= c.end_ns) return r.name;  // the latest-starting range that covers the call
    }
    return std::nullopt;
}

const char* cause_name(gap_cause c) {
    switch (c) {
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

std::vector<std::size_t> longest_of(const device_timeline& d, gap_cause c, std::size_t n) {
    std::vector<std::size_t> v;
    for (std::size_t i = 0; i < d.gaps.size(); ++i)
        if (d.gaps[i].cause == c) v.push_back(i);
    std::stable_sort(v.begin(), v.end(),
                     [&](std::size_t a, std::size_t b) { return d.gaps[a].length() > d.gaps[b].length(); });
    if (v.size() > n) v.resize(n);
    return v;
}

timeline_model model_timeline(trace& t, std::int64_t min_gap_ns) {
    std::sort(t.ops.begin(), t.ops.end(), [](const gpu_op& a, const gpu_op& b) {
        return std::tie(a.device, a.start_ns, a.end_ns, a.correlation) <
               std::tie(b.device, b.start_ns, b.end_ns, b.correlation);
    });
    // Outer before inner where two start together: the longer one first.
    const auto outer_first = [](const cpu_range& a, const cpu_range& b) {
        return std::make_tuple(a.thread, a.start_ns, -a.end_ns) < std::make_tuple(b.thread, b.start_ns, -b.end_ns);
    };
    std::sort(t.cpu_ops.begin(), t.cpu_ops.end(), outer_first);
    std::sort(t.py_frames.begin(), t.py_frames.end(), outer_first);
    timeline_model m;
    m.source = &t;
    m.min_gap_ns = min_gap_ns;
    const call_index x = index_calls(t);
    m.steps = model_steps(t.steps);
    for (std::size_t from = 0; from < t.ops.size();) {
        std::size_t to = from;
        while (to < t.ops.size() && t.ops[to].device == t.ops[from].device) ++to;
        m.devices.push_back(model_device(t, x, from, to, min_gap_ns, m.steps));
        from = to;
    }
    attribute_cpu(t, m.devices, m.steps);
    return m;
}

}  // namespace roofline::timeline
