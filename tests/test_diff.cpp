// roofline diff on real captures. The expected changes are computed here from the exports' own
// launch rows (the sum of gpu__time_duration.sum over each name and launch shape, read without the
// pipeline), not copied from the program's output.
#include "analyzer/base/input_error.hpp"
#include "analyzer/cli/commands.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/report/text.hpp"
#include "analyzer/compare/diff.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <vector>

using namespace roofline;
using namespace roofline::test;

namespace {

struct diff_cli_result {
    int rc;
    std::string out, err;
};
diff_cli_result run_diff_cli(std::vector<std::string> args, const cli::console& where = {}) {
    args.insert(args.begin(), {"roofline", "diff"});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::ostringstream out, err;
    int rc = cli::run(int(argv.size()), argv.data(), out, err, where);
    return {rc, out.str(), err.str()};
}

using shape_key = std::tuple<std::string, std::optional<launch_dims>, std::optional<launch_dims>>;

// Each kernel's total time in ns, summed over its launch rows straight from the export.
std::map<shape_key, double> raw_times(const std::string& rel) {
    std::map<shape_key, double> t;
    for (const auto& r : read_example(rel))
        t[{r.kernel_name, r.grid_size, r.block_size}] += r.get("gpu__time_duration.sum");
    return t;
}
std::map<shape_key, std::size_t> raw_launches(const std::string& rel) {
    std::map<shape_key, std::size_t> n;
    for (const auto& r : read_example(rel)) ++n[{r.kernel_name, r.grid_size, r.block_size}];
    return n;
}
double sum_of(const std::map<shape_key, double>& t) {
    return std::accumulate(t.begin(), t.end(), 0.0, [](double s, const auto& x) { return s + x.second; });
}

// What the noise floor says of a change, written out here (docs/diff.md): beyond it when the change
// exceeds both 2% of the base time and 250 ns per launch.
int beyond_default_floor(double t0, double t1, std::size_t launches) {
    const double floor = std::max(0.02 * t0, 250.0 * double(launches));
    return t1 - t0 > floor ? 1 : t0 - t1 > floor ? -1 : 0;
}

// The captures a diff is tested on: real exports, among them one program before and after a fix and
// the same binary profiled twice (examples/h100/diff/MANIFEST.md).
struct diff_case {
    const char* base;
    const char* next;
    const char* what;
    bool same_gpu;
    bool identical;  // the same report exported twice: every change is exactly zero
    bool quiet;      // nothing but noise between them: every kernel within noise, no alarm at any threshold
};
const diff_case cases[] = {
    {"examples/h100/kernels_raw.csv", "examples/h100/kernels_raw_lc_c.csv",
     "one report exported twice (grouped and plain numbers)", true, true, true},
    {"examples/h100/kernels_raw.csv", "examples/h200/kernels_raw.csv", "the same kernels on the H100 and on the H200",
     false, false, false},
    {"examples/h200/kernels_raw.csv", "examples/h100/kernels_raw.csv", "the same kernels on the H200 and on the H100",
     false, false, false},
    {"examples/h100/diff/before.csv", "examples/h100/diff/before_again.csv", "one binary profiled twice", true, false,
     true},
    {"examples/h100/diff/before.csv", "examples/h100/diff/after.csv", "before and after the transpose fix", true, false,
     false},
};

}  // namespace

