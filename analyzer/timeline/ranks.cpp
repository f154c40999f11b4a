#include "analyzer/timeline/ranks.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/render/document.hpp"
#include "analyzer/render/json_number.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/timeline/timeline_findings.hpp"
#include "analyzer/timeline/timeline_model.hpp"
#include "analyzer/timeline/trace_file.hpp"
#include "analyzer/base/noise.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>

namespace roofline::timeline {
namespace {

rank_summary summarise(const std::string& file, std::size_t position, std::int64_t min_gap_ns) {
    rank_summary summary;
    summary.file = file;
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    summary.bytes = ec ? 0 : size;
    trace tr = read_trace_file(file);
    const timeline_model model = model_timeline(tr, min_gap_ns);
    summary.rank = tr.rank >= 0 ? tr.rank : static_cast<int>(position);
    summary.world_size = tr.world_size;
    if (model.devices.empty()) return summary;
    const device_timeline* gpu = &model.devices.front();
    for (const auto& candidate : model.devices)
        if (candidate.communication_ns > 0) {
            gpu = &candidate;
            break;
        }
    summary.device = gpu->device;
    summary.gpu = gpu->name;
    summary.span_ns = gpu->span_ns();
    summary.busy_ns = gpu->busy_ns;
    summary.steps = model.steps.count;
    summary.step_ns = model.steps.count > 0 ? gpu->steps_span_ns() / std::int64_t(model.steps.count) : gpu->span_ns();
    summary.communication_ns = gpu->communication_ns;
    summary.overlap_ns = gpu->overlap_ns;
    // The trace's ops are sorted by (device, start): the device's NCCL kernels in start order, and the
    // union of its compute kernels, clipped to each NCCL kernel.
    std::vector<std::pair<std::int64_t, std::int64_t>> compute;
    for (const auto& op : tr.ops)
        if (op.device == gpu->device && op.kind == op_kind::kernel && !op.communication) {
            if (!compute.empty() && op.start_ns <= compute.back().second)
                compute.back().second = std::max(compute.back().second, op.end_ns);
            else
                compute.emplace_back(op.start_ns, op.end_ns);
        }
    std::size_t first_compute = 0;
    for (const auto& op : tr.ops) {
        if (op.device != gpu->device || !op.communication) continue;
        summary.collectives.push_back(op.end_ns - op.start_ns);
        summary.covered_begin.push_back(summary.covered.size());
        while (first_compute < compute.size() && compute[first_compute].second <= op.start_ns) ++first_compute;
        for (std::size_t j = first_compute; j < compute.size() && compute[j].first < op.end_ns; ++j) {
            const auto lo = std::max(op.start_ns, compute[j].first), hi = std::min(op.end_ns, compute[j].second);
            if (hi > lo) summary.covered.emplace_back(lo - op.start_ns, hi - op.start_ns);
        }
    }
    summary.covered_begin.push_back(summary.covered.size());
    const auto findings = timeline_findings(model);
    for (const auto& finding : findings) {
        if (finding.device != gpu->device) continue;
        summary.first_finding = finding_id(finding.kind);
        summary.first_speedup = finding.est_speedup;
        const cpu_category category = finding.kind == finding_kind::data_loading ? cpu_category::data_loading
                                      : finding.kind == finding_kind::optimizer  ? cpu_category::optimizer
                                      : finding.kind == finding_kind::dispatch   ? cpu_category::dispatch
                                      : finding.kind == finding_kind::python     ? cpu_category::python
                                      : finding.kind == finding_kind::user_range ? cpu_category::user_range
                                                                                 : cpu_category::unknown;
        if (category != cpu_category::unknown) {
            summary.first_category = category_name(category);
            summary.first_per_step_ns =
                gpu->time_of(category).ns / std::int64_t(std::max<std::size_t>(1, model.steps.count));
        }
        break;
    }
    return summary;
}

}  // namespace

std::int64_t rank_summary::exposed(std::size_t collective, std::int64_t wait) const {
    std::int64_t beside = 0;
    for (std::size_t i = covered_begin[collective]; i < covered_begin[collective + 1]; ++i)
        beside += std::max<std::int64_t>(0, std::min(wait, covered[i].second) - covered[i].first);
    return wait - beside;
}

namespace {

void compare(ranks_model& model) {
    const std::size_t rank_count = model.ranks.size();
    model.waited_ns.assign(rank_count, 0);
    model.exposed_wait_ns.assign(rank_count, 0);
    model.arrived_last.assign(rank_count, 0);
    if (rank_count == 0) return;
    std::size_t fewest = model.ranks.front().collectives.size();
    for (const auto& summary : model.ranks) {
        fewest = std::min(fewest, summary.collectives.size());
        model.counts_differ =
            model.counts_differ || summary.collectives.size() != model.ranks.front().collectives.size();
        model.step_ns = std::max(model.step_ns, summary.step_ns);
    }
    model.collectives = rank_count > 1 ? fewest : 0;
    for (std::size_t collective = 0; collective < model.collectives; ++collective) {
        std::size_t last = 0;
        for (std::size_t rank_index = 1; rank_index < rank_count; ++rank_index)
            if (model.ranks[rank_index].collectives[collective] < model.ranks[last].collectives[collective])
                last = rank_index;
        ++model.arrived_last[last];
        for (std::size_t rank_index = 0; rank_index < rank_count; ++rank_index) {
            // It spun from its start until the last rank arrived: the first part of its kernel.
            const std::int64_t wait =
                model.ranks[rank_index].collectives[collective] - model.ranks[last].collectives[collective];
            add_to(model.waited_ns[rank_index], wait);
            add_to(model.exposed_wait_ns[rank_index], model.ranks[rank_index].exposed(collective, wait));
        }
    }
    if (model.collectives == 0) return;
    const auto top = static_cast<std::size_t>(std::max_element(model.arrived_last.begin(), model.arrived_last.end()) -
                                              model.arrived_last.begin());
    if (2 * model.arrived_last[top] <= model.collectives) return;  // no rank is last at most of them
    model.straggler = top;
    // What it costs the others: their wait per step with no compute beside it (a wait that overlaps their
    // own backward pass is not on their critical path), the mean over them. Were it on time, each would
    // reach every collective without that wait.
    std::int64_t wait = 0;
    std::size_t others = 0;
    for (std::size_t rank_index = 0; rank_index < rank_count; ++rank_index) {
        if (rank_index == top) continue;
        const std::size_t steps = std::max<std::size_t>(1, model.ranks[rank_index].steps);
        wait += model.exposed_wait_ns[rank_index] / std::int64_t(steps);
        ++others;
    }
    model.others_wait_per_step_ns = others ? wait / std::int64_t(others) : 0;
    if (model.step_ns > model.others_wait_per_step_ns && model.others_wait_per_step_ns > 0)
        model.est_speedup = double(model.step_ns) / double(model.step_ns - model.others_wait_per_step_ns);
    // A wait within run-to-run noise of the step is no straggler anyone could measure.
    if (!model.est_speedup || *model.est_speedup < 1.0 + run_to_run_noise) model.straggler.reset();
}

}  // namespace

std::vector<std::string> trace_files_in(const std::string& dir) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        auto ends = [&](const std::string& tail) {
            return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
        };
        std::error_code fe;
        if (entry.is_regular_file(fe) && (ends(".json") || ends(".json.gz") || ends(".sqlite") || ends(".nsys-rep")))
            files.push_back(entry.path().string());
    }
    if (ec) throw input_error(error_code::io, dir, 0, 0, "cannot list the folder (" + ec.message() + ")");
    if (files.empty())
        throw input_error(error_code::io, dir, 0, 0,
                          "the folder holds no trace (.json, .json.gz, .sqlite or .nsys-rep files): one per rank");
    std::sort(files.begin(), files.end());
    return files;
}

