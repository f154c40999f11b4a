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

    explicit thread_ranges(const trace& t) : operators_recorded(!t.cpu_ops.empty()) {
        auto add = [&](const cpu_range& r, level lv) { items.push_back({r.start_ns, r.end_ns, r.thread, r.name, lv}); };
        for (const auto& m : t.marks)
            add(m.range, m.what == cpu_activity::data_loading ? data_loading
                         : m.what == cpu_activity::optimizer  ? optimizer
                                                              : user_range);
        for (const auto& r : t.cpu_ops) add(r, dispatch);
        for (const auto& c : t.calls) add({c.start_ns, c.end_ns, c.thread, c.name}, dispatch);
        for (const auto& r : t.py_frames) add(r, python);
        std::sort(items.begin(), items.end(), [](const item& a, const item& b) {
            return std::make_tuple(a.thread, a.start_ns, -a.end_ns, a.lv) <
                   std::make_tuple(b.thread, b.start_ns, -b.end_ns, b.lv);
        });
        std::vector<std::size_t> open;
        for (std::size_t i = 0; i < items.size(); ++i) {
            item& r = items[i];
            while (!open.empty() && (items[open.back()].thread != r.thread || items[open.back()].end_ns <= r.start_ns))
                open.pop_back();
            if (!open.empty()) r.parent = static_cast<std::int64_t>(open.back());
            if (open.size() < std::size_t(max_depth)) open.push_back(i);
        }
    }

    // The items of `thread` that overlap [a, b).
    std::vector<std::size_t> overlapping(std::int64_t thread, std::int64_t a, std::int64_t b) const {
        std::vector<std::size_t> out;
        auto p = std::lower_bound(items.begin(), items.end(), std::make_pair(thread, a),
                                  [](const item& r, const std::pair<std::int64_t, std::int64_t>& key) {
                                      return std::make_pair(r.thread, r.start_ns) < key;
                                  });
        const auto at = static_cast<std::size_t>(p - items.begin());
        if (at > 0 && items[at - 1].thread == thread) {
            std::int64_t q = static_cast<std::int64_t>(at - 1);
            for (int depth = 0; q >= 0 && depth < max_depth; ++depth, q = items[q].parent)
                if (items[q].end_ns > a) out.push_back(static_cast<std::size_t>(q));
            std::reverse(out.begin(), out.end());  // outer first
        }
        for (std::size_t i = at; i < items.size() && items[i].thread == thread && items[i].start_ns < b; ++i)
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

std::size_t index(cpu_category c) { return static_cast<std::size_t>(c); }

// A host gap: the thread's ranges over it, swept moment by moment.
std::array<std::int64_t, all_categories.size()> sweep(const thread_ranges& x, std::int64_t thread, std::int64_t a,
                                                      std::int64_t b, tallies& tally) {
    std::array<std::int64_t, all_categories.size()> got{};
    struct event {
        std::int64_t at;
        bool opens;
        std::size_t item;
    };
    std::vector<event> events;
    for (std::size_t i : x.overlapping(thread, a, b)) {
        const item& r = x.items[i];
        const auto lo = std::max(a, r.start_ns), hi = std::min(b, r.end_ns);
        if (hi <= lo) continue;
        events.push_back({lo, true, i});
        events.push_back({hi, false, i});
    }
    // Closes before opens at one moment; opens outer first (their order in items), closes inner first.
    std::stable_sort(events.begin(), events.end(), [](const event& p, const event& q) {
        if (p.at != q.at) return p.at < q.at;
        if (p.opens != q.opens) return !p.opens;
        return p.opens ? p.item < q.item : p.item > q.item;
    });
    std::array<std::vector<std::size_t>, levels> open;
    std::int64_t now = a;
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
            got[index(x.operators_recorded ? cpu_category::python : cpu_category::unknown)] += dt;
            return;
        }
        const cpu_category c = category_of(static_cast<level>(lv));
        got[index(c)] += dt;
        // The range that carried it: the outermost of its level (aten::linear, not the aten::addmm inside),
        // the innermost frame for Python (where the time went in the user's code).
        const name_id who = lv == python ? x.items[open[lv].back()].name : x.items[open[lv].front()].name;
        if (c == cpu_category::python)
            python_time[who] += dt;
        else
            tally.top[index(c)][who] += dt;
        if (!open[python].empty())
            (c == cpu_category::python ? python_frames : tally.frames[index(c)])[x.items[open[python].back()].name] +=
                dt;
    };
    for (const auto& e : events) {
        credit(e.at);
        now = std::max(now, e.at);
        auto& stack = open[x.items[e.item].lv];
        if (e.opens) {
            stack.push_back(e.item);
        } else if (auto it = std::find(stack.rbegin(), stack.rend(), e.item); it != stack.rend()) {
            stack.erase(std::next(it).base());
        }
    }
    credit(b);
    // In a short gap the program's Python is what runs between two launches: dispatch.
    const cpu_category whose = b - a < python_between_launches_ns ? cpu_category::dispatch : cpu_category::python;
    if (whose == cpu_category::dispatch) {
        got[index(cpu_category::dispatch)] += got[index(cpu_category::python)];
        got[index(cpu_category::python)] = 0;
    }
    for (const auto& [name, ns] : python_time) tally.top[index(whose)][name] += ns;
    for (const auto& [name, ns] : python_frames) tally.frames[index(whose)][name] += ns;
    return got;
}