TEST_CASE("every kernel's change is its time in the new capture against the base, from the exports' own rows") {
    for (const auto& c : cases) {
        CAPTURE(c.what);
        const auto base_t = raw_times(c.base), new_t = raw_times(c.next);
        const auto base_n = raw_launches(c.base), new_n = raw_launches(c.next);
        const capture_diff d = diff_analyses(analyze_example(c.base), analyze_example(c.next), {});
        CHECK(d.same_gpu == c.same_gpu);
        // Every kernel of both sides appears once: matched where its key is on both sides.
        std::size_t both = 0;
        for (const auto& [key, t] : base_t) both += new_t.count(key);
        CHECK(d.matched == both);
        CHECK(d.gone == base_t.size() - both);
        CHECK(d.added == new_t.size() - both);
        CHECK(d.kernels.size() == d.matched + d.gone + d.added);
        CHECK(d.ambiguous_keys == 0);  // the kernel table folds one key's launches into one kernel
        double base_total = 0, new_total = 0;
        for (const auto& [key, t] : base_t) base_total += t;
        for (const auto& [key, t] : new_t) new_total += t;
        CHECK(d.base.total_ns == doctest::Approx(base_total));
        CHECK(d.next.total_ns == doctest::Approx(new_total));
        REQUIRE(d.total_change_pct);
        CHECK(d.total_change_pct == doctest::Approx((new_total - base_total) / base_total * 100.0));
        for (const auto& k : d.kernels) {
            CAPTURE(k.any().group.name);
            if (!k.base || !k.next) {  // gone or new: its key is on one side only
                const auto& g = k.any().group;
                CHECK(base_t.count({g.name, g.grid_size, g.block_size}) +
                          new_t.count({g.name, g.grid_size, g.block_size}) ==
                      1);
                CHECK(k.status == (k.base ? diff_status::gone : diff_status::added));
                continue;
            }
            const shape_key key{k.base->group.name, k.base->group.grid_size, k.base->group.block_size};
            CHECK(shape_key{k.next->group.name, k.next->group.grid_size, k.next->group.block_size} == key);
            const double t0 = base_t.at(key), t1 = new_t.at(key);
            REQUIRE(k.change_pct);
            const double expect = (t1 - t0) / t0 * 100.0;
            CHECK(k.change_pct == doctest::Approx(expect));
            // The status follows the noise floor (2% or 250 ns per launch by default, the larger).
            const int beyond = beyond_default_floor(t0, t1, std::max(base_n.at(key), new_n.at(key)));
            CHECK(k.status == (beyond > 0   ? diff_status::slower
                               : beyond < 0 ? diff_status::faster
                                            : diff_status::within_noise));
            if (c.quiet) CHECK(k.status == diff_status::within_noise);
            if (c.identical) {
                CHECK(k.change_pct == 0.0);
                CHECK(k.findings_appeared.empty());
                CHECK(k.findings_gone.empty());
                CHECK(verdict_text(k.base->verdict) == verdict_text(k.next->verdict));
            }
        }
    }
}

TEST_CASE(
    "the gate trips exactly above the largest slowdown, never within the noise floor, and never on an identical "
    "export") {
    for (const auto& c : cases) {
        CAPTURE(c.what);
        const auto base_t = raw_times(c.base), new_t = raw_times(c.next);
        const auto base_n = raw_launches(c.base), new_n = raw_launches(c.next);
        // The slowdowns beyond the noise floor, in percent: the total's and each matched kernel's.
        std::vector<double> slower;
        double worst = 0;  // the largest slowdown of all, within the floor or not
        auto see = [&](double t0, double t1, std::size_t launches) {
            const double pct = (t1 - t0) / t0 * 100.0;
            worst = std::max(worst, pct);
            if (beyond_default_floor(t0, t1, launches) > 0) slower.push_back(pct);
        };
        std::size_t base_launches = 0, new_launches = 0;
        for (const auto& [key, n] : base_n) base_launches += n;
        for (const auto& [key, n] : new_n) new_launches += n;
        see(sum_of(base_t), sum_of(new_t), std::max(base_launches, new_launches));
        for (const auto& [key, t0] : base_t)
            if (new_t.count(key)) see(t0, new_t.at(key), std::max(base_n.at(key), new_n.at(key)));
        if (c.identical) CHECK(worst == 0.0);
        if (c.quiet) CHECK(slower.empty());
        for (double gate : {0.0, 1.0, 5.0, 50.0, 1000.0}) {
            CAPTURE(gate);
            diff_options o;
            o.fail_if_slower_pct = gate;
            const capture_diff d = diff_analyses(analyze_example(c.base), analyze_example(c.next), o);
            CHECK(d.gate_failed() == std::any_of(slower.begin(), slower.end(), [&](double pct) { return pct > gate; }));
            // A noise floor above every change silences the gate whatever its threshold.
            o.noise_pct = worst + 1.0;
            CHECK_FALSE(diff_analyses(analyze_example(c.base), analyze_example(c.next), o).gate_failed());
        }
    }
    // From the H200 to the H100 the DRAM-bound kernels get slower by about the two DRAMs' ratio
    // (the spec sheets' 4.8 TB/s against 3.35: 1.43x; copy_vec4 runs at 81% and 85% of it), far past 5%.
    diff_options o;
    o.fail_if_slower_pct = 5.0;
    CHECK(diff_analyses(analyze_example("examples/h200/kernels_raw.csv"),
                        analyze_example("examples/h100/kernels_raw.csv"), o)
              .gate_failed());
}

