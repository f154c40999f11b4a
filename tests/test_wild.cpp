// The engine on kernels it was not built with (examples/wild): the first finding against labels
// written before the engine saw the captures, the estimates against the measured gains of the
// progressions, and properties every diagnosis must have on every capture in the repository.
#include "analyzer/diagnose/estimate.hpp"
#include "analyzer/diagnose/kernel_facts.hpp"
#include "models/classify.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

using namespace roofline;
using namespace roofline::test;
using json = nlohmann::json;

namespace {

const analysis& wild(const std::string& capture) {
    static std::map<std::string, analysis> cache;
    auto it = cache.find(capture);
    if (it == cache.end()) it = cache.emplace(capture, analyze_example("examples/wild/" + capture)).first;
    return it->second;
}

// The kernel a launch of the capture (by ncu's ID) belongs to: kernels are folded by name, block
// and grid, so two library calls of one kernel on one grid are one kernel.
const analysed_kernel& by_id(const std::string& capture, int id) {
    static std::map<std::string, std::vector<launch_record>> launches;
    auto it = launches.find(capture);
    if (it == launches.end()) it = launches.emplace(capture, read_example("examples/wild/" + capture)).first;
    for (const auto& l : it->second)
        if (l.id == std::to_string(id))
            for (const auto& k : wild(capture).kernels)
                if (k.group.name == l.kernel_name && k.group.block_size == l.block_size &&
                    k.group.grid_size == l.grid_size)
                    return k;
    throw std::runtime_error(capture + ": no kernel for launch ID " + std::to_string(id));
}

const gpu_spec& spec_of(const analysis& a) { return a.gpu; }

}  // namespace

TEST_CASE("wild set: the first finding is a labelled one on at least 90% of the labelled kernels") {
    auto labels = json::parse(read_text(source_path("examples/wild/labels.json")));
    std::map<std::string, json> ops;
    for (const auto& l : labels["labels"]) ops[l["op"]] = l;
    std::size_t right = 0, total = 0, right_as_written = 0;
    for (const auto& e : labels["kernels"]) {
        const auto& k = by_id(e["capture"], e["id"].get<int>());
        json first = e.contains("first") ? e["first"] : ops.at(e["op"])["first"];
        json as_written = e.contains("first_as_written") ? e["first_as_written"] : first;
        REQUIRE(!k.diagnosis.findings.empty());
        const std::string got = k.diagnosis.findings.front().id;
        auto in = [&](const json& set) { return std::find(set.begin(), set.end(), got) != set.end(); };
        ++total;
        right += in(first);
        right_as_written += in(as_written);
        if (!in(first)) {
            const std::string miss = e["op"].get<std::string>() + " (" + k.group.name.substr(0, 60) +
                                     "): first finding " + got + ", labelled " + first.dump();
            MESSAGE(miss);
        }
    }
    const std::string tally = std::to_string(right) + " of " + std::to_string(total) +
                              " right; against the labels as first written " + std::to_string(right_as_written);
    MESSAGE(tally);
    CHECK(total >= 60);
    CHECK(double(right) >= 0.9 * double(total));
}

TEST_CASE(
    "wild set: every estimate of the progressions lands within [0.67x, 1.5x] of the gain measured by the variant that "
    "applies its fix") {
    auto p = json::parse(read_text(source_path("examples/wild/progressions.json")));
    auto kernel = [&](const std::string& name) -> const analysed_kernel& {
        const auto& where = p["kernels"][name];
        return by_id(where[0], where[1].get<int>());
    };
    std::size_t checked = 0;
    for (const auto& c : p["checks"]) {
        CAPTURE(c["from"].get<std::string>());
        const auto& from = kernel(c["from"]);
        const double measured = from.roof.duration_ns / kernel(c["to"]).roof.duration_ns;
        auto f = std::find_if(from.diagnosis.findings.begin(), from.diagnosis.findings.end(),
                              [&](const diagnose::finding& x) { return x.id == c["finding"].get<std::string>(); });
        REQUIRE(f != from.diagnosis.findings.end());
        REQUIRE(f->est_speedup.has_value());
        CAPTURE(measured);
        CAPTURE(*f->est_speedup);
        CHECK(*f->est_speedup >= 0.67 * measured);
        CHECK(*f->est_speedup <= 1.5 * measured);
        ++checked;
    }
    CHECK(checked >= 8);
}