ranks_model model_ranks(const std::vector<std::string>& files, std::int64_t min_gap_ns, unsigned threads,
                        const rank_progress& progress) {
    ranks_model model;
    model.ranks.resize(files.size());
    std::vector<std::exception_ptr> errors(files.size());
    std::atomic<std::size_t> next{0};
    std::mutex done_mutex;
    std::size_t done = 0;
    std::uint64_t bytes = 0;
    auto work = [&] {
        for (std::size_t i; (i = next++) < files.size();) {
            try {
                model.ranks[i] = summarise(files[i], i, min_gap_ns);
            } catch (...) {
                errors[i] = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(done_mutex);
            ++done;
            bytes += model.ranks[i].bytes;
            if (progress) progress(done, files.size(), bytes);
        }
    };
    threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(files.size())));
    std::vector<std::thread> pool;
    for (unsigned worker = 1; worker < threads; ++worker) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
    for (const auto& failure : errors)
        if (failure) std::rethrow_exception(failure);
    std::stable_sort(model.ranks.begin(), model.ranks.end(),
                     [](const rank_summary& left, const rank_summary& right) { return left.rank < right.rank; });
    compare(model);
    return model;
}

namespace {

std::string rank_name(const rank_summary& summary) { return "rank " + std::to_string(summary.rank); }

std::string per_step(std::int64_t ns, std::size_t steps) {
    return format_duration_ns(double(ns) / double(std::max<std::size_t>(1, steps)));
}

}  // namespace