TEST_CASE("a kernel only in the base is gone, only in the new capture new; the workload total counts both") {
    // The base: every kernel of the capture; the new: the transposes alone (the same rows, filtered).
    analyze_options only_transpose;
    only_transpose.filter.kernel_name = "regex:^transpose";
    const auto all = raw_times("examples/h100/kernels_raw.csv");
    double total = 0, transposes = 0;
    std::size_t n_transpose = 0;
    for (const auto& [key, t] : all) {
        total += t;
        if (function_name(std::get<0>(key)).rfind("transpose", 0) == 0) transposes += t, ++n_transpose;
    }
    REQUIRE(n_transpose == 2);
    const capture_diff d = diff_analyses(analyze_example("examples/h100/kernels_raw.csv"),
                                         analyze_example("examples/h100/kernels_raw.csv", only_transpose), {});
    CHECK(d.matched == 2);
    CHECK(d.gone == all.size() - 2);
    CHECK(d.added == 0);
    REQUIRE(d.total_change_pct);
    CHECK(d.total_change_pct == doctest::Approx((transposes - total) / total * 100.0));
    CHECK(d.total_status == diff_status::faster);
    for (const auto& k : d.kernels) {
        CAPTURE(k.any().group.name);
        if (k.next) {
            CHECK(k.change_pct == 0.0);
        } else {
            CHECK(k.status == diff_status::gone);
            CHECK_FALSE(k.change_pct);
            // A gone kernel's findings all went away.
            for (const auto& f : k.base->diagnosis.findings)
                CHECK(std::find(k.findings_gone.begin(), k.findings_gone.end(), f.id) != k.findings_gone.end());
            CHECK(k.findings_appeared.empty());
        }
    }
    // Matched and gone kernels come before new ones; the reverse diff has the same kernels as new.
    const capture_diff r = diff_analyses(analyze_example("examples/h100/kernels_raw.csv", only_transpose),
                                         analyze_example("examples/h100/kernels_raw.csv"), {});
    CHECK(r.added == all.size() - 2);
    CHECK(r.gone == 0);
    CHECK(r.kernels.front().base != nullptr);
    CHECK(r.kernels.back().base == nullptr);
    CHECK(r.total_status == diff_status::slower);
}

