// roofline metrics: the plan is what the engine reads, every name in it exists on an H100 (held to the
// real --set full export in examples/h100), and "optional" means the model really does without it.
#include "analyzer/base/input_error.hpp"
#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/cli/commands.hpp"
#include "analyzer/diagnose/metric_plan.hpp"
#include "analyzer/report/metric_plan_text.hpp"
#include "models/kernel_result.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <set>

using namespace roofline;
using namespace roofline::test;

namespace {

const rules::planned_metric* planned(const std::string& id) {
    for (const auto& m : gh100_plan().metrics)
        if (m.id == id) return &m;
    for (const auto& m : gh100_plan().section_only)
        if (m.id == id) return &m;
    return nullptr;
}

// The columns of a raw-page export's header (ncu quotes every one).
std::vector<std::string> header_columns(const std::string& rel) {
    std::istringstream in(read_text(source_path(rel)));
    std::string line;
    std::getline(in, line);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < line.size();) {
        const std::size_t open = line.find('"', i);
        if (open == std::string::npos) break;
        const std::size_t close = line.find('"', open + 1);
        if (close == std::string::npos) break;
        out.push_back(line.substr(open + 1, close - open - 1));
        i = close + 1;
    }
    return out;
}

std::string base_of(const std::string& id) { return id.substr(0, id.find('.')); }

// Every quoted string in the source files of a folder that the metric catalogue knows.
std::set<std::string> catalogue_literals(const std::string& folder) {
    std::set<std::string> out;
    const std::regex quoted("\"([a-z0-9_.]+)\"");
    for (const auto& e : std::filesystem::directory_iterator(source_path(folder))) {
        const auto ext = e.path().extension();
        if (ext != ".cpp" && ext != ".hpp") continue;
        const std::string text = read_text(e.path().string());
        for (auto it = std::sregex_iterator(text.begin(), text.end(), quoted); it != std::sregex_iterator(); ++it)
            if (find_metric((*it)[1].str())) out.insert((*it)[1].str());
    }
    return out;
}

}  // namespace

TEST_CASE("the plan is exactly what the reader keeps, less what a GH100 lacks") {
    std::set<std::string> ids;
    for (const auto& m : gh100_plan().metrics) {
        CHECK(engine_reads(m.id));
        CHECK(m.id.rfind("derived__", 0) != 0);  // --metrics cannot ask for ncu's section-defined metrics
        ids.insert(m.id);
    }
    for (const auto& m : gh100_plan().section_only) ids.insert(m.id);
    for (const auto& id : gh100_plan().absent) ids.insert(id);
    for (const auto& m : metric_catalogue()) CHECK_MESSAGE(ids.count(m.id) == 1, m.id);
    CHECK(gh100_plan().metrics.size() + gh100_plan().section_only.size() + gh100_plan().absent.size() ==
          metric_catalogue().size() + metric_families().front().gh100_members.size());
}

TEST_CASE("the tensor-path family is expanded to exactly the H100 export's columns of it") {
    const auto& f = metric_families().front();
    std::set<std::string> in_capture;
    for (const auto& c : header_columns("examples/h100/kernels_raw.csv"))
        if (c.rfind(f.prefix, 0) == 0 && c.size() > f.suffix.size() &&
            c.compare(c.size() - f.suffix.size(), f.suffix.size(), f.suffix) == 0)
            in_capture.insert(c);
    CHECK(in_capture.size() == 9);  // hgmma bf16/fp16/tf32, hmma bf16/fp16-fp16/fp16-fp32/tf32, igmma and imma int8
    CHECK(std::set<std::string>(f.gh100_members.begin(), f.gh100_members.end()) == in_capture);
    for (const auto& id : f.gh100_members) CHECK(planned(id) != nullptr);
}