namespace {

doc::document ranks_document(const ranks_model& model) {
    doc::document out;
    out.add_heading(1, "Timeline of " + std::to_string(model.ranks.size()) + " ranks");
    if (model.straggler) {
        const rank_summary& straggler = model.ranks[*model.straggler];
        out.add_heading(2, "Findings");
        doc::phrase first =
            doc::phrase()
                .strong("straggler-rank")
                .words(": " + rank_name(straggler) + " arrived last at " +
                       std::to_string(model.arrived_last[*model.straggler]) + " of " +
                       std::to_string(model.collectives) +
                       " collectives; the other ranks waited for it in NCCL, with no compute of theirs "
                       "beside the wait, " +
                       format_duration_ns(double(model.others_wait_per_step_ns)) + " a step on average (of a " +
                       format_duration_ns(double(model.step_ns)) + " step).");
        if (model.est_speedup)
            first.words(" Estimate: up to " + format_times(*model.est_speedup) + " for the job (" +
                        format_duration_ns(double(model.step_ns)) + " -> " +
                        format_duration_ns(double(model.step_ns - model.others_wait_per_step_ns)) + " a step).");
        doc::phrase why = doc::phrase("Why it is late: its own first finding is ")
                              .strong(straggler.first_finding.empty() ? "none" : straggler.first_finding);
        if (!straggler.first_category.empty())
            why.words(" (" + straggler.first_category + ", " + format_duration_ns(double(straggler.first_per_step_ns)) +
                      " a step of GPU idle time on it)");
        why.words("; ").code("roofline timeline " + straggler.file).words(" says where.");
        doc::bullet_list findings;
        findings.ordered = true;
        findings.items.push_back(
            {first,
             {why,
              "Estimate: the job's step less the others' mean wait per step (were it on time, they would reach every "
              "collective without waiting); a floor: the straggler's own step after its fix is not known here.",
              "Fix: fix the straggler's own cause first (above); where its work is larger by design, give it less "
              "(balance the shards, the sequence lengths or the pipeline stages)."}});
        out.add_list(std::move(findings));
    } else if (model.ranks.size() > 1) {
        out.add_heading(2, "Findings");
        doc::bullet_list findings;
        findings.ordered = true;
        findings.items.push_back(
            doc::phrase()
                .strong("no-straggler")
                .words(": " +
                       (model.collectives == 0
                            ? std::string("no NCCL kernel is in every rank's trace, so which rank "
                                          "holds the others back is unknown")
                            : "no rank holds the others back by more than run-to-run noise (" +
                                  format_percent(run_to_run_noise) + " of the step) at more than half of the " +
                                  std::to_string(model.collectives) + " collectives") +
                       "."));
        out.add_list(std::move(findings));
    }
    out.add_heading(2, "Ranks");
    doc::table_block rank_table{{"rank", "file", "GPU busy", "step", "NCCL", "overlapped", "waited for others",
                                 "arrived last", "first finding"},
                                {}};
    for (std::size_t i = 0; i < model.ranks.size(); ++i) {
        const rank_summary& summary = model.ranks[i];
        rank_table.rows.push_back(
            {std::to_string(summary.rank), doc::phrase().code(summary.file), format_percent(summary.utilisation()),
             format_duration_ns(double(summary.step_ns)), per_step(summary.communication_ns, summary.steps) + " a step",
             summary.communication_ns > 0
                 ? format_percent(double(summary.overlap_ns) / double(summary.communication_ns))
                 : "-",
             model.collectives ? per_step(model.waited_ns[i], summary.steps) + " (" +
                                     per_step(model.exposed_wait_ns[i], summary.steps) + " exposed) a step"
                               : "-",
             model.collectives ? std::to_string(model.arrived_last[i]) + " of " + std::to_string(model.collectives)
                               : "-",
             summary.first_finding.empty()
                 ? "-"
                 : summary.first_finding + (summary.first_speedup ? " " + format_times(*summary.first_speedup) : "")});
    }
    out.add_table(std::move(rank_table));
    std::string note =
        "A collective's NCCL kernel ends on every rank when the last one arrives, so the rank whose kernel is the "
        "shortest arrived last and each other rank waited its kernel's duration less that one (the ranks' clocks "
        "need not agree); exposed: the part of that wait with no compute kernel of the rank beside it. Collectives "
        "are matched by position: the k-th NCCL kernel of every rank.";
    if (model.counts_differ)
        note +=
            " The ranks hold different numbers of NCCL kernels (traces of different steps, or a rank that issues "
            "others): the first " +
            std::to_string(model.collectives) + " are compared.";
    out.add_paragraph(note);
    return out;
}

}  // namespace