TEST_CASE("several kernels of one name and launch shape are matched in launch order") {
    // The kernel table never holds one key twice; a capture that does (a future table, two devices'
    // launches) is made here by repeating one real kernel, launched later than the first.
    analysis base = analyze_example("examples/h100/kernels_raw.csv");
    analysis next = analyze_example("examples/h100/kernels_raw.csv");
    analysed_kernel again = base.kernels.front();
    again.group.first_line = 1000;
    again.roof.duration_ns *= 2;  // the later one took twice as long
    base.kernels.push_back(again);
    const std::string name = again.group.name;
    const capture_diff d = diff_analyses(std::move(base), std::move(next), {});
    CHECK(d.ambiguous_keys == 1);
    CHECK(d.gone == 1);
    std::size_t seen = 0;
    for (const auto& k : d.kernels) {
        if (k.any().group.name != name) continue;
        ++seen;
        if (k.occurrence == 1) {  // the first launched, matched to the new capture's only one
            REQUIRE(k.next);
            CHECK(k.base->group.first_line < 1000);
            CHECK(k.change_pct == 0.0);
        } else {
            CHECK(k.occurrence == 2);
            CHECK(k.status == diff_status::gone);
            CHECK(k.base->group.first_line == 1000);
        }
    }
    CHECK(seen == 2);
    const std::string md = render_diff_markdown(d, "");
    CHECK(md.find("(1 name and shape here)") != std::string::npos);
    CHECK(md.find(kernel_label(name) + " #1") != std::string::npos);
    CHECK(md.find(kernel_label(name) + " #2") != std::string::npos);
}

TEST_CASE("diff -o diff.md writes the report and its chart, with an arrow for each kernel that moved") {
    const auto dir = temp_path("diff-chart");
    std::filesystem::create_directories(dir);
    const std::string md = (dir / "diff.md").string();
    auto r = run_diff_cli(
        {source_path("examples/h100/kernels_raw.csv"), source_path("examples/h200/kernels_raw.csv"), "-o", md});
    CHECK(r.rc == 0);
    const std::string text = read_text(md);
    CHECK(text.find("](diff.svg)") != std::string::npos);
    CHECK(text.find("**Different GPUs**") != std::string::npos);
    CHECK(text.find("projection, not a regression check") != std::string::npos);
    CHECK(r.err.find("different GPUs") != std::string::npos);
    const std::string svg = read_text((dir / "diff.svg").string());
    std::istringstream in(svg);
    boost::property_tree::ptree tree;
    boost::property_tree::read_xml(in, tree);  // well-formed
    // Every kernel twice (base and new) and one arrow per matched kernel whose points are apart:
    // each pair of marks must be counted, and arrows are at most the kernels matched.
    const capture_diff d = diff_analyses(analyze_example("examples/h100/kernels_raw.csv"),
                                         analyze_example("examples/h200/kernels_raw.csv"), {});
    std::size_t kernels = 0, arrows = 0;
    for (std::size_t at = svg.find("class=\"kernel\""); at != std::string::npos;
         at = svg.find("class=\"kernel\"", at + 1))
        ++kernels;
    for (std::size_t at = svg.find("class=\"arrow\""); at != std::string::npos;
         at = svg.find("class=\"arrow\"", at + 1))
        ++arrows;
    std::size_t drawn = 0;
    for (const auto& k : d.kernels) drawn += (k.base && k.base->roof.placed) + (k.next && k.next->roof.placed);
    CHECK(kernels == drawn);
    CHECK(arrows >= 1);  // the H200's extra bandwidth moves the memory-bound kernels up
    CHECK(arrows <= d.matched);
    // Each arrow leaves a base mark and reaches the new mark of the same kernel (9 px clear of each
    // centre), and every kernel's number is labelled once.
    struct mark {
        double x, y;
        std::string number, side;
    };
    std::vector<mark> marks;
    std::vector<std::array<double, 4>> lines;
    std::set<std::string> labels;
    std::size_t label_count = 0;
    std::function<void(const boost::property_tree::ptree&)> walk = [&](const boost::property_tree::ptree& node) {
        for (const auto& [tag, child] : node) {
            if (tag == "<xmlattr>") continue;
            const std::string cls = child.get("<xmlattr>.class", "");
            if (tag == "circle" && cls == "kernel") {
                const std::string title = child.get("title", "");
                marks.push_back({child.get<double>("<xmlattr>.cx"), child.get<double>("<xmlattr>.cy"),
                                 child.get("<xmlattr>.data-number", ""), title.substr(0, title.find(':'))});
            }
            if (tag == "line" && cls == "arrow")
                lines.push_back({child.get<double>("<xmlattr>.x1"), child.get<double>("<xmlattr>.y1"),
                                 child.get<double>("<xmlattr>.x2"), child.get<double>("<xmlattr>.y2")});
            if (tag == "text" && cls == "label") labels.insert(child.get("<xmlattr>.data-number", "")), ++label_count;
            walk(child);
        }
    };
    walk(tree);
    CHECK(lines.size() == arrows);
    for (const auto& l : lines) {
        auto near = [&](double x, double y, const char* side) -> const mark* {
            for (const auto& m : marks)
                if (m.side == side && std::fabs(std::hypot(m.x - x, m.y - y) - 9.0) < 0.05) return &m;
            return nullptr;
        };
        const mark* from = near(l[0], l[1], "base");
        const mark* to = near(l[2], l[3], "new");
        REQUIRE(from);
        REQUIRE(to);
        CHECK(from->number == to->number);
    }
    // 8 kernels, 16 marks: here every number finds room, once.
    CHECK(label_count == d.kernels.size());
    for (std::size_t i = 1; i <= d.kernels.size(); ++i) CHECK(labels.count(std::to_string(i)) == 1);
    // The same diff twice: the same bytes; --no-chart links none.
    const std::vector<std::string> again = {source_path("examples/h100/kernels_raw.csv"),
                                            source_path("examples/h200/kernels_raw.csv"), "--format", "markdown"};
    const auto first = run_diff_cli(again).out;
    CHECK(first == run_diff_cli(again).out);
    CHECK(first.find("](diff.svg)") == std::string::npos);
    // The file is stdout's markdown with the chart's link added.
    const std::size_t link = text.find("\n![");
    REQUIRE(link != std::string::npos);
    CHECK(text.substr(0, link) + text.substr(text.find('\n', link + 1) + 1) == first);
    std::filesystem::remove_all(dir);
}