TEST_CASE("HFMA2.MMA register moves are neither tensor work nor FP16 FLOPs") {
    // rowsum_thread's SASS has one HFMA2.MMA per warp and no MMA: ncu counts 65,536 HFMA thread
    // instructions and 2,048 tensor-pipe instructions (examples/wild/own_counter_check.csv).
    const auto& k = by_id("own_raw.csv", 0);
    CHECK(k.roof.find(roofline::resource::fp16) == nullptr);
    CHECK(std::any_of(k.roof.notes.begin(), k.roof.notes.end(),
                      [](const roof_note& n) { return n.kind == roof_note_kind::fp16_moves && n.value > 0; }));
    CHECK(diagnose::kernel_facts(k, spec_of(wild("own_raw.csv")))("mma").value() == 0.0);
}

TEST_CASE("properties of every diagnosis on every capture in the repository") {
    namespace fs = std::filesystem;
    std::size_t kernels = 0, files = 0;
    for (const char* dir : {"examples/h100", "examples/h200", "examples/h200/forms", "examples/h100/metric_plan",
                            "examples/wild", "examples/steps", "examples/steps_physics"}) {
        for (const auto& entry : fs::directory_iterator(source_path(dir))) {
            const std::string name = entry.path().filename().string();
            // Not analysed alone: a session page has no metrics, and the counter check is a --metrics
            // export without a device name (roofline analyze asks for --gpu there).
            if (entry.path().extension() != ".csv" || name.find("session") != std::string::npos ||
                name.find("counter_check") != std::string::npos)
                continue;
            CAPTURE(name);
            ++files;
            // The metrics kept: the facts below are evaluated again after the analysis.
            auto a = analyze_file(entry.path().string(), keeping_metrics());
            for (const auto& k : a.kernels) {
                ++kernels;
                CAPTURE(k.group.name.substr(0, 80));
                const auto bound_facts = diagnose::kernel_facts(k, a.gpu);
                // A provisional first finding fired with every resource at the least work the counters prove:
                // its node's conditions hold on those facts (diagnose.cpp, first_at_least_work).
                const roofline::kernel_result least_kernel = roofline::at_least_work(k, a.gpu);
                const auto least_facts = diagnose::kernel_facts(least_kernel, a.gpu);
                const bool first_at_least = !k.diagnosis.findings.empty() && k.diagnosis.findings.front().at_least_work;
                const auto& facts = first_at_least ? least_facts : bound_facts;
                double combined = 0.0;
                bool promises_more = false;
                for (const auto& f : k.diagnosis.findings) {
                    CAPTURE(f.id);
                    if (f.id != "near-roof" && f.tree != "workload" && f.est_speedup && *f.est_speedup > 1.25)
                        promises_more = true;
                    // No tensor finding without real MMA work.
                    if (f.id == "tensor-underused") CHECK(facts("mma").value().value_or(0.0) == 1.0);
                    if (!f.est_speedup) continue;
                    // No estimate of 0, and a fix never makes a kernel slower.
                    CHECK(*f.est_time_after_ns > 0.0);
                    CHECK(*f.est_speedup >= 1.0);
                    if (f.tree == "workload") continue;
                    combined += f.est_time_saved_combined_ns.value_or(0.0);
                    // No estimate beats a floor its fix leaves: every resource it does not change
                    // still needs its busy work at its practical share.
                    for (const auto& r : k.roof.resources) {
                        if (!roofline::info(r.id).in_floor) continue;
                        CAPTURE(r.id);
                        if (!f.effect.changed_work.count(r.id)) {
                            const double floor =
                                std::min(k.roof.duration_ns, r.utilisation * k.roof.duration_ns / r.practical);
                            CHECK(*f.est_time_after_ns >= floor * (1.0 - 1e-9));
                        }
                        // No estimate above the compulsory floor its fix leaves: DRAM's bytes (read + the writes
                        // the stores owe) and each precision's FLOPs, at their practical shares, unless the fix
                        // itself moves them (fewer DRAM bytes, FLOPs onto tensor cores).
                        const auto& info = roofline::info(r.id);
                        if (r.id == roofline::resource::dram || info.precision) {
                            const double left =
                                f.effect.changed_work.count(r.id)
                                    ? std::min(f.effect.changed_work.at(r.id), r.useful * k.roof.duration_ns)
                                    : r.useful * k.roof.duration_ns;
                            CHECK(*f.est_time_after_ns >=
                                  std::min(k.roof.duration_ns, left / r.practical) * (1.0 - 1e-9));
                        }
                    }
                    // Nor below the shortest launch this GPU runs, unless the fix removes the launch.
                    if (!f.effect.removes_launch && a.gpu.min_kernel_ns.value)
                        CHECK(*f.est_time_after_ns >=
                              std::min(k.roof.duration_ns, *a.gpu.min_kernel_ns.value) * (1.0 - 1e-9));
                    // No finding whose fix gains less than run-to-run noise is an opportunity.
                    if (f.id != "near-roof" && f.tree != "catch-all")
                        CHECK(*f.est_speedup >= 1.0 + roofline::run_to_run_noise);
                    // issue-bound's instructions are overhead, not the operation: the estimate keeps the XU's
                    // transcendentals and the FLOPs.
                    if (f.id == "issue-bound")
                        if (const auto* xu = k.roof.find(roofline::resource::pipe_xu))
                            CHECK(*f.est_time_after_ns >=
                                  std::min(k.roof.duration_ns, xu->utilisation * k.roof.duration_ns) * (1.0 - 1e-9));
                }
                // No small grid while every SM has a block; its gain never above the SM ratio times the warps an
                // SM may hold over those it holds now (a latency-bound SM's throughput grows at most with its
                // resident warps), nor above the floors the work leaves.
                for (const auto& f : k.diagnosis.findings)
                    if (f.id == "small-grid") {
                        CHECK(k.shape.grid_blocks < k.shape.sm_count);
                        const auto achieved = k.group.metrics.find("sm__warps_active.avg.pct_of_peak_sustained_active");
                        const auto allowed = k.group.metrics.find("sm__maximum_warps_per_active_cycle_pct");
                        if (f.est_speedup && achieved && allowed && *achieved > 0) {
                            const double warps = std::max(1.0, *allowed / *achieved);
                            CHECK(*f.est_speedup <= k.shape.sm_count / k.shape.grid_blocks * warps * (1.0 + 1e-9));
                            CHECK(*f.est_time_after_ns >= k.roof.practical_floor_ns * (1.0 - 1e-9));
                        }
                    }
                // Ties follow the limiter: a finding whose estimate cannot be told from the first's never takes
                // more off the named limiter's work than the first does (5% of it, the alike band).
                if (k.verdict.limiter && !k.diagnosis.findings.empty()) {
                    const auto now = diagnose::current_work(k.roof);
                    const auto lim = *k.verdict.limiter;
                    auto left = [&](const diagnose::finding& f) {
                        const auto it = f.effect.changed_work.find(lim);
                        return it == f.effect.changed_work.end() || !now.count(lim) || now.at(lim) <= 0
                                   ? 1.0
                                   : it->second / now.at(lim);
                    };
                    const auto& first = k.diagnosis.findings.front();
                    for (const auto& f : k.diagnosis.findings)
                        if (&f != &first && first.id != "near-roof" && first.est_time_after_ns && f.est_time_after_ns &&
                            *f.est_time_after_ns <= *first.est_time_after_ns * 1.05 &&
                            first.below_kernel_findings == f.below_kernel_findings) {
                            CAPTURE(f.id);
                            CHECK(left(f) >= left(first) - 0.05 - 1e-9);
                        }
                }
                // issue-bound only where issue slots or a non-FLOP pipe limit, never on tensor work.
                for (const auto& f : k.diagnosis.findings)
                    if (f.id == "issue-bound") {
                        CHECK(facts("limiter_tensor").value().value_or(1.0) == 0.0);
                        const bool issue = facts("pressure_issue").value().value_or(0.0) >= 0.6;
                        const auto& verdict = f.at_least_work ? least_kernel.verdict : k.verdict;
                        const bool pipe = verdict.bound == roofline::bound::compute && verdict.limiter &&
                                          roofline::info(*verdict.limiter).pipe;
                        CHECK((issue || pipe));
                    }
                // No tensor advice to a kernel whose tensor work is on its precision's roof.
                const bool tensor_on_roof =
                    facts("mma").value().value_or(0.0) == 1.0 && facts("tensor_share").value().value_or(0.0) >= 0.8;
                if (tensor_on_roof)
                    for (const auto& f : k.diagnosis.findings) {
                        CHECK(f.id != "tensor-underused");
                        CHECK(f.id != "cuda-core-matmul");
                        for (const auto& fix : f.fixes)
                            CHECK(std::string(fix).find("on tensor cores") == std::string::npos);
                    }
                // Savings on one kernel overlap: together they stay within its time.
                CHECK(combined <= k.roof.duration_ns * (1.0 + 1e-9));
                // near-roof ("look elsewhere") never stands beside a larger promise.
                if (promises_more)
                    CHECK(std::none_of(k.diagnosis.findings.begin(), k.diagnosis.findings.end(),
                                       [](const diagnose::finding& f) { return f.id == "near-roof"; }));
                // Every kernel that matters gets an answer.
                if (k.roof.placed && k.share >= 0.02) CHECK_FALSE(k.diagnosis.findings.empty());
            }
        }
    }
    CHECK(files >= 30);
    CHECK(kernels >= 300);
}