TEST_CASE("every planned metric exists on an H100; every id left out does not") {
    std::set<std::string> bases;
    for (const auto& c : header_columns("examples/h100/kernels_raw.csv")) bases.insert(base_of(c));
    std::set<std::string> h200;
    for (const auto& c : header_columns("examples/h200/kernels_raw.csv")) h200.insert(base_of(c));
    for (const auto& m : gh100_plan().metrics) {
        // sm__ops_path_tensor_src_fp8 is in `ncu --query-metrics` on the H100 (FORMATS.md's list), but
        // --set full does not collect it; every other base is a column of the real --set full export.
        if (m.id == "sm__ops_path_tensor_src_fp8.sum") continue;
        CHECK_MESSAGE(bases.count(base_of(m.id)) == 1, m.id);
    }
    for (const auto& m : gh100_plan().section_only) CHECK_MESSAGE(bases.count(base_of(m.id)) == 1, m.id);
    CHECK(gh100_plan().absent.size() == 10);
    for (const auto& id : gh100_plan().absent) {
        CHECK_MESSAGE(bases.count(base_of(id)) == 0, id);
        CHECK_MESSAGE(h200.count(base_of(id)) == 0, id);
    }
}

TEST_CASE("required is what the model's code names; optional metrics appear nowhere in models/") {
    const auto model = catalogue_literals("models");
    REQUIRE(model.size() > 40);
    for (const auto& id : model) {
        const auto* p = planned(id);
        if (!p) continue;  // another chip's tensor path
        CHECK_MESSAGE(p->required, id);
    }
    for (const auto& m : gh100_plan().metrics)
        if (!m.required) CHECK_MESSAGE(model.count(m.id) == 0, m.id);
    CHECK(gh100_plan().required_count() < gh100_plan().metrics.size());
}

TEST_CASE("a rule node needs every metric its expressions name") {
    // Read from the rule files' text, independently of the plan: "when" conditions naming stall ratios.
    const auto* long_scoreboard = planned("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio");
    REQUIRE(long_scoreboard != nullptr);
    CHECK_FALSE(long_scoreboard->needed_by.empty());
    for (const auto& t : rules::load_rule_trees()) {
        std::function<void(const rules::rule_node&)> check = [&](const rules::rule_node& n) {
            for (const auto& name : n.when.names())
                if (const auto* p = planned(name)) {
                    const auto& by = p->needed_by;
                    const std::string where = name + " in " + t.id + "/" + n.id;
                    CHECK_MESSAGE(std::find(by.begin(), by.end(), t.id + "/" + n.id) != by.end(), where);
                }
            for (const auto& c : n.children) check(c);
        };
        for (const auto& r : t.roots) check(r);
    }
}

TEST_CASE("a real capture without the optional metrics is placed on the roofline as it was") {
    auto a = analyze_file(source_path("examples/h100/kernels_raw.csv"), keeping_metrics());
    REQUIRE(a.kernels.size() == 8);
    std::set<std::string> optional;
    for (const auto& m : gh100_plan().metrics)
        if (!m.required) optional.insert(m.id);
    for (const auto& k : a.kernels) {
        kernel_group g = k.group;
        std::map<std::string, double> kept;
        std::size_t dropped = 0;
        for (const auto& [key, v] : k.group.numbers.entries()) {
            if (optional.count(metric_name(key)))
                ++dropped;
            else
                kept[metric_name(key)] = v;
        }
        CHECK(dropped > 0);
        g.numbers = metric_values(kept);
        const auto again = model_kernel(g, a.gpu);
        CHECK(again.roof.placed == k.roof.placed);
        CHECK(again.roof.duration_ns == k.roof.duration_ns);
        CHECK(again.roof.floor_ns == k.roof.floor_ns);
        CHECK(again.roof.binding == k.roof.binding);
        CHECK(verdict_text(again.verdict) == verdict_text(k.verdict));
    }
}