TEST_CASE("diff's JSON holds every kernel with both sides, and the exit code is the gate's") {
    const std::string a = source_path("examples/h100/kernels_raw.csv"),
                      b = source_path("examples/h100/kernels_raw_lc_c.csv");
    for (const char* gate : {"0", "0%", "5"}) {
        auto r = run_diff_cli({a, b, "--format", "json", "--fail-if-slower", gate});
        CHECK(r.rc == 0);  // an identical export: no alarm at any threshold
        auto j = nlohmann::json::parse(r.out);
        CHECK(j["schema"] == "roofline-diff/1");
        CHECK(j["same_gpu"] == true);
        CHECK(j["total"]["change_pct"] == 0);
        CHECK(j["gate"]["failed"] == false);
        CHECK(j["kernels"].size() == 8);  // the loop below checks every kernel, not none
        for (const auto& k : j["kernels"]) {
            CHECK(k["status"] == "within noise");
            CHECK(k["change_pct"] == 0);
            CHECK(k["base"]["time_ns"] == k["new"]["time_ns"]);
            CHECK(k["base"]["findings"] == k["new"]["findings"]);
        }
    }
    const std::string h100 = source_path("examples/h100/kernels_raw.csv"),
                      h200 = source_path("examples/h200/kernels_raw.csv");
    auto slow = run_diff_cli({h200, h100, "--format", "json", "--fail-if-slower", "5"});
    CHECK(slow.rc == 1);
    auto j = nlohmann::json::parse(slow.out);
    CHECK(j["gate"]["failed"] == true);
    CHECK(!j["gate"]["failures"].empty());
    CHECK(slow.err.find("--fail-if-slower 5 failed") != std::string::npos);
    // The floor per launch: tiny_add's 8 launches took about 23.0 us on the H100 and 19.0 us on the
    // H200 (-17%, 4 us): beyond 2% and 8 x 250 ns, within 8 x 1000 ns.
    auto tiny = [](const std::string& json) {
        const auto j = nlohmann::json::parse(json);  // kept alive for the loop
        for (const auto& k : j["kernels"])
            if (function_name(k["name"].get<std::string>()) == "tiny_add") return k["status"].get<std::string>();
        return std::string("missing");
    };
    CHECK(tiny(run_diff_cli({h100, h200, "--format", "json"}).out) == "faster");
    CHECK(tiny(run_diff_cli({h100, h200, "--format", "json", "--noise-ns", "1000"}).out) == "within noise");
    CHECK_THROWS_WITH_AS(run_diff_cli({h100, h200, "--noise-ns", "5%"}), doctest::Contains("--noise-ns takes a number"),
                         input_error);
    // A noise floor above every change: no alarm.
    CHECK(run_diff_cli({h200, h100, "--format", "json", "--fail-if-slower", "5", "--noise", "1000"}).rc == 0);
}

