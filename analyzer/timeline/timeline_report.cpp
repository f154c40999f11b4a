#include "analyzer/timeline/timeline_report.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/read/kernel_origin.hpp"
#include "analyzer/render/document.hpp"
#include "analyzer/render/json_number.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/timeline/timeline_svg.hpp"
#include "analyzer/base/noise.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <map>
#include <sstream>

namespace roofline::timeline {
namespace {

using ordered_json = nlohmann::ordered_json;

// The JSON lists this many of the longest gaps of each cause.
constexpr std::size_t listed_per_cause = 20;

// "GPU 0 (NVIDIA H100 80GB HBM3)": the name as the trace gives it, escaped for markdown (or, on a terminal,
// with its control characters replaced).
std::string device_title(const device_timeline& d, bool markdown = true) {
    return "GPU " + std::to_string(d.device) +
           (d.name.empty() ? "" : " (" + (markdown ? markdown_text(d.name) : printable(d.name)) + ")");
}

doc::phrase device_phrase(const device_timeline& d) {
    doc::phrase p("GPU " + std::to_string(d.device));
    if (!d.name.empty()) p.words(" (").input(d.name).words(")");
    return p;
}

std::string since(const device_timeline& d, std::int64_t ns) {
    return "+" + format_duration_ns(double(ns - d.first_ns));
}

std::string plural(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// A kernel by its short name; a copy or memset by CUPTI's name ("Memcpy HtoD (Pageable -> Device)").
std::string op_name(const trace& t, std::size_t op) {
    const std::string& name = t.name(t.ops[op].name);
    return printable(t.ops[op].kind == op_kind::kernel ? short_name(name) : name);
}

// One gap, with the evidence for its cause.
doc::phrase gap_phrase(const trace& t, const device_timeline& d, const idle_gap& g) {
    doc::phrase s(format_duration_ns(double(g.length())) + " idle from " + since(d, g.start_ns) + ": ");
    const std::string next = op_name(t, g.next_op);
    if (g.blocking) {
        const api_call& b = t.calls[*g.blocking];
        const api_call& l = t.calls[*g.launch];
        s.words("the CPU was in ").code(t.name(b.name));
        if (g.caller) s.words(" (called in ").code(t.name(t.cpu_ops[*g.caller].name)).words(")");
        s.words(" from " + since(d, b.start_ns) + " until " + since(d, b.end_ns) + "; ")
            .code(next)
            .words(" was launched " + format_duration_ns(double(l.start_ns - b.end_ns)) + " after it returned");
    } else if (g.launch) {
        const api_call& l = t.calls[*g.launch];
        const auto late = l.start_ns - g.start_ns;
        s.code(next).words(" was launched by ").code(t.name(l.name));
        s.words(" " + format_duration_ns(double(late < 0 ? -late : late)) +
                (late >= 0 ? " after the GPU went idle" : " before the GPU went idle"));
        if (t.ops[g.next_op].pageable)
            s.words("; the transfer began " + format_duration_ns(double(t.ops[g.next_op].start_ns - l.start_ns)) +
                    " after the call did (the driver stages pageable memory through a pinned buffer first)");
    } else {
        s.code(next).words(
            " has no launching call in the trace (no CUDA runtime or driver event with its correlation id)");
    }
    return s;
}

std::string gap_text(const trace& t, const device_timeline& d, const idle_gap& g) {
    return doc::markdown(gap_phrase(t, d, g));
}

// The CPU category a host-gap finding names (unknown for every other finding).
cpu_category category_of(finding_kind k) { return info(k).category.value_or(cpu_category::unknown); }

// "`enumerate(DataLoader)#...` 1.2 s, `train.py(30): main` ...": the names that carried a category's time.
doc::phrase names_text(const trace& t, const std::vector<named_time>& v, std::size_t n) {
    doc::phrase s;
    for (std::size_t i = 0; i < std::min(n, v.size()); ++i)
        s.words(i ? ", " : "").code(printable(t.name(v[i].name))).words(" " + format_duration_ns(double(v[i].ns)));
    return s;
}

std::string category_headline(const timeline_finding& f, const device_timeline& d, const std::string& where) {
    const category_time& ct = d.time_of(category_of(f.kind));
    std::string what;
    switch (f.kind) {
        case finding_kind::data_loading:
            what = d.loader_workers ? "the main thread waited for the DataLoader's worker processes"
                                    : "the main thread made the DataLoader's batches itself";
            break;
        case finding_kind::optimizer:
            what = "the CPU ran the optimizer's step, one parameter at a time";
            break;
        case finding_kind::dispatch:
            what = "the CPU dispatched and launched operators one at a time from Python";
            break;
        case finding_kind::python:
            what = "the CPU ran the program's own code outside any operator (Python, NumPy, I/O)";
            break;
        default:
            what = "the CPU was inside ranges the program named";
            break;
    }
    std::string s = "while the GPU sat idle" + where + ", " + what + ": " + format_duration_ns(double(ct.ns)) + " (" +
                    format_percent(double(ct.ns) / double(d.span_ns())) + " of the span";
    if (f.kind == finding_kind::dispatch && d.short_host.total_ns > 0)
        s += "; and " + format_duration_ns(double(d.short_host.total_ns)) + " in " +
             plural(d.short_host.count, "interval", "intervals") + " between back-to-back launches";
    return s + ")";
}

std::string finding_headline(const timeline_finding& f, const device_timeline& d, const std::string& where) {
    auto idle = [&](gap_cause c) {
        const auto& tot = d.total(c);
        return plural(tot.count, "gap", "gaps") + ", " + format_duration_ns(double(tot.total_ns)) + " idle (" +
               format_percent(double(tot.total_ns) / double(d.span_ns())) + " of the span)";
    };
    switch (f.kind) {
        case finding_kind::sync:
            return "the GPU waited while the CPU sat in synchronising calls" + where + ": " + idle(gap_cause::sync);
        case finding_kind::host:
            return "the CPU issued work after the GPU had gone idle" + where + ": " + idle(gap_cause::host);
        case finding_kind::pageable:
            return "copies of pageable host memory" + where + " (" + plural(d.pageable_copies, "copy", "copies") +
                   ", " + format_si(double(d.pageable_bytes), "B") + ", " + format_duration_ns(double(d.pageable_ns)) +
                   " on the GPU, " + format_duration_ns(double(d.pageable_exclusive_ns)) +
                   " of it with nothing else running), and the gaps after them or after synchronous copies: " +
                   idle(gap_cause::pageable);
        case finding_kind::memset:
            return "the GPU waited on synchronous memsets" + where + ": " + idle(gap_cause::memset);
        case finding_kind::small_kernels:
            return std::to_string(d.small_kernels) + " of " + std::to_string(d.kernels) + " kernels" + where +
                   " ran under " + format_duration_ns(double(small_kernel_ns)) + ": launch-bound, with " +
                   plural(d.short_gaps.count, "short gap", "short gaps") + " (" +
                   format_duration_ns(double(d.short_gaps.total_ns)) + ") between them";
        case finding_kind::communication:
            return "NCCL kernels" + where + " ran " + format_duration_ns(double(d.communication_ns)) + ", " +
                   format_duration_ns(double(d.communication_ns - d.overlap_ns)) +
                   " of it with no compute kernel beside it (" +
                   format_percent(double(d.overlap_ns) / double(d.communication_ns)) + " overlapped)";
        case finding_kind::busy:
            return "no idle cause" + where + " costs more than run-to-run noise (" + format_percent(run_to_run_noise) +
                   "): the GPU is busy " + format_percent(d.utilisation()) + " of the span";
        case finding_kind::data_loading:
        case finding_kind::optimizer:
        case finding_kind::dispatch:
        case finding_kind::python:
        case finding_kind::user_range:
            return category_headline(f, d, where);
        case finding_kind::small_grids:
            return std::to_string(d.small_grids.count) + " of " + std::to_string(d.kernels) + " kernels" + where +
                   " launched fewer blocks than the GPU has SMs (" +
                   format_duration_ns(double(d.small_grids.total_ns)) +
                   " of GPU time): the SMs without a block sat idle while they ran, " +
                   format_duration_ns(double(d.small_grid_idle_sm_ns)) + " of the whole GPU's time (" +
                   format_percent(double(d.small_grid_idle_sm_ns) / double(d.span_ns())) +
                   " of the span; batches too small to fill the GPU). Not estimated: the fix changes each launch's "
                   "work";
    }
    return "";
}

std::string floor_text(const timeline_finding& f, const device_timeline& d, std::int64_t min_gap_ns) {
    const std::string span = format_duration_ns(double(f.before_ns));
    const std::string after_gpu = format_duration_ns(double(f.before_ns - f.removed_ns));
    std::string s;
    if (f.kind == finding_kind::communication) {
        s = "time after >= span - the shorter of the communication and the compute that run alone = " + span + " - " +
            format_duration_ns(double(f.removed_ns)) + " = " + after_gpu;
    } else if (f.kind == finding_kind::pageable && d.pageable_exclusive_ns > 0) {
        const auto idle = d.total(gap_cause::pageable).total_ns;
        s = "time after >= span - these gaps - the busy time only the pageable copies account for (pinned, "
            "asynchronous copies run beside the compute) = " +
            span + " - " + format_duration_ns(double(idle)) + " - " +
            format_duration_ns(double(d.pageable_exclusive_ns)) + " = " + after_gpu;
        s += d.pinned_rate && d.pageable_bytes > 0
                 ? ", and >= the copies' bytes at the fastest pinned copy's rate in the trace = " +
                       format_si(double(d.pageable_bytes), "B") + " / " + format_si(*d.pinned_rate * 1e9, "B/s") +
                       " = " + format_duration_ns(double(d.pageable_bytes) / *d.pinned_rate)
                 : "; unknown: the copies' own time at pinned speed (the trace holds no pinned copy of 1 MiB "
                   "or more to measure the link by, or no size for the pageable copies), taken as hidden under the "
                   "compute";
        s += f.binds == floor_kind::link ? " (the link binds)" : "";
    } else if (f.kind == finding_kind::dispatch) {
        s = "time after >= span - these gaps - the intervals between back-to-back launches = " + span + " - " +
            format_duration_ns(double(f.removed_ns)) + " = " + after_gpu;
        if (f.graph_floor_ns)
            s += ", and >= what a CUDA graph's replay leaves: busy + " + std::to_string(d.kernels) + " kernels x " +
                 format_duration_ns(double(graph_kernel_gap_ns)) +
                 " between them = " + format_duration_ns(double(d.busy_ns)) + " + " +
                 format_duration_ns(double(std::int64_t(d.kernels) * graph_kernel_gap_ns)) + " = " +
                 format_duration_ns(double(*f.graph_floor_ns)) + (f.after_ns == *f.graph_floor_ns ? " (binds)" : "");
    } else if (category_of(f.kind) != cpu_category::unknown && f.binds == floor_kind::cpu) {
        const std::int64_t all_host = d.total(gap_cause::host).total_ns + d.short_host.total_ns;
        s = "the CPU stays the bottleneck: what it did in the other host gaps (" +
            format_duration_ns(double(all_host - f.removed_ns)) + ") is more than the GPU's busy time (" +
            format_duration_ns(double(d.busy_ns)) +
            ") or this is not its largest cost, so the time after is its own remaining time: span - this "
            "category's = " +
            span + " - " + format_duration_ns(double(f.removed_ns)) + " = " + after_gpu +
            " (the CPU's time, which the profiler inflates: --step-time scales it by the measured step)";
    } else if (f.all_host) {
        s = "time after >= span - every host gap (this category was the CPU's largest cost, and what it did in the "
            "others is less than the GPU's busy time, so it runs ahead of the GPU once this is gone) = " +
            span + " - " + format_duration_ns(double(f.removed_ns)) + " = " + after_gpu;
    } else if (f.kind == finding_kind::host && d.short_host.count > 0) {
        s = "time after >= span - these gaps - the shorter intervals the GPU also waited for a launch in = " + span +
            " - " + format_duration_ns(double(d.total(gap_cause::host).total_ns)) + " - " +
            format_duration_ns(double(d.short_host.total_ns)) + " (" +
            plural(d.short_host.count, "interval", "intervals") + " under " + format_duration_ns(double(min_gap_ns)) +
            ") = " + after_gpu;
    } else {
        s = "time after >= span - this idle time = " + span + " - " + format_duration_ns(double(f.removed_ns)) + " = " +
            after_gpu;
    }
    if (f.kind == finding_kind::data_loading) {
        if (f.loader_per_batch_ns && f.rest_per_step_ns && f.workers_to_hide)
            s += "; the loader's own CPU time is " + format_duration_ns(double(*f.loader_per_batch_ns)) +
                 " a batch on the main thread and the rest of the step " +
                 format_duration_ns(double(*f.rest_per_step_ns)) + ", so N worker processes leave max(" +
                 format_duration_ns(double(*f.rest_per_step_ns)) + ", " +
                 format_duration_ns(double(*f.loader_per_batch_ns)) +
                 " / N) a step: " + std::to_string(*f.workers_to_hide) + " workers hide it (fewer: " +
                 format_duration_ns(double(*f.loader_per_batch_ns) / std::max(1, *f.workers_to_hide - 1)) +
                 " a step at " + std::to_string(std::max(1, *f.workers_to_hide - 1)) + ")";
        if (!f.with_workers.empty()) {
            s += "; against the measured step the loader takes " + format_duration_ns(double(*f.loader_measured_ns)) +
                 " a batch, so a step with N workers takes:";
            for (const auto& [n, ns] : f.with_workers)
                s += std::string(n == 1 ? " " : ", ") + std::to_string(n) + ": " + format_duration_ns(double(ns));
        }
        if (d.loader_workers)
            s += "; unknown: how many more workers it takes (the workers' CPU time per batch is in their own "
                 "processes, not in this trace)";
    }
    if (f.kind == finding_kind::sync || f.kind == finding_kind::pageable || f.kind == finding_kind::memset) {
        const auto cause = f.kind == finding_kind::sync       ? gap_cause::sync
                           : f.kind == finding_kind::pageable ? gap_cause::pageable
                                                              : gap_cause::memset;
        const auto blocked = d.cpu_blocked_ns[static_cast<std::size_t>(cause)];
        s += ", and >= the CPU's own time = span - its time blocked in those calls = " + span + " - " +
             format_duration_ns(double(blocked)) + " = " + format_duration_ns(double(f.before_ns - blocked));
        s += f.binds == floor_kind::cpu ? " (the CPU's time binds)" : "";
    }
    return s;
}

const device_timeline& device_of(const timeline_model& m, std::int32_t id) {
    for (const auto& d : m.devices)
        if (d.device == id) return d;
    return m.devices.front();
}

std::string category_meaning(cpu_category c) {
    switch (c) {
        case cpu_category::data_loading:
            return "a DataLoader's batch (its record_function range or torch/utils/data frames)";
        case cpu_category::optimizer:
            return "the optimizer's step or zero_grad";
        case cpu_category::sync:
            return "waiting in a synchronising call (`.item()`, `.cpu()`, `synchronize`)";
        case cpu_category::copies:
            return "waiting in a pageable or synchronous copy or memset";
        case cpu_category::user_range:
            return "a range the program named (record_function, NVTX), outside any operator";
        case cpu_category::dispatch:
            return "inside an operator or a CUDA call, or Python between two launches";
        case cpu_category::python:
            return "the program's own code outside any operator (Python, NumPy, I/O)";
        case cpu_category::unknown:
            return "not recorded (the trace holds no CPU operators)";
    }
    return "";
}

// The steps' critical path: on the GPU, on the CPU, waiting (timeline_model.hpp, critical_path).
void path_section(doc::document& o, const timeline_model& m, const device_timeline& d) {
    const critical_path& p = d.path;
    if (p.steps == 0 || p.total_ns <= 0) return;
    const trace& t = *m.source;
    auto share = [&](std::int64_t ns) { return format_percent(double(ns) / double(p.total_ns)); };
    o.add_heading(3, "The critical path of a step");
    doc::table_block path{{"steps", "a step", "on the GPU", "on the CPU", "waiting"}, {}};
    path.rows.push_back({std::to_string(p.steps),
                         format_duration_ns(double(p.total_ns) / double(p.steps)) + " (" +
                             format_duration_ns(double(p.shortest_ns)) + " to " +
                             format_duration_ns(double(p.longest_ns)) + ")",
                         format_duration_ns(double(p.gpu_ns) / double(p.steps)) + " (" + share(p.gpu_ns) + ")",
                         format_duration_ns(double(p.cpu_ns) / double(p.steps)) + " (" + share(p.cpu_ns) + ")",
                         format_duration_ns(double(p.wait_ns) / double(p.steps)) + " (" + share(p.wait_ns) + ")"});
    o.add_table(std::move(path));
    doc::phrase text(
        "A step runs from the start of the first op it launched to the next step's first op. On the GPU: its "
        "kernels, copies and memsets ran (the top kernels below); on the CPU: the GPU sat idle until the CPU "
        "launched the next op (what the CPU was doing, below); waiting: the next op was already queued but "
        "started late (another stream's event, a collective's peers, launch latency).");
    const std::int64_t cpu_total = [&] {
        std::int64_t n = 0;
        for (const auto& c : d.cpu) n += c.ns;
        return n;
    }();
    if (p.cpu_ns > 0 && cpu_total > 0) {
        std::vector<std::pair<std::int64_t, cpu_category>> top;
        for (cpu_category c : all_categories)
            if (d.time_of(c).ns > 0) top.emplace_back(d.time_of(c).ns, c);
        std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        text.words(std::string(" The CPU's part is mostly ") + category_name(top.front().second));
        if (!d.time_of(top.front().second).top.empty())
            text.words(" (").append(names_text(t, d.time_of(top.front().second).top, 1)).words(")");
        text.words(".");
    }
    o.add_paragraph(std::move(text));
}

// What the launching threads did while the GPU waited for the CPU (the sync, copy and host gaps).
void cpu_section(doc::document& o, const timeline_model& m, const device_timeline& d) {
    std::int64_t total = 0;
    for (const auto& c : d.cpu) total += c.ns;
    if (total <= 0) return;
    const trace& t = *m.source;
    o.add_heading(3, "What the CPU was doing while the GPU waited for it");
    doc::table_block cats{{"category", "idle", "of it", "per step", "where", "what it means"}, {}};
    for (cpu_category c : all_categories) {
        const category_time& ct = d.time_of(c);
        if (ct.ns <= 0) continue;
        doc::phrase where = names_text(t, ct.top, 2);
        if (!ct.frames.empty()) where.words(where.empty() ? "" : "; ").append(names_text(t, ct.frames, 1));
        cats.rows.push_back({category_name(c), format_duration_ns(double(ct.ns)),
                             format_percent(double(ct.ns) / double(total)),
                             m.steps.count > 0 ? format_duration_ns(double(ct.ns) / double(m.steps.count)) : "-",
                             where.empty() ? doc::phrase("-") : where, doc::phrase().marked(category_meaning(c))});
    }
    o.add_table(std::move(cats));
    if (!d.cpu_recorded)
        o.add_paragraph(
            "Unknown: what the CPU did in the host gaps. The trace holds no CPU operators or Python frames "
            "(torch.profiler: ProfilerActivity.CPU, with_stack=True for the frames).");
    else if (t.py_frames.empty())
        o.add_paragraph(
            "The trace holds no Python frames of the program (torch.profiler with_stack=True records "
            "them): the categories stand, the lines of code under them are not named.");
}

void device_section(doc::document& o, const timeline_model& m, const device_timeline& d) {
    o.add_heading(2, device_phrase(d));
    doc::table_block summary{
        {"span", "busy", "utilisation", "gaps over " + format_duration_ns(double(m.min_gap_ns)), "their idle time",
         "shorter gaps", "kernels", "under " + format_duration_ns(double(small_kernel_ns))},
        {}};
    std::int64_t long_total = 0;
    for (const auto& g : d.gaps) long_total += g.length();
    summary.rows.push_back(
        {format_duration_ns(double(d.span_ns())), format_duration_ns(double(d.busy_ns)),
         format_percent(d.utilisation()), std::to_string(d.gaps.size()), format_duration_ns(double(long_total)),
         std::to_string(d.short_gaps.count) + " (" + format_duration_ns(double(d.short_gaps.total_ns)) + ")",
         std::to_string(d.kernels), std::to_string(d.small_kernels)});
    o.add_table(std::move(summary));
    std::string busy = "Busy is the union of the " + std::to_string(d.ops) +
                       " kernel, copy and memset intervals over every stream (ops that overlap, as a graph replay's "
                       "do, count once); the span runs from the first op's start to the last one's end.";
    if (d.before_trace.count > 0)
        busy += " Left out: " + plural(d.before_trace.count, "op", "ops") + " (" +
                format_duration_ns(double(d.before_trace.total_ns)) +
                " of GPU time) launched before the trace began, which ran before the first op launched within it (the "
                "idle time after them is the profiler's start, not the program's).";
    // Never silent: without grids or the SM count, whether the batch fills the GPU is not known.
    if (d.grids_known == 0 && d.compute_ns > 0)
        busy +=
            " Unknown: whether the kernels' grids fill the SMs (small-grids): the trace gives no kernel grid or no "
            "SM count for this GPU (Kineto: args.grid and deviceProperties numSms; nsys SQLite: gridX/Y/Z and "
            "TARGET_INFO_GPU smCount; nsys stats CSVs carry no SM count).";
    o.add_paragraph(busy);
    o.add_heading(3, "Idle time by cause");
    doc::table_block causes{{"cause", "gaps", "idle", "of the span", "what it means"}, {}};
    for (gap_cause c : all_causes) {
        const auto& tot = d.total(c);
        if (tot.count == 0) continue;
        causes.rows.push_back({cause_name(c), std::to_string(tot.count), format_duration_ns(double(tot.total_ns)),
                               format_percent(double(tot.total_ns) / double(d.span_ns())), cause_meaning(c)});
    }
    if (causes.rows.empty())
        o.add_paragraph("No idle gap is longer than " + format_duration_ns(double(m.min_gap_ns)) + ".");
    else
        o.add_table(std::move(causes));
    path_section(o, m, d);
    cpu_section(o, m, d);
    std::vector<doc::phrase> extra;
    if (d.pageable_copies > 0)
        extra.push_back(plural(d.pageable_copies, "copy", "copies") +
                        " from or to pageable host memory: " + format_si(double(d.pageable_bytes), "B") + ", " +
                        format_duration_ns(double(d.pageable_ns)) + " on the GPU.");
    if (d.communication_ns > 0)
        extra.push_back("NCCL kernels: " + format_duration_ns(double(d.communication_ns)) + " of communication, " +
                        format_duration_ns(double(d.overlap_ns)) + " (" +
                        format_percent(double(d.overlap_ns) / double(d.communication_ns)) +
                        ") overlapped with compute kernels.");
    if (!extra.empty()) o.add_list(std::move(extra));
}

// The operator that launched a kernel and the frame of the user's code around it: "`aten::mm` in
// `train.py(42): step`"; "-" where the trace has neither (no CPU activity).
doc::phrase launched_by_text(const trace& t, const kernel_total& k) {
    doc::phrase s;
    if (k.launched_by) s.code(printable(t.name(*k.launched_by)));
    if (k.frame) s.words(s.empty() ? "" : " in ").code(printable(t.name(*k.frame)));
    return s.empty() ? doc::phrase("-") : s;
}

void kernels_section(doc::document& o, const timeline_report& r) {
    const trace& t = *r.model->source;
    o.add_heading(2, "Top kernels by GPU time");
    for (const auto& d : r.model->devices) {
        if (r.model->devices.size() > 1) o.add_paragraph(device_phrase(d).words(":"));
        // Shares of the kernels' summed time: kernels that overlap (streams, graph replays) can sum to more
        // than the busy time, and a share never passes 100%.
        std::int64_t kernel_time = 0;
        for (const auto& kt : d.kernel_totals) add_to(kernel_time, kt.total_ns);
        doc::table_block k{
            {"#", "kernel", "origin", "launched by", "launches", "GPU time", "of kernel time", "average"}, {}};
        // Names shortened as analyze shortens them (numbered where two read the same); the full names follow.
        const std::size_t listed = std::min<std::size_t>(d.kernel_totals.size(), 10);
        std::vector<std::string> labels;
        std::map<std::string, std::size_t> count, seen;
        for (std::size_t i = 0; i < listed; ++i)
            ++count[labels.emplace_back(kernel_label(printable(t.name(d.kernel_totals[i].name))))];
        for (auto& l : labels)
            if (count[l] > 1) l += " #" + std::to_string(++seen[l]);
        for (std::size_t i = 0; i < listed; ++i) {
            const auto& kt = d.kernel_totals[i];
            k.rows.push_back({std::to_string(i + 1), doc::phrase().code(labels[i]),
                              label(classify_origin(t.name(kt.name)).kind), launched_by_text(t, kt),
                              std::to_string(kt.launches), format_duration_ns(double(kt.total_ns)),
                              format_percent(kernel_time > 0 ? double(kt.total_ns) / double(kernel_time) : 0.0),
                              format_duration_ns(double(kt.total_ns) / double(kt.launches))});
        }
        o.add_table(std::move(k));
        if (d.kernel_totals.size() > 10)
            o.add_paragraph(std::to_string(d.kernel_totals.size() - 10) + " more kernels not listed.");
        doc::document names;
        doc::bullet_list full;
        full.ordered = true;
        for (std::size_t i = 0; i < listed; ++i)
            full.items.push_back(doc::phrase().code(printable(t.name(d.kernel_totals[i].name))));
        names.add_list(std::move(full));
        o.add_details("Full names", names);
    }
    if (r.triage && !r.triage->commands.empty()) {
        o.add_paragraph(doc::phrase().marked(
            "Profile the top kernels with the counters `roofline analyze` reads (the commands `roofline triage` "
            "writes; replace `./app` with the program's command line, or pass --app):"));
        o.add_code("sh", triage_script(*r.triage));
    }
}

}  // namespace

std::string cause_meaning(gap_cause c) {
    switch (c) {
        case gap_cause::sync:
            return "the CPU waited in a synchronising call while the GPU drained, then launched the next work: nothing "
                   "was queued behind it";
        case gap_cause::host:
            return "the CPU issued the next work after the GPU had gone idle: the CPU is the bottleneck";
        case gap_cause::pageable:
            return "the CPU waited in a copy of pageable host memory (staged through a pinned buffer) or a synchronous "
                   "copy";
        case gap_cause::memset:
            return "the CPU waited in a synchronous cudaMemset";
        case gap_cause::other:
            return "the next work was queued before the GPU went idle but started late (a wait on another stream's "
                   "event, "
                   "launch latency), or no call in the trace launched it";
    }
    return "";
}

std::string finding_fix(const timeline_finding& f) {
    switch (f.kind) {
        case finding_kind::sync:
            return "Take the synchronisation out of the step: keep values on the GPU (accumulate the loss as a tensor "
                   "and "
                   "read it every N steps); avoid `.item()`, `.cpu()`, `.tolist()`, `print(tensor)` and "
                   "`torch.cuda.synchronize()` inside the loop; where a value must come back, copy it with "
                   "`non_blocking=True` into pinned memory and read it a step later.";
        case finding_kind::host:
            return "Give the GPU its work ahead of time: fewer, larger launches (CUDA graphs: `torch.cuda.CUDAGraph`, "
                   "`torch.compile(mode=\"reduce-overhead\")`), fused operators (`torch.compile`), less Python per "
                   "step, "
                   "and data preparation off the critical path (`DataLoader(num_workers=N, pin_memory=True)`, "
                   "prefetching).";
        case finding_kind::pageable:
            return "Copy from pinned memory: `pin_memory=True` in the DataLoader or `tensor.pin_memory()`, then "
                   "`.to(device, non_blocking=True)`; prefetch the next batch on a side stream, or keep the data on "
                   "the "
                   "GPU.";
        case finding_kind::memset:
            return "Use cudaMemsetAsync on the work's stream: a synchronous cudaMemset waits for the GPU.";
        case finding_kind::small_kernels:
            if (f.queued)
                return "Launch fewer, larger kernels: these were queued ahead (a CUDA graph replay, or a CPU running "
                       "ahead), so the gaps are the GPU's own time between kernels, which a CUDA graph does not "
                       "remove: fuse the small operators (`torch.compile`, a fused epilogue); a larger batch gives "
                       "each launch more work.";
            return "Launch fewer, larger kernels: capture the step in a CUDA graph (`torch.cuda.CUDAGraph`, "
                   "`torch.compile(mode=\"reduce-overhead\")`) or fuse the small operators (`torch.compile`); a larger "
                   "batch gives each launch more work.";
        case finding_kind::communication:
            return "Overlap communication with compute: issue the collectives asynchronously (`async_op=True`) "
                   "as soon as their inputs are ready and wait only where the result is used; DDP's gradient "
                   "buckets (`bucket_cap_mb`) and FSDP's prefetching do this for training.";
        case finding_kind::busy:
            return "The time is in the kernels: profile the top ones (below) with ncu and `roofline analyze`.";
        case finding_kind::data_loading:
            return "Make the batches in worker processes while the GPU runs: `DataLoader(..., num_workers=N, "
                   "pin_memory=True, persistent_workers=True, prefetch_factor=2)`; where the workers already run, "
                   "more of them (up to the CPU cores), a cheaper `__getitem__` (decode once, cache, smaller "
                   "images), or decoding on the GPU (DALI, torchvision.io.decode_jpeg on the device).";
        case finding_kind::optimizer:
            return "Step every parameter at once: `foreach=True` (the default where supported) or `fused=True` "
                   "(`torch.optim.AdamW(params, fused=True)`), fewer, larger parameter tensors, or the step compiled "
                   "(`torch.compile` of the optimizer step) or captured in a CUDA graph.";
        case finding_kind::dispatch:
            return "Launch the step at once: capture it in a CUDA graph (`torch.cuda.CUDAGraph`, "
                   "`torch.compile(mode=\"reduce-overhead\")`, static shapes and buffers), or compile it "
                   "(`torch.compile` fuses the small operators, so fewer launches); a larger batch gives each "
                   "launch more work.";
        case finding_kind::python:
            return "Take the program's own work off the GPU's critical path: prepare data in DataLoader workers "
                   "or a background thread, vectorise the Python loop (NumPy or torch ops), move the work to the "
                   "GPU, or do it every N steps; the frames named with this finding say where it is.";
        case finding_kind::user_range:
            return "The ranges named below are the program's own: their CPU work runs while the GPU waits. Move it "
                   "off the step's critical path (a background thread, a DataLoader worker) or do it less often.";
        case finding_kind::small_grids:
            return "Give each launch enough work to fill the GPU: a larger batch (more samples or sequences per "
                   "step), fused operators (`torch.compile`), or independent work on other streams beside them. The "
                   "gain is per sample, and how much depends on how each kernel's time grows with its work: time a "
                   "larger batch, or profile the top kernels (below) with ncu.";
    }
    return "";
}

namespace {

doc::document document_of(const timeline_report& r, bool chart) {
    const timeline_model& m = *r.model;
    const trace& t = *m.source;
    doc::document o;
    o.add_heading(1, doc::phrase("Timeline of ").code(t.file));
    if (chart)
        o.add_figure({"timeline", "#timeline-chart", "<figure class=\"timeline\">" + timeline_svg(m) + "</figure>"});
    std::size_t ops = 0;
    for (const auto& d : m.devices) ops += d.ops;
    std::string head = t.form + ": " + std::to_string(t.events_read) + " events read, " + std::to_string(ops) +
                       " GPU ops on " + plural(m.devices.size(), "GPU", "GPUs") + ".";
    doc::phrase intro(head);
    if (m.steps.count > 0)
        intro.words(" " + plural(m.steps.count, "step", "steps") +
                    " (ProfilerStep#N): " + format_duration_ns(double(m.steps.mean_ns)) +
                    (m.steps.count > 1 ? " each on average (" + format_duration_ns(double(m.steps.min_ns)) + " to " +
                                             format_duration_ns(double(m.steps.max_ns)) + ")"
                                       : std::string()) +
                    " on the CPU; the GPU work they launched spans " +
                    format_duration_ns(double(m.devices.front().steps_span_ns()) / double(m.steps.count)) + " a step" +
                    (m.devices.size() > 1 ? " on GPU " + std::to_string(m.devices.front().device) : std::string()) +
                    " (the top kernels below are that work's).");
    else
        intro.marked(
            " The trace marks no steps (no ProfilerStep#N or NVTX step range): every figure is over the span "
            "of the GPU's activity, which may begin and end within a step, so it is no whole number of steps. "
            "Step markers come with the CPU activity (torch.profiler: ProfilerActivity.CPU and `prof.step()`; "
            "nsys: NVTX ranges).");
    o.add_paragraph(std::move(intro));
    if (t.calls.empty())
        o.add_paragraph(doc::phrase().marked(
            std::string("Unknown: the cause of every gap. The trace holds no CUDA runtime or driver call, so no op's "
                        "launch can be told: every gap is `other`. ") +
            (t.form == "nsys stats cuda_gpu_trace report"
                 ? "Pass the run's `nsys stats --report cuda_api_trace --format csv` report with --api."
                 : "Profile with the CPU activity on (torch.profiler: ProfilerActivity.CPU; nsys: --trace=cuda).")));
    o.add_heading(2, "Findings");
    doc::bullet_list findings;
    findings.ordered = true;
    for (const auto& f : r.findings) {
        const device_timeline& d = device_of(m, f.device);
        const std::string where = m.devices.size() > 1 ? " on GPU " + std::to_string(d.device) : "";
        doc::phrase head_line =
            doc::phrase().strong(finding_id(f.kind)).words(": " + finding_headline(f, d, where) + ".");
        if (f.est_speedup)
            head_line.words(" Estimate: up to " + format_times(*f.est_speedup) + " (" +
                            format_duration_ns(double(f.before_ns)) + " -> " + format_duration_ns(double(f.after_ns)) +
                            ").");
        if (f.est_speedup_measured)
            head_line.words(" Against the step time measured without the profiler: up to " +
                            format_times(*f.est_speedup_measured) + " (" +
                            format_duration_ns(double(*f.measured_step_ns)) + " -> " +
                            format_duration_ns(double(*f.after_per_step_ns)) + " a step).");
        std::vector<doc::phrase> under;
        if (category_of(f.kind) != cpu_category::unknown) {
            const category_time& ct = d.time_of(category_of(f.kind));
            if (!ct.top.empty()) under.push_back(doc::phrase("Where: ").append(names_text(t, ct.top, 3)).words("."));
            if (!ct.frames.empty())
                under.push_back(doc::phrase("In the program's code: ").append(names_text(t, ct.frames, 3)).words("."));
            if (m.steps.count > 0)
                under.push_back("Per step: " + format_duration_ns(double(ct.ns) / double(m.steps.count)) + " of " +
                                format_duration_ns(double(d.steps_span_ns()) / double(m.steps.count)) + ".");
        }
        for (auto gi : f.gaps) under.push_back(gap_phrase(t, d, d.gaps[gi]).words("."));
        if (f.est_speedup) under.push_back("Estimate: " + floor_text(f, d, m.min_gap_ns) + ".");
        if (f.est_speedup &&
            (f.kind == finding_kind::host || f.kind == finding_kind::small_kernels ||
             category_of(f.kind) != cpu_category::unknown) &&
            !t.calls.empty())
            under.push_back(
                "Caution: the profiler costs the CPU time on every operator it records and every CUDA call CUPTI "
                "traces, so the trace's CPU-bound gaps are longer than the run's, and the gain without the profiler "
                "is smaller (the time after the fix, the GPU's own work, is not inflated).");
        under.push_back(doc::phrase("Fix: ").marked(finding_fix(f)));
        findings.items.push_back({std::move(head_line), std::move(under)});
    }
    o.add_list(std::move(findings));
    for (const auto& d : m.devices) device_section(o, m, d);
    kernels_section(o, r);
    return o;
}

}  // namespace

std::string timeline_markdown(const timeline_report& r) { return doc::markdown(document_of(r, false)); }

std::string timeline_html(const timeline_report& r) { return doc::html_page(document_of(r, true)); }

namespace {

// `text` broken between words into lines of at most `width` columns (a word longer than that stands alone),
// each after `indent`; 0: one line.
std::string wrapped(const std::string& text, std::size_t width, const std::string& indent) {
    if (width == 0 || width <= indent.size() + 10) return indent + text + "\n";
    std::string out, line;
    std::istringstream words(text);
    for (std::string w; words >> w;) {
        if (!line.empty() && indent.size() + line.size() + 1 + w.size() > width) {
            out += indent + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + w;
    }
    return out + indent + line + "\n";
}

}  // namespace

std::string timeline_terminal(const timeline_report& r, std::size_t width) {
    const timeline_model& m = *r.model;
    const trace& t = *m.source;
    std::ostringstream o;
    o << t.file << ": " << t.form << "\n";
    for (const auto& d : m.devices) {
        o << "\n"
          << wrapped(device_title(d, false) + ": busy " + format_percent(d.utilisation()) + " of " +
                         format_duration_ns(double(d.span_ns())) + " (" + format_duration_ns(double(d.busy_ns)) + ")",
                     width, "");
        table causes({column{"cause"}, column{"gaps", align::right}, column{"idle", align::right},
                      column{"of span", align::right}});
        for (gap_cause c : all_causes)
            if (d.total(c).count > 0)
                causes.row({cause_name(c), std::to_string(d.total(c).count),
                            format_duration_ns(double(d.total(c).total_ns)),
                            format_percent(double(d.total(c).total_ns) / double(d.span_ns()))});
        if (!causes.empty()) o << causes.text();
        // What the CPU was doing in those gaps, largest first, with the range that carried the most of each.
        std::vector<std::pair<std::int64_t, cpu_category>> cats;
        for (cpu_category c : all_categories)
            if (d.time_of(c).ns > 0) cats.emplace_back(d.time_of(c).ns, c);
        std::stable_sort(cats.begin(), cats.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        if (!cats.empty()) {
            table cpu({column{"the CPU, meanwhile"}, column{"idle", align::right}, column{"per step", align::right},
                       column{"where"}});
            for (const auto& [ns, c] : cats) {
                const category_time& ct = d.time_of(c);
                const auto& where = !ct.frames.empty() ? ct.frames : ct.top;
                cpu.row({category_name(c), format_duration_ns(double(ns)),
                         m.steps.count ? format_duration_ns(double(ns) / double(m.steps.count)) : "-",
                         where.empty() ? "-" : kernel_label(printable(t.name(where.front().name)))});
            }
            o << cpu.text();
        }
    }
    o << "\nFindings:\n";
    std::size_t n = 0;
    for (const auto& f : r.findings) {
        const device_timeline& d = device_of(m, f.device);
        o << "  " << ++n << ". " << finding_id(f.kind);
        if (m.devices.size() > 1) o << " (GPU " << d.device << ")";
        if (f.est_speedup) o << "  up to " << format_times(*f.est_speedup);
        if (f.est_speedup_measured) o << " (" << format_times(*f.est_speedup_measured) << " against the measured step)";
        o << "\n" << wrapped(finding_fix(f), width, "     ");
    }
    return o.str();
}

// What the launching threads did during the gaps the CPU caused, by category (docs/timeline.md).
ordered_json cpu_json(const trace& t, const timeline_model& m, const device_timeline& d) {
    auto named = [&](const std::vector<named_time>& v) {
        ordered_json a = ordered_json::array();
        for (const auto& n : v) a.push_back({{"name", t.name(n.name)}, {"ns", n.ns}});
        return a;
    };
    ordered_json by = ordered_json::object();
    for (cpu_category c : all_categories) {
        const category_time& ct = d.time_of(c);
        by[category_name(c)] = {{"ns", ct.ns},
                                {"per_step_ns", m.steps.count > 0 ? ordered_json(ct.ns / std::int64_t(m.steps.count))
                                                                  : ordered_json(nullptr)},
                                {"gaps", ct.gaps},
                                {"top", named(ct.top)},
                                {"frames", named(ct.frames)}};
    }
    return {{"recorded", d.cpu_recorded},
            {"by_category", by},
            {"loader",
             {{"in_process_ns", d.loader_in_process_ns},
              {"batches", d.loader_batches},
              {"worker_processes", d.loader_workers}}}};
}

std::string timeline_json(const timeline_report& r) {
    const timeline_model& m = *r.model;
    const trace& t = *m.source;
    ordered_json j;
    j["schema"] = "roofline-timeline/1";
    j["input"] = {{"file", t.file}, {"form", t.form}, {"events", t.events_read}};
    j["min_gap_ns"] = m.min_gap_ns;
    j["steps"] = m.steps.count == 0 ? ordered_json(nullptr)
                                    : ordered_json{{"count", m.steps.count},
                                                   {"mean_ns", m.steps.mean_ns},
                                                   {"min_ns", m.steps.min_ns},
                                                   {"max_ns", m.steps.max_ns}};
    ordered_json devices = ordered_json::array();
    for (const auto& d : m.devices) {
        ordered_json by_cause = ordered_json::object();
        for (gap_cause c : all_causes)
            by_cause[cause_name(c)] = {{"count", d.total(c).count}, {"total_ns", d.total(c).total_ns}};
        std::int64_t long_total = 0;
        for (const auto& g : d.gaps) long_total += g.length();
        // The longest gaps of each cause, not every gap: the output stays the size of a summary
        // however long the trace (a step with a thousand launch gaps has a thousand of them).
        ordered_json longest = ordered_json::array();
        for (gap_cause c : all_causes)
            for (auto gi : longest_of(d, c, listed_per_cause)) {
                const idle_gap& g = d.gaps[gi];
                ordered_json e = {{"start_ns", g.start_ns - d.first_ns},
                                  {"length_ns", g.length()},
                                  {"cause", cause_name(g.cause)},
                                  {"next_op", t.name(t.ops[g.next_op].name)}};
                e["launch"] = g.launch ? ordered_json(t.name(t.calls[*g.launch].name)) : ordered_json(nullptr);
                e["blocking_call"] =
                    g.blocking ? ordered_json(t.name(t.calls[*g.blocking].name)) : ordered_json(nullptr);
                e["caller"] = g.caller ? ordered_json(t.name(t.cpu_ops[*g.caller].name)) : ordered_json(nullptr);
                longest.push_back(std::move(e));
            }
        ordered_json top = ordered_json::array();
        for (std::size_t i = 0; i < d.kernel_totals.size() && i < 10; ++i) {
            const auto& kt = d.kernel_totals[i];
            const kernel_origin origin = classify_origin(t.name(kt.name));
            top.push_back(
                {{"name", t.name(kt.name)},
                 {"origin", name(origin.kind)},
                 {"library", origin.library.empty() ? ordered_json(nullptr) : ordered_json(origin.library.str())},
                 {"launched_by", kt.launched_by ? ordered_json(t.name(*kt.launched_by)) : ordered_json(nullptr)},
                 {"frame", kt.frame ? ordered_json(t.name(*kt.frame)) : ordered_json(nullptr)},
                 {"launches", kt.launches},
                 {"total_ns", kt.total_ns},
                 {"communication", kt.communication}});
        }
        ordered_json dev = {
            {"device", d.device},
            {"name", d.name.empty() ? ordered_json(nullptr) : ordered_json(d.name)},
            {"span_ns", d.span_ns()},
            {"busy_ns", d.busy_ns},
            {"steps_span_ns", m.steps.count > 0 ? ordered_json(d.steps_span_ns()) : ordered_json(nullptr)},
            {"utilisation", json_number<ordered_json>(d.utilisation())},
            {"ops", {{"kernels", d.kernels}, {"copies", d.copies}, {"memsets", d.memsets}}}};
        dev["gaps"] = {{"count", d.gaps.size()},
                       {"total_ns", long_total},
                       {"by_cause", by_cause},
                       {"shorter",
                        {{"count", d.short_gaps.count},
                         {"total_ns", d.short_gaps.total_ns},
                         {"host", {{"count", d.short_host.count}, {"total_ns", d.short_host.total_ns}}}}},
                       {"longest", longest}};
        dev["before_trace"] = {{"count", d.before_trace.count}, {"total_ns", d.before_trace.total_ns}};
        dev["small_kernels"] = {{"count", d.small_kernels}, {"total_ns", d.small_kernel_ns}};
        dev["small_grids"] = {{"grids_known", d.grids_known},
                              {"count", d.small_grids.count},
                              {"total_ns", d.small_grids.total_ns},
                              {"idle_sm_ns", d.small_grid_idle_sm_ns}};
        dev["pageable_copies"] = {
            {"count", d.pageable_copies}, {"bytes", d.pageable_bytes}, {"total_ns", d.pageable_ns}};
        dev["communication"] = {
            {"total_ns", d.communication_ns}, {"compute_ns", d.compute_ns}, {"overlap_ns", d.overlap_ns}};
        dev["top_kernels"] = top;
        dev["cpu"] = cpu_json(t, m, d);
        dev["critical_path"] = d.path.steps == 0
                                   ? ordered_json(nullptr)
                                   : ordered_json{{"steps", d.path.steps},          {"total_ns", d.path.total_ns},
                                                  {"gpu_ns", d.path.gpu_ns},        {"cpu_ns", d.path.cpu_ns},
                                                  {"wait_ns", d.path.wait_ns},      {"shortest_ns", d.path.shortest_ns},
                                                  {"longest_ns", d.path.longest_ns}};
        devices.push_back(std::move(dev));
    }
    j["devices"] = devices;
    ordered_json findings = ordered_json::array();
    for (const auto& f : r.findings) {
        const device_timeline& d = device_of(m, f.device);
        ordered_json evidence = ordered_json::array();
        for (auto gi : f.gaps) evidence.push_back(gap_text(t, d, d.gaps[gi]));
        ordered_json e = {{"id", finding_id(f.kind)}, {"device", f.device}};
        e["cause"] = info(f.kind).cause ? ordered_json(cause_name(*info(f.kind).cause)) : ordered_json(nullptr);
        e["category"] = category_of(f.kind) != cpu_category::unknown ? ordered_json(category_name(category_of(f.kind)))
                                                                     : ordered_json(nullptr);
        if (f.workers_to_hide)
            e["loader"] = {{"per_batch_ns", *f.loader_per_batch_ns},
                           {"rest_per_step_ns", *f.rest_per_step_ns},
                           {"workers_to_hide", *f.workers_to_hide}};
        if (f.graph_floor_ns) e["graph_floor_ns"] = *f.graph_floor_ns;
        if (!f.with_workers.empty()) {
            ordered_json w = ordered_json::array();
            for (const auto& [n, ns] : f.with_workers) w.push_back({{"workers", n}, {"step_ns", ns}});
            e["loader"]["measured_per_batch_ns"] = *f.loader_measured_ns;
            e["loader"]["with_workers"] = w;
        }
        e["est_speedup"] = f.est_speedup ? json_number<ordered_json>(*f.est_speedup) : ordered_json(nullptr);
        e["before_ns"] = f.before_ns;
        e["after_ns"] = f.after_ns;
        e["removed_ns"] = f.removed_ns;
        e["binds"] = f.binds == floor_kind::cpu ? "cpu" : f.binds == floor_kind::link ? "link" : "gpu";
        if (f.est_speedup_measured)
            e["against_measured_step"] = {{"step_ns", *f.measured_step_ns},
                                          {"after_per_step_ns", *f.after_per_step_ns},
                                          {"est_speedup", json_number<ordered_json>(*f.est_speedup_measured)}};
        e["evidence"] = evidence;
        e["fix"] = finding_fix(f);
        findings.push_back(std::move(e));
    }
    j["findings"] = findings;
    return json_text(j);
}

}  // namespace roofline::timeline
