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
    rank_summary s;
    s.file = file;
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    s.bytes = ec ? 0 : size;
    trace t = read_trace_file(file);
    const timeline_model m = model_timeline(t, min_gap_ns);
    s.rank = t.rank >= 0 ? t.rank : static_cast<int>(position);
    s.world_size = t.world_size;
    if (m.devices.empty()) return s;
    const device_timeline* d = &m.devices.front();
    for (const auto& x : m.devices)
        if (x.communication_ns > 0) {
            d = &x;
            break;
        }
    s.device = d->device;
    s.gpu = d->name;
    s.span_ns = d->span_ns();
    s.busy_ns = d->busy_ns;
    s.steps = m.steps.count;
    s.step_ns = m.steps.count > 0 ? d->steps_span_ns() / std::int64_t(m.steps.count) : d->span_ns();
    s.communication_ns = d->communication_ns;
    s.overlap_ns = d->overlap_ns;
    // The trace's ops are sorted by (device, start): the device's NCCL kernels in start order, and the
    // union of its compute kernels, clipped to each NCCL kernel.
    std::vector<std::pair<std::int64_t, std::int64_t>> compute;
    for (const auto& op : t.ops)
        if (op.device == d->device && op.kind == op_kind::kernel && !op.communication) {
            if (!compute.empty() && op.start_ns <= compute.back().second)
                compute.back().second = std::max(compute.back().second, op.end_ns);
            else
                compute.emplace_back(op.start_ns, op.end_ns);
        }
    std::size_t c = 0;
    for (const auto& op : t.ops) {
        if (op.device != d->device || !op.communication) continue;
        s.collectives.push_back(op.end_ns - op.start_ns);
        s.covered_begin.push_back(s.covered.size());
        while (c < compute.size() && compute[c].second <= op.start_ns) ++c;
        for (std::size_t j = c; j < compute.size() && compute[j].first < op.end_ns; ++j) {
            const auto lo = std::max(op.start_ns, compute[j].first), hi = std::min(op.end_ns, compute[j].second);
            if (hi > lo) s.covered.emplace_back(lo - op.start_ns, hi - op.start_ns);
        }
    }
    s.covered_begin.push_back(s.covered.size());
    const auto findings = timeline_findings(m);
    for (const auto& f : findings) {
        if (f.device != d->device) continue;
        s.first_finding = finding_id(f.kind);
        s.first_speedup = f.est_speedup;
        const cpu_category c = f.kind == finding_kind::data_loading ? cpu_category::data_loading
                               : f.kind == finding_kind::optimizer  ? cpu_category::optimizer
                               : f.kind == finding_kind::dispatch   ? cpu_category::dispatch
                               : f.kind == finding_kind::python     ? cpu_category::python
                               : f.kind == finding_kind::user_range ? cpu_category::user_range
                                                                    : cpu_category::unknown;
        if (c != cpu_category::unknown) {
            s.first_category = category_name(c);
            s.first_per_step_ns = d->time_of(c).ns / std::int64_t(std::max<std::size_t>(1, m.steps.count));
        }
        break;
    }
    return s;
}

}  // namespace

std::int64_t rank_summary::exposed(std::size_t k, std::int64_t wait) const {
    std::int64_t beside = 0;
    for (std::size_t i = covered_begin[k]; i < covered_begin[k + 1]; ++i)
        beside += std::max<std::int64_t>(0, std::min(wait, covered[i].second) - covered[i].first);
    return wait - beside;
}

namespace {

void compare(ranks_model& m) {
    const std::size_t n = m.ranks.size();
    m.waited_ns.assign(n, 0);
    m.exposed_wait_ns.assign(n, 0);
    m.arrived_last.assign(n, 0);
    if (n == 0) return;
    std::size_t fewest = m.ranks.front().collectives.size();
    for (const auto& r : m.ranks) {
        fewest = std::min(fewest, r.collectives.size());
        m.counts_differ = m.counts_differ || r.collectives.size() != m.ranks.front().collectives.size();
        m.step_ns = std::max(m.step_ns, r.step_ns);
    }
    m.collectives = n > 1 ? fewest : 0;
    for (std::size_t k = 0; k < m.collectives; ++k) {
        std::size_t last = 0;
        for (std::size_t r = 1; r < n; ++r)
            if (m.ranks[r].collectives[k] < m.ranks[last].collectives[k]) last = r;
        ++m.arrived_last[last];
        for (std::size_t r = 0; r < n; ++r) {
            // It spun from its start until the last rank arrived: the first part of its kernel.
            const std::int64_t wait = m.ranks[r].collectives[k] - m.ranks[last].collectives[k];
            add_to(m.waited_ns[r], wait);
            add_to(m.exposed_wait_ns[r], m.ranks[r].exposed(k, wait));
        }
    }
    if (m.collectives == 0) return;
    const auto top = static_cast<std::size_t>(std::max_element(m.arrived_last.begin(), m.arrived_last.end()) -
                                              m.arrived_last.begin());
    if (2 * m.arrived_last[top] <= m.collectives) return;  // no rank is last at most of them
    m.straggler = top;
    // What it costs the others: their wait per step with no compute beside it (a wait that overlaps their
    // own backward pass is not on their critical path), the mean over them. Were it on time, each would
    // reach every collective without that wait.
    std::int64_t wait = 0;
    std::size_t others = 0;
    for (std::size_t r = 0; r < n; ++r) {
        if (r == top) continue;
        const std::size_t steps = std::max<std::size_t>(1, m.ranks[r].steps);
        wait += m.exposed_wait_ns[r] / std::int64_t(steps);
        ++others;
    }
    m.others_wait_per_step_ns = others ? wait / std::int64_t(others) : 0;
    if (m.step_ns > m.others_wait_per_step_ns && m.others_wait_per_step_ns > 0)
        m.est_speedup = double(m.step_ns) / double(m.step_ns - m.others_wait_per_step_ns);
    // A wait within run-to-run noise of the step is no straggler anyone could measure.
    if (!m.est_speedup || *m.est_speedup < 1.0 + run_to_run_noise) m.straggler.reset();
}

}  // namespace