TEST_CASE("diff's command-line mistakes are usage errors and write nothing") {
    const std::string a = source_path("examples/h100/kernels_raw.csv");
    CHECK(run_diff_cli({"--help"}).rc == 0);
    CHECK(run_diff_cli({"--help"}).out.find("roofline diff before.csv after.csv") != std::string::npos);
    CHECK_THROWS_WITH_AS(run_diff_cli({a}), doctest::Contains("diff needs two CSV files"), input_error);
    CHECK_THROWS_WITH_AS(run_diff_cli({a, a, "--noise", "-1"}), doctest::Contains("--noise takes a percentage"),
                         input_error);
    CHECK_THROWS_WITH_AS(run_diff_cli({a, a, "--fail-if-slower", "abc"}),
                         doctest::Contains("--fail-if-slower takes a percentage"), input_error);
    CHECK_THROWS_WITH_AS(run_diff_cli({a, a, "--format", "svg"}),
                         doctest::Contains("--format takes markdown, json, terminal"), input_error);
    const auto out = temp_path("diff-bad.md");
    CHECK_THROWS_AS(run_diff_cli({a, "/no/such/file.csv", "-o", out.string()}), input_error);
    CHECK_FALSE(std::filesystem::exists(out));
    CHECK_THROWS_WITH_AS(run_diff_cli({a, a, "-o", temp_path("d.json").string(), "--format", "markdown"}),
                         doctest::Contains("asks for json"), input_error);
}

TEST_CASE("on a terminal, diff prints the compact view") {
    cli::console tty;
    tty.stdout_terminal = true;
    auto r =
        run_diff_cli({source_path("examples/h100/kernels_raw.csv"), source_path("examples/h200/kernels_raw.csv")}, tty);
    CHECK(r.rc == 0);
    CHECK(r.out.rfind("roofline diff", 0) == 0);
    CHECK(r.out.find("different GPUs") != std::string::npos);
    CHECK(r.out.find("\033[") == std::string::npos);  // no colour unless the console allows it
}

