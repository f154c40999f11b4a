// What the launching CPU thread was doing while the GPU sat idle: each gap the CPU caused, moment by
// moment, to the first category whose range covers the thread then (timeline_model.hpp, cpu_category).
//
// The ranges of one thread nest (a call stack: Python frames, record_function and NVTX ranges,
// operators, CUDA calls), so those open at a gap's start are the ancestors of the last range that began
// before it; the others begin inside it. Each range is visited for the gaps it overlaps: on one device
// the gaps are disjoint, so the work is the ranges inside gaps plus a bounded ancestor walk per gap.
#include "analyzer/timeline/timeline_model.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace roofline::timeline {
namespace {

// The levels in the order they claim a moment (lower first).
enum level : std::uint8_t { data_loading, optimizer, dispatch, user_range, python, levels };

struct item {
    std::int64_t start_ns = 0, end_ns = 0, thread = 0;
    name_id name = 0;
    level lv = python;
    std::int64_t parent = -1;  // index of the innermost item that encloses it (-1: none)
};

// A walk up the enclosing ranges stops here: deeper stacks than this are not programs.
constexpr int max_depth = 512;

struct thread_ranges {
    std::vector<item> items;  // by (thread, start, outer first)
    bool operators_recorded = false;

    explicit thread_ranges(const trace& tr) : operators_recorded(!tr.cpu_ops.empty()) {
        auto add = [&](const cpu_range& range, level lv) {
            items.push_back({range.start_ns, range.end_ns, range.thread, range.name, lv});
        };
        for (const auto& mark : tr.marks)
            add(mark.range, mark.what == cpu_activity::data_loading ? data_loading
                            : mark.what == cpu_activity::optimizer  ? optimizer
                                                                    : user_range);
        for (const auto& op_range : tr.cpu_ops) add(op_range, dispatch);
        for (const auto& call : tr.calls) add({call.start_ns, call.end_ns, call.thread, call.name}, dispatch);
        for (const auto& frame : tr.py_frames) add(frame, python);
        std::sort(items.begin(), items.end(), [](const item& left, const item& right) {
            return std::make_tuple(left.thread, left.start_ns, -left.end_ns, left.lv) <
                   std::make_tuple(right.thread, right.start_ns, -right.end_ns, right.lv);
        });
        std::vector<std::size_t> open;
        for (std::size_t i = 0; i < items.size(); ++i) {
            item& current = items[i];
            while (!open.empty() &&
                   (items[open.back()].thread != current.thread || items[open.back()].end_ns <= current.start_ns))
                open.pop_back();
            if (!open.empty()) current.parent = static_cast<std::int64_t>(open.back());
            if (open.size() < std::size_t(max_depth)) open.push_back(i);
        }
    }