std::vector<std::string> trace_files_in(const std::string& dir) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        auto ends = [&](const std::string& tail) {
            return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
        };
        std::error_code fe;
        if (e.is_regular_file(fe) && (ends(".json") || ends(".json.gz") || ends(".sqlite") || ends(".nsys-rep")))
            files.push_back(e.path().string());
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
    ranks_model m;
    m.ranks.resize(files.size());
    std::vector<std::exception_ptr> errors(files.size());
    std::atomic<std::size_t> next{0};
    std::mutex done_mutex;
    std::size_t done = 0;
    std::uint64_t bytes = 0;
    auto work = [&] {
        for (std::size_t i; (i = next++) < files.size();) {
            try {
                m.ranks[i] = summarise(files[i], i, min_gap_ns);
            } catch (...) {
                errors[i] = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(done_mutex);
            ++done;
            bytes += m.ranks[i].bytes;
            if (progress) progress(done, files.size(), bytes);
        }
    };
    threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(files.size())));
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < threads; ++k) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    std::stable_sort(m.ranks.begin(), m.ranks.end(),
                     [](const rank_summary& a, const rank_summary& b) { return a.rank < b.rank; });
    compare(m);
    return m;
}

namespace {

std::string rank_name(const rank_summary& r) { return "rank " + std::to_string(r.rank); }

std::string per_step(std::int64_t ns, std::size_t steps) {
    return format_duration_ns(double(ns) / double(std::max<std::size_t>(1, steps)));
}

}  // namespace