TEST_CASE("a fix that renames its kernel shows the naive one gone and the fixed one new, with their findings") {
    // pairs_raw.csv holds a naive and a fixed kernel of each pair: the reduction with a
    // __syncthreads per tree step (reduce_naive) as the base, the shuffle reduction as the new capture.
    analyze_options naive, fixed;
    naive.filter.kernel_name = "regex:^reduce_naive$";
    fixed.filter.kernel_name = "regex:^reduce_shuffle$";
    double t_naive = 0, t_fixed = 0;
    for (const auto& [key, t] : raw_times("examples/h100/pairs_raw.csv")) {
        if (function_name(std::get<0>(key)) == "reduce_naive") t_naive += t;
        if (function_name(std::get<0>(key)) == "reduce_shuffle") t_fixed += t;
    }
    REQUIRE(t_naive > 0);
    REQUIRE(t_fixed > 0);
    const capture_diff d = diff_analyses(analyze_example("examples/h100/pairs_raw.csv", naive),
                                         analyze_example("examples/h100/pairs_raw.csv", fixed), {});
    CHECK(d.matched == 0);
    CHECK(d.gone == 1);
    CHECK(d.added == 1);
    REQUIRE(d.kernels.size() == 2);
    CHECK(d.kernels[0].status == diff_status::gone);
    CHECK(d.kernels[1].status == diff_status::added);
    REQUIRE(d.total_change_pct);
    CHECK(d.total_change_pct == doctest::Approx((t_fixed - t_naive) / t_naive * 100.0));
    // The pair was built to show barrier stalls (kernels/pairs.json): that finding goes with the naive kernel.
    const auto& gone = d.kernels[0].findings_gone;
    CHECK(std::find(gone.begin(), gone.end(), "barrier-stalls") != gone.end());
    const auto& appeared = d.kernels[1].findings_appeared;
    CHECK(std::find(appeared.begin(), appeared.end(), "barrier-stalls") == appeared.end());
    // No matched kernel: the gate reads the workload total alone, which got faster.
    diff_options o;
    o.fail_if_slower_pct = 0;
    CHECK_FALSE(diff_analyses(analyze_example("examples/h100/pairs_raw.csv", naive),
                              analyze_example("examples/h100/pairs_raw.csv", fixed), o)
                    .gate_failed());
    const std::string md = render_diff_markdown(d, "");
    CHECK(md.find("(gone)") != std::string::npos);
    CHECK(md.find("(new)") != std::string::npos);
}

TEST_CASE("a real fix: the transpose tiled through shared memory, and nothing else of the program changed") {
    // examples/h100/diff: diff_demo.cu built with -DFIXED=0 and -DFIXED=1; only transpose differs.
    // Its before.csv row says 1.312100 ms, after.csv 251.904 us: -80.80%. The naive version's stores
    // touch 32 rows per warp (uncoalesced-global); the tiled one's do not, so that finding must go.
    // Every other kernel is the same code: each must be within noise, and a 2% gate must not trip.
    auto r = run_diff_cli({source_path("examples/h100/diff/before.csv"), source_path("examples/h100/diff/after.csv"),
                           "--format", "json", "--fail-if-slower", "2"});
    CHECK(r.rc == 0);
    auto j = nlohmann::json::parse(r.out);
    int transposes = 0;
    for (const auto& k : j["kernels"]) {
        const std::string name = k["name"];
        CAPTURE(name);
        if (name.rfind("transpose(", 0) == 0) {
            ++transposes;
            CHECK(k["status"] == "faster");
            CHECK(k["change_pct"].get<double>() ==
                  doctest::Approx(100.0 * (251904.0 - 1312100.0) / 1312100.0).epsilon(1e-4));
            CHECK(k["findings_gone"] == nlohmann::json::array({"uncoalesced-global"}));
        } else {
            CHECK(k["status"] == "within noise");
        }
    }
    CHECK(transposes == 1);
    CHECK(j["gate"]["failed"] == false);
}

TEST_CASE("diff warns when the captures differ in page or metric set, and not when they are alike") {
    const auto details = source_path("examples/h100/kernels_details.csv"),
               raw = source_path("examples/h100/kernels_raw.csv");
    const auto mixed = nlohmann::json::parse(run_cli({"diff", details, raw, "--format", "json"}).out);
    const auto& w = mixed["comparability_warnings"];
    REQUIRE(w.size() == 2);
    CHECK(w[0].get<std::string>().find("different pages of ncu's export (base: details page, new: raw page)") !=
          std::string::npos);
    CHECK(w[1].get<std::string>().find("different metric sets (base lacks ") != std::string::npos);
    const auto md = run_cli({"diff", details, raw, "--format", "markdown"}).out;
    CHECK(md.find("> Warning: the captures are different pages") != std::string::npos);
    // Two raw pages of one program: nothing to warn about.
    const auto same = nlohmann::json::parse(
        run_cli({"diff", raw, source_path("examples/h100/kernels_raw_base.csv"), "--format", "json"}).out);
    CHECK(same["comparability_warnings"].empty());
}