    // The items of `thread` that overlap [from_ns, to_ns).
    std::vector<std::size_t> overlapping(std::int64_t thread, std::int64_t from_ns, std::int64_t to_ns) const {
        std::vector<std::size_t> out;
        auto first_it = std::lower_bound(items.begin(), items.end(), std::make_pair(thread, from_ns),
                                         [](const item& candidate, const std::pair<std::int64_t, std::int64_t>& key) {
                                             return std::make_pair(candidate.thread, candidate.start_ns) < key;
                                         });
        const auto at = static_cast<std::size_t>(first_it - items.begin());
        if (at > 0 && items[at - 1].thread == thread) {
            std::int64_t ancestor = static_cast<std::int64_t>(at - 1);
            for (int depth = 0; ancestor >= 0 && depth < max_depth; ++depth, ancestor = items[ancestor].parent)
                if (items[ancestor].end_ns > from_ns) out.push_back(static_cast<std::size_t>(ancestor));
            std::reverse(out.begin(), out.end());  // outer first
        }
        for (std::size_t i = at; i < items.size() && items[i].thread == thread && items[i].start_ns < to_ns; ++i)
            out.push_back(i);
        return out;
    }
};

struct tallies {
    std::array<std::map<name_id, std::int64_t>, all_categories.size()> top, frames;
};

cpu_category category_of(level lv) {
    switch (lv) {
        case data_loading:
            return cpu_category::data_loading;
        case optimizer:
            return cpu_category::optimizer;
        case dispatch:
            return cpu_category::dispatch;
        case user_range:
            return cpu_category::user_range;
        default:
            return cpu_category::python;
    }
}

std::size_t index(cpu_category category) { return static_cast<std::size_t>(category); }

// A host gap: the thread's ranges over it, swept moment by moment.
std::array<std::int64_t, all_categories.size()> sweep(const thread_ranges& ranges, std::int64_t thread,
                                                      std::int64_t from_ns, std::int64_t to_ns, tallies& tally) {
    std::array<std::int64_t, all_categories.size()> got{};
    struct event {
        std::int64_t at;
        bool opens;
        std::size_t item;
    };
    std::vector<event> events;
    for (std::size_t i : ranges.overlapping(thread, from_ns, to_ns)) {
        const item& entry = ranges.items[i];
        const auto lo = std::max(from_ns, entry.start_ns), hi = std::min(to_ns, entry.end_ns);
        if (hi <= lo) continue;
        events.push_back({lo, true, i});
        events.push_back({hi, false, i});
    }
    // Closes before opens at one moment; opens outer first (their order in items), closes inner first.
    std::stable_sort(events.begin(), events.end(), [](const event& left, const event& right) {
        if (left.at != right.at) return left.at < right.at;
        if (left.opens != right.opens) return !left.opens;
        return left.opens ? left.item < right.item : left.item > right.item;
    });
    std::array<std::vector<std::size_t>, levels> open;
    std::int64_t now = from_ns;
    // The Python moments and their frames, held until the gap's length says whose they are.
    std::map<name_id, std::int64_t> python_time, python_frames;
    auto credit = [&](std::int64_t until) {
        const std::int64_t dt = until - now;
        if (dt <= 0) return;
        std::size_t lv = 0;
        while (lv < levels && open[lv].empty()) ++lv;
        if (lv == levels) {
            // The profiler records every operator and CUDA call: a thread outside all of them runs the
            // program's own code (Python, NumPy, I/O). Without CPU operators in the trace it is unknown.
            got[index(ranges.operators_recorded ? cpu_category::python : cpu_category::unknown)] += dt;
            return;
        }
        const cpu_category category = category_of(static_cast<level>(lv));
        got[index(category)] += dt;
        // The range that carried it: the outermost of its level (aten::linear, not the aten::addmm inside),
        // the innermost frame for Python (where the time went in the user's code).
        const name_id who = lv == python ? ranges.items[open[lv].back()].name : ranges.items[open[lv].front()].name;
        if (category == cpu_category::python)
            python_time[who] += dt;
        else
            tally.top[index(category)][who] += dt;
        if (!open[python].empty())
            (category == cpu_category::python
                 ? python_frames
                 : tally.frames[index(category)])[ranges.items[open[python].back()].name] += dt;
    };
    for (const auto& boundary : events) {
        credit(boundary.at);
        now = std::max(now, boundary.at);
        auto& stack = open[ranges.items[boundary.item].lv];
        if (boundary.opens) {
            stack.push_back(boundary.item);
        } else if (auto it = std::find(stack.rbegin(), stack.rend(), boundary.item); it != stack.rend()) {
            stack.erase(std::next(it).base());
        }
    }
    credit(to_ns);
    // In a short gap the program's Python is what runs between two launches: dispatch.
    const cpu_category whose =
        to_ns - from_ns < python_between_launches_ns ? cpu_category::dispatch : cpu_category::python;
    if (whose == cpu_category::dispatch) {
        got[index(cpu_category::dispatch)] += got[index(cpu_category::python)];
        got[index(cpu_category::python)] = 0;
    }
    for (const auto& [name, ns] : python_time) tally.top[index(whose)][name] += ns;
    for (const auto& [name, ns] : python_frames) tally.frames[index(whose)][name] += ns;
    return got;
}

std::vector<named_time> largest(const trace& tr, const std::map<name_id, std::int64_t>& by_name, std::size_t count) {
    std::vector<named_time> ranked;
    for (const auto& [name, ns] : by_name) ranked.push_back({name, ns});
    std::sort(ranked.begin(), ranked.end(), [&](const named_time& left, const named_time& right) {
        if (left.ns != right.ns) return left.ns > right.ns;
        return tr.name(left.name) < tr.name(right.name);
    });
    if (ranked.size() > count) ranked.resize(count);
    return ranked;
}

}  // namespace