std::vector<named_time> largest(const trace& t, const std::map<name_id, std::int64_t>& m, std::size_t n) {
    std::vector<named_time> v;
    for (const auto& [name, ns] : m) v.push_back({name, ns});
    std::sort(v.begin(), v.end(), [&](const named_time& p, const named_time& q) {
        if (p.ns != q.ns) return p.ns > q.ns;
        return t.name(p.name) < t.name(q.name);
    });
    if (v.size() > n) v.resize(n);
    return v;
}

}  // namespace

const char* category_name(cpu_category c) {
    switch (c) {
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

void attribute_device(const trace& t, const thread_ranges& x, device_timeline& d, const step_figures& steps) {
    d.cpu_recorded = !t.cpu_ops.empty() || !t.py_frames.empty() || !t.marks.empty();
    tallies tally;
    std::set<std::int64_t> threads;
    for (auto& g : d.gaps) {
        if (!g.launch || g.cause == gap_cause::other) continue;
        const api_call& launch = t.calls[*g.launch];
        threads.insert(launch.thread);
        std::array<std::int64_t, all_categories.size()> got{};
        if (g.cause == gap_cause::host) {
            got = sweep(x, launch.thread, g.start_ns, g.end_ns, tally);
        } else {
            // The CPU waited for the GPU: the gap is the wait's, named by the operator around the call.
            const cpu_category c = g.cause == gap_cause::sync ? cpu_category::sync : cpu_category::copies;
            got[index(c)] = g.length();
            if (g.blocking) {
                const api_call& call = t.calls[*g.blocking];
                tally.top[index(c)][g.caller ? t.cpu_ops[*g.caller].name : call.name] += g.length();
                if (auto f = innermost_around(t.py_frames, call)) tally.frames[index(c)][*f] += g.length();
            }
        }
        std::size_t best = 0;
        for (std::size_t k = 0; k < got.size(); ++k) {
            d.cpu[k].ns += got[k];
            if (got[k] > got[best]) best = k;
        }
        g.category = all_categories[best];
        ++d.cpu[best].gaps;
    }
    for (std::size_t k = 0; k < d.cpu.size(); ++k) {
        d.cpu[k].top = largest(t, tally.top[k], 5);
        d.cpu[k].frames = largest(t, tally.frames[k], 5);
    }
    // The loader's own CPU time: its outermost batch ranges on the launching threads, within the steps.
    const std::int64_t from = steps.count ? steps.first_ns : d.first_ns, to = steps.count ? steps.last_ns : d.last_ns;
    for (const auto& r : x.items) {
        if (r.lv != data_loading || !threads.count(r.thread) || r.start_ns < from || r.end_ns > to) continue;
        if (r.parent >= 0 && x.items[static_cast<std::size_t>(r.parent)].lv == data_loading) continue;
        add_to(d.loader_in_process_ns, r.end_ns - r.start_ns);
        ++d.loader_batches;
    }
    for (const auto& m : t.marks)
        if (m.worker_processes && threads.count(m.range.thread)) d.loader_workers = true;
}

}  // namespace

void attribute_cpu(const trace& t, std::vector<device_timeline>& devices, const step_figures& steps) {
    if (devices.empty()) return;
    const thread_ranges x(t);
    for (auto& d : devices) attribute_device(t, x, d, steps);
}

}  // namespace roofline::timeline