TEST_CASE("roofline metrics: one line for --metrics, a section file, a markdown table") {
    auto list = run_cli({"metrics"});
    CHECK(list.rc == 0);
    CHECK(list.out == rules::metrics_argument(gh100_plan()) + "\n");
    CHECK(std::count(list.out.begin(), list.out.end(), ',') + 1 == long(gh100_plan().metrics.size()));
    CHECK(list.out.find("gpu__time_duration.sum") != std::string::npos);
    CHECK(list.out.find(' ') == std::string::npos);
    auto section = run_cli({"metrics", "--format", "section"}).out;
    CHECK(section.find("Identifier: \"roofline\"\n") != std::string::npos);
    CHECK(section.find("Header {\n") != std::string::npos);
    CHECK(section.find("  Metrics {\n    Label: \"gpu__time_duration.sum\"\n    Name: \"gpu__time_duration.sum\"\n  }\n") !=
          std::string::npos);
    // One Metrics block per planned metric, each with a Label and a Name.
    std::size_t blocks = 0;
    for (std::size_t at = section.find("    Name: \""); at != std::string::npos; at = section.find("    Name: \"", at + 1)) ++blocks;
    CHECK(blocks == gh100_plan().metrics.size());
    auto md = run_cli({"metrics", "--format", "markdown"}).out;
    CHECK(md.find("| `gpu__time_duration.sum` | required |") != std::string::npos);
    auto path = temp_path("roofline.section").string();
    std::filesystem::remove(path);
    CHECK(run_cli({"metrics", "--format", "section", "-o", path}).rc == 0);
    CHECK(read_text(path) == section);
    CHECK_THROWS_WITH_AS(run_cli({"metrics", "--format", "lst"}), doctest::Contains("did you mean \"list\""), input_error);
}

TEST_CASE("analyze names the rule nodes a --metrics capture lacked counters for, and roofline metrics as the fix") {
    // A real live run with five metrics (examples/h100/MANIFEST.md): gpu__time_duration.sum,
    // dram__bytes_read.sum, dram__bytes_write.sum, sm__throughput...pct_of_peak_sustained_elapsed, launch__grid_size.
    const std::string live = read_text(source_path("examples/h100/live_metrics_stdout.txt"));
    auto md = run_cli({"analyze", source_path("examples/h100/live_metrics_stdout.txt"), "--gpu", "h100-sxm", "--format", "markdown"}).out;
    CHECK(md.find("- Counters missing: ") != std::string::npos);
    CHECK(md.find("`roofline metrics` prints every metric the engine reads") != std::string::npos);
    // Both kernels: shared-bank-conflicts reads two L1 counters the capture does not hold.
    std::size_t lines = 0;
    std::istringstream in(md);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("Not evaluated for lack of counters: ", 0) != 0) continue;
        ++lines;
        CHECK(line.find("`memory-access/shared-bank-conflicts` (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum, "
                        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum)") != std::string::npos);
        // Every metric id a listed node lacked is one the capture did not collect.
        const std::regex id("[a-z0-9]+__[a-z0-9_.]+");
        for (auto it = std::sregex_iterator(line.begin(), line.end(), id); it != std::sregex_iterator(); ++it)
            CHECK_MESSAGE(live.find("\"" + it->str() + "\"") == std::string::npos, it->str());
    }
    CHECK(lines == 2);
    CHECK(md.find("ncu --metrics \"$(roofline metrics)\"") != std::string::npos);
    // The full capture lacks nothing a node reads.
    auto full = run_cli({"analyze", source_path("examples/h100/kernels_raw.csv"), "--format", "markdown"}).out;
    CHECK(full.find("Not evaluated for lack of counters") == std::string::npos);
    CHECK(full.find("Counters missing") == std::string::npos);
}