std::string ranks_markdown(const ranks_model& model) { return doc::markdown(ranks_document(model)); }
std::string ranks_html(const ranks_model& model) { return doc::html_page(ranks_document(model)); }

std::string ranks_json(const ranks_model& model) {
    using ojson = nlohmann::ordered_json;
    ojson ranks = ojson::array();
    for (std::size_t i = 0; i < model.ranks.size(); ++i) {
        const rank_summary& summary = model.ranks[i];
        ranks.push_back(
            {{"rank", summary.rank},
             {"file", summary.file},
             {"world_size", summary.world_size > 0 ? ojson(summary.world_size) : ojson(nullptr)},
             {"device", summary.device},
             {"span_ns", summary.span_ns},
             {"busy_ns", summary.busy_ns},
             {"utilisation", json_number<ojson>(summary.utilisation())},
             {"steps", summary.steps},
             {"step_ns", summary.step_ns},
             {"communication_ns", summary.communication_ns},
             {"overlap_ns", summary.overlap_ns},
             {"collectives", summary.collectives.size()},
             {"waited_ns", model.waited_ns.empty() ? 0 : model.waited_ns[i]},
             {"exposed_wait_ns", model.exposed_wait_ns.empty() ? 0 : model.exposed_wait_ns[i]},
             {"arrived_last", model.arrived_last.empty() ? 0 : model.arrived_last[i]},
             {"first_finding", summary.first_finding.empty() ? ojson(nullptr) : ojson(summary.first_finding)},
             {"first_category", summary.first_category.empty() ? ojson(nullptr) : ojson(summary.first_category)},
             {"first_per_step_ns", summary.first_per_step_ns}});
    }
    ojson out = {{"schema", "roofline-timeline-ranks/1"},
                 {"ranks", ranks},
                 {"collectives", model.collectives},
                 {"counts_differ", model.counts_differ},
                 {"step_ns", model.step_ns}};
    out["straggler"] =
        model.straggler
            ? ojson{{"rank", model.ranks[*model.straggler].rank},
                    {"arrived_last", model.arrived_last[*model.straggler]},
                    {"others_wait_per_step_ns", model.others_wait_per_step_ns},
                    {"est_speedup", model.est_speedup ? json_number<ojson>(*model.est_speedup) : ojson(nullptr)}}
            : ojson(nullptr);
    return json_text(out);
}

}  // namespace roofline::timeline