namespace {

doc::document ranks_document(const ranks_model& m) {
    doc::document o;
    o.add_heading(1, "Timeline of " + std::to_string(m.ranks.size()) + " ranks");
    if (m.straggler) {
        const rank_summary& s = m.ranks[*m.straggler];
        o.add_heading(2, "Findings");
        doc::phrase first =
            doc::phrase()
                .strong("straggler-rank")
                .words(": " + rank_name(s) + " arrived last at " + std::to_string(m.arrived_last[*m.straggler]) +
                       " of " + std::to_string(m.collectives) +
                       " collectives; the other ranks waited for it in NCCL, with no compute of theirs "
                       "beside the wait, " +
                       format_duration_ns(double(m.others_wait_per_step_ns)) + " a step on average (of a " +
                       format_duration_ns(double(m.step_ns)) + " step).");
        if (m.est_speedup)
            first.words(" Estimate: up to " + format_times(*m.est_speedup) + " for the job (" +
                        format_duration_ns(double(m.step_ns)) + " -> " +
                        format_duration_ns(double(m.step_ns - m.others_wait_per_step_ns)) + " a step).");
        doc::phrase why = doc::phrase("Why it is late: its own first finding is ")
                              .strong(s.first_finding.empty() ? "none" : s.first_finding);
        if (!s.first_category.empty())
            why.words(" (" + s.first_category + ", " + format_duration_ns(double(s.first_per_step_ns)) +
                      " a step of GPU idle time on it)");
        why.words("; ").code("roofline timeline " + s.file).words(" says where.");
        doc::bullet_list findings;
        findings.ordered = true;
        findings.items.push_back(
            {first,
             {why,
              "Estimate: the job's step less the others' mean wait per step (were it on time, they would reach every "
              "collective without waiting); a floor: the straggler's own step after its fix is not known here.",
              "Fix: fix the straggler's own cause first (above); where its work is larger by design, give it less "
              "(balance the shards, the sequence lengths or the pipeline stages)."}});
        o.add_list(std::move(findings));
    } else if (m.ranks.size() > 1) {
        o.add_heading(2, "Findings");
        doc::bullet_list findings;
        findings.ordered = true;
        findings.items.push_back(
            doc::phrase()
                .strong("no-straggler")
                .words(": " +
                       (m.collectives == 0
                            ? std::string("no NCCL kernel is in every rank's trace, so which rank "
                                          "holds the others back is unknown")
                            : "no rank holds the others back by more than run-to-run noise (" +
                                  format_percent(run_to_run_noise) + " of the step) at more than half of the " +
                                  std::to_string(m.collectives) + " collectives") +
                       "."));
        o.add_list(std::move(findings));
    }
    o.add_heading(2, "Ranks");
    doc::table_block t{{"rank", "file", "GPU busy", "step", "NCCL", "overlapped", "waited for others", "arrived last",
                        "first finding"},
                       {}};
    for (std::size_t i = 0; i < m.ranks.size(); ++i) {
        const rank_summary& r = m.ranks[i];
        t.rows.push_back(
            {std::to_string(r.rank), doc::phrase().code(r.file), format_percent(r.utilisation()),
             format_duration_ns(double(r.step_ns)), per_step(r.communication_ns, r.steps) + " a step",
             r.communication_ns > 0 ? format_percent(double(r.overlap_ns) / double(r.communication_ns)) : "-",
             m.collectives ? per_step(m.waited_ns[i], r.steps) + " (" + per_step(m.exposed_wait_ns[i], r.steps) +
                                 " exposed) a step"
                           : "-",
             m.collectives ? std::to_string(m.arrived_last[i]) + " of " + std::to_string(m.collectives) : "-",
             r.first_finding.empty()
                 ? "-"
                 : r.first_finding + (r.first_speedup ? " " + format_times(*r.first_speedup) : "")});
    }
    o.add_table(std::move(t));
    std::string note =
        "A collective's NCCL kernel ends on every rank when the last one arrives, so the rank whose kernel is the "
        "shortest arrived last and each other rank waited its kernel's duration less that one (the ranks' clocks "
        "need not agree); exposed: the part of that wait with no compute kernel of the rank beside it. Collectives "
        "are matched by position: the k-th NCCL kernel of every rank.";
    if (m.counts_differ)
        note +=
            " The ranks hold different numbers of NCCL kernels (traces of different steps, or a rank that issues "
            "others): the first " +
            std::to_string(m.collectives) + " are compared.";
    o.add_paragraph(note);
    return o;
}

}  // namespace

std::string ranks_markdown(const ranks_model& m) { return doc::markdown(ranks_document(m)); }
std::string ranks_html(const ranks_model& m) { return doc::html_page(ranks_document(m)); }

std::string ranks_json(const ranks_model& m) {
    using ojson = nlohmann::ordered_json;
    ojson ranks = ojson::array();
    for (std::size_t i = 0; i < m.ranks.size(); ++i) {
        const rank_summary& r = m.ranks[i];
        ranks.push_back({{"rank", r.rank},
                         {"file", r.file},
                         {"world_size", r.world_size > 0 ? ojson(r.world_size) : ojson(nullptr)},
                         {"device", r.device},
                         {"span_ns", r.span_ns},
                         {"busy_ns", r.busy_ns},
                         {"utilisation", json_number<ojson>(r.utilisation())},
                         {"steps", r.steps},
                         {"step_ns", r.step_ns},
                         {"communication_ns", r.communication_ns},
                         {"overlap_ns", r.overlap_ns},
                         {"collectives", r.collectives.size()},
                         {"waited_ns", m.waited_ns.empty() ? 0 : m.waited_ns[i]},
                         {"exposed_wait_ns", m.exposed_wait_ns.empty() ? 0 : m.exposed_wait_ns[i]},
                         {"arrived_last", m.arrived_last.empty() ? 0 : m.arrived_last[i]},
                         {"first_finding", r.first_finding.empty() ? ojson(nullptr) : ojson(r.first_finding)},
                         {"first_category", r.first_category.empty() ? ojson(nullptr) : ojson(r.first_category)},
                         {"first_per_step_ns", r.first_per_step_ns}});
    }
    ojson j = {{"schema", "roofline-timeline-ranks/1"},
               {"ranks", ranks},
               {"collectives", m.collectives},
               {"counts_differ", m.counts_differ},
               {"step_ns", m.step_ns}};
    j["straggler"] = m.straggler
                         ? ojson{{"rank", m.ranks[*m.straggler].rank},
                                 {"arrived_last", m.arrived_last[*m.straggler]},
                                 {"others_wait_per_step_ns", m.others_wait_per_step_ns},
                                 {"est_speedup", m.est_speedup ? json_number<ojson>(*m.est_speedup) : ojson(nullptr)}}
                         : ojson(nullptr);
    return json_text(j);
}

}  // namespace roofline::timeline