TEST_CASE("the section-only metrics matter: without them a real capture loses a finding, so triage adds their sections") {
    // kernels_raw.csv without its derived__ columns, as a --metrics capture without the sections would be.
    std::istringstream in(read_text(source_path("examples/h100/kernels_raw.csv")));
    std::string out, line;
    std::vector<bool> keep;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        for (std::size_t i = 0; i < line.size();) {
            const std::size_t open = line.find('"', i), close = line.find('"', open + 1);
            if (open == std::string::npos || close == std::string::npos) break;
            cells.push_back(line.substr(open, close - open + 1));
            i = close + 1;
        }
        if (keep.empty())
            for (const auto& c : cells) keep.push_back(c.rfind("\"derived__", 0) != 0);
        std::string row;
        for (std::size_t i = 0; i < cells.size(); ++i)
            if (keep[i]) row += (row.empty() ? "" : ",") + cells[i];
        out += row + "\n";
    }
    REQUIRE(std::count(keep.begin(), keep.end(), false) >= long(gh100_plan().section_only.size()));
    std::istringstream trimmed(out);
    auto without = analyze(trimmed, "no-derived.csv", {});
    auto with = analyze_file(source_path("examples/h100/kernels_raw.csv"), {});
    auto has = [](const analysis& a, const std::string& kernel, const std::string& finding) {
        for (const auto& k : a.kernels)
            if (k.group.name.find(kernel) != std::string::npos)
                for (const auto& f : k.diagnosis.findings)
                    if (f.id == finding) return true;
        return false;
    };
    CHECK(has(with, "transpose_naive", "uncoalesced-global"));
    CHECK_FALSE(has(without, "transpose_naive", "uncoalesced-global"));
    auto md = run_cli({"triage", source_path("tests/data/nsys/old_gpukernsum.csv")}).out;
    for (const auto& s : gh100_plan().sections) CHECK(md.find("--section " + s) != std::string::npos);
    // The catalogue says which of ncu's sections define each derived__ metric (their MetricDefinitions,
    // read in ncu 2025.3.1's Sections folder on the device: examples/h100/metric_plan/derived_sources.txt);
    // the plan's sections are those, and every one of them names its metric's section.
    for (const auto& m : gh100_plan().section_only) {
        CAPTURE(m.id);
        const bool named =
            m.collected_by.rfind("SourceCounters", 0) == 0 || m.collected_by.rfind("SpeedOfLight_HierarchicalSingleRooflineChart", 0) == 0;
        CHECK(named);
    }
    CHECK(gh100_plan().sections == std::vector<std::string>{"SpeedOfLight_HierarchicalSingleRooflineChart", "SourceCounters"});
}

TEST_CASE("a capture made with the plan gives every kernel the bound, limiter and first finding of its --set full twin") {
    // examples/h100/metric_plan/MANIFEST.md: the same programs profiled on the H100 with
    // `--metrics "$(roofline metrics)"` plus the two sections that define the derived__ metrics, and
    // with --set full. Whatever the plan leaves out must not change an answer.
    const std::pair<const char*, const char*> twins[] = {
        {"examples/h100/metric_plan/plan_demo.csv", "examples/h100/diff/before.csv"},
        {"examples/h100/metric_plan/plan_torch.csv", "examples/h100/torch_ops_raw.csv"},
        {"examples/h100/metric_plan/plan_pairs.csv", "examples/h100/pairs_raw.csv"},
    };
    for (const auto& [planned, full] : twins) {
        CAPTURE(planned);
        const auto p = analyze_file(source_path(planned), {}), f = analyze_file(source_path(full), {});
        std::size_t compared = 0;
        for (const auto& k : f.kernels) {
            auto same = std::find_if(p.kernels.begin(), p.kernels.end(), [&](const analysed_kernel& x) {
                return x.group.name == k.group.name && x.group.grid_size == k.group.grid_size && x.group.block_size == k.group.block_size;
            });
            CAPTURE(k.group.name);
            REQUIRE(same != p.kernels.end());
            ++compared;
            CHECK(verdict_text(same->verdict) == verdict_text(k.verdict));
            REQUIRE(same->diagnosis.findings.empty() == k.diagnosis.findings.empty());
            if (!k.diagnosis.findings.empty()) CHECK(same->diagnosis.findings.front().id == k.diagnosis.findings.front().id);
        }
        CHECK(compared == f.kernels.size());
    }
}