const char* category_name(cpu_category category) {
    switch (category) {
        case cpu_category::data_loading:
            return "data_loading";
        case cpu_category::optimizer:
            return "optimizer";
        case cpu_category::sync:
            return "sync";
        case cpu_category::copies:
            return "copies";
        case cpu_category::user_range:
            return "user_range";
        case cpu_category::dispatch:
            return "dispatch";
        case cpu_category::python:
            return "python";
        case cpu_category::unknown:
            return "unknown";
    }
    return "unknown";
}

namespace {

void attribute_device(const trace& tr, const thread_ranges& ranges, device_timeline& gpu, const step_figures& steps) {
    gpu.cpu_recorded = !tr.cpu_ops.empty() || !tr.py_frames.empty() || !tr.marks.empty();
    tallies tally;
    std::set<std::int64_t> threads;
    for (auto& gap : gpu.gaps) {
        if (!gap.launch || gap.cause == gap_cause::other) continue;
        const api_call& launch = tr.calls[*gap.launch];
        threads.insert(launch.thread);
        std::array<std::int64_t, all_categories.size()> got{};
        if (gap.cause == gap_cause::host) {
            got = sweep(ranges, launch.thread, gap.start_ns, gap.end_ns, tally);
        } else {
            // The CPU waited for the GPU: the gap is the wait's, named by the operator around the call.
            const cpu_category wait_category = gap.cause == gap_cause::sync ? cpu_category::sync : cpu_category::copies;
            got[index(wait_category)] = gap.length();
            if (gap.blocking) {
                const api_call& call = tr.calls[*gap.blocking];
                tally.top[index(wait_category)][gap.caller ? tr.cpu_ops[*gap.caller].name : call.name] += gap.length();
                if (auto frame = innermost_around(tr.py_frames, call))
                    tally.frames[index(wait_category)][*frame] += gap.length();
            }
        }
        std::size_t best = 0;
        for (std::size_t category_index = 0; category_index < got.size(); ++category_index) {
            gpu.cpu[category_index].ns += got[category_index];
            if (got[category_index] > got[best]) best = category_index;
        }
        gap.category = all_categories[best];
        ++gpu.cpu[best].gaps;
    }
    for (std::size_t category_index = 0; category_index < gpu.cpu.size(); ++category_index) {
        gpu.cpu[category_index].top = largest(tr, tally.top[category_index], 5);
        gpu.cpu[category_index].frames = largest(tr, tally.frames[category_index], 5);
    }
    // The loader's own CPU time: its outermost batch ranges on the launching threads, within the steps.
    const std::int64_t from = steps.count ? steps.first_ns : gpu.first_ns,
                       to = steps.count ? steps.last_ns : gpu.last_ns;
    for (const auto& entry : ranges.items) {
        if (entry.lv != data_loading || !threads.count(entry.thread) || entry.start_ns < from || entry.end_ns > to)
            continue;
        if (entry.parent >= 0 && ranges.items[static_cast<std::size_t>(entry.parent)].lv == data_loading) continue;
        add_to(gpu.loader_in_process_ns, entry.end_ns - entry.start_ns);
        ++gpu.loader_batches;
    }
    for (const auto& mark : tr.marks)
        if (mark.worker_processes && threads.count(mark.range.thread)) gpu.loader_workers = true;
}

}  // namespace

void attribute_cpu(const trace& tr, std::vector<device_timeline>& devices, const step_figures& steps) {
    if (devices.empty()) return;
    const thread_ranges ranges(tr);
    for (auto& gpu : devices) attribute_device(tr, ranges, gpu, steps);
}

}  // namespace roofline::timeline
