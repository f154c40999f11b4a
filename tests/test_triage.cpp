// roofline triage: ranking by GPU time, choosing the kernels, and ncu commands that a shell runs as
// written (tests/data/nsys: hand-written summaries, see its MANIFEST.md).
#include "analyzer/base/input_error.hpp"
#include "analyzer/cli/cli_support.hpp"
#include "analyzer/cli/commands.hpp"
#include "analyzer/diagnose/metric_plan.hpp"
#include "analyzer/read/nsys_kernsum.hpp"
#include "analyzer/timeline/triage.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <regex>
#include <sstream>

using namespace roofline;
using namespace roofline::test;

namespace {

nsys_kernsum summary(const std::string& name) { return read_nsys_kernsum_file(source_path("tests/data/nsys/" + name)); }

// What /bin/sh makes of a command line: the words it would pass, one per line (printf '%s\n').
std::vector<std::string> shell_words(const std::string& command_line) {
    const std::string script = "printf '%s\\n' " + command_line;
    FILE* p = ::popen(("METRICS=the-metrics; " + script).c_str(), "r");
    REQUIRE(p != nullptr);
    std::string out;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    ::pclose(p);
    std::vector<std::string> words;
    std::istringstream in(out);
    for (std::string w; std::getline(in, w);) words.push_back(w);
    return words;
}

}  // namespace

TEST_CASE("kernels are ranked by share of GPU time with a cumulative share") {
    auto s = summary("training_step_kern_sum.csv");
    auto t = make_triage(s, {}, cli::collection_of(gh100_plan()));
    REQUIRE(t.ranked.size() == 10);
    CHECK(t.total_ns == 1e9);
    // 412 ms of 1 s, then 231 ms: 41.2%, and 64.3% together.
    CHECK(t.ranked[0].share == doctest::Approx(0.412));
    CHECK(t.ranked[1].cumulative == doctest::Approx(0.643));
    CHECK(t.ranked[9].cumulative == doctest::Approx(1.0));
    CHECK(t.selected == 5);  // --top 5 by default
}

TEST_CASE("--cover takes the fewest kernels that reach the share") {
    auto s = summary("training_step_kern_sum.csv");
    triage_options o;
    o.cover = 0.80;
    // 41.2 + 23.1 + 11.8 = 76.1% < 80%; adding 6.4% reaches 82.5%: four kernels.
    CHECK(make_triage(s, o, cli::collection_of(gh100_plan())).selected == 4);
    o.cover = 0.761;  // exactly the first three
    CHECK(make_triage(s, o, cli::collection_of(gh100_plan())).selected == 3);
    o.cover = 1.0;
    CHECK(make_triage(s, o, cli::collection_of(gh100_plan())).selected == 10);
}

TEST_CASE("the filter matches a plain function name, anchored, or a template's words, each its own kernel alone") {
    auto s = summary("training_step_kern_sum.csv");
    triage_options o;
    o.top = 10;
    auto t = make_triage(s, o, cli::collection_of(gh100_plan()));
    // cutlass::device_kernel<...> is a template: the words of its whole demangled name, in order.
    const auto& flash = t.commands[0];
    CHECK(flash.name_base == "demangled");
    CHECK(t.commands[1].kernel_filter == "regex:^ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn$");
    // Ranks 4 and 5 are both at::native::vectorized_elementwise_kernel<4, ...>: each filter matches its own.
    for (const auto& c : t.commands) {
        CAPTURE(c.kernel);
        const std::regex re(c.kernel_filter.substr(6));  // ECMAScript, as std::regex reads it
        if (c.name_base == "function") {
            std::size_t matches = 0;
            for (const auto& r : t.ranked) matches += std::regex_search(r.function, re) ? 1 : 0;
            CHECK(matches == 1);
            continue;
        }
        CHECK(c.name_base == "demangled");
        CHECK(std::regex_search(c.kernel, re));
        for (const auto& other : s.kernels)
            if (other.name != c.kernel) CHECK_FALSE(std::regex_search(other.name, re));
    }
}

TEST_CASE("warm-up: the first launch is skipped where a kernel ran more than once") {
    auto s = summary("training_step_kern_sum.csv");
    triage_options o;
    o.top = 10;
    auto t = make_triage(s, o, cli::collection_of(gh100_plan()));
    CHECK(t.commands[0].launch_skip == 1);  // 96 instances
    CHECK(t.commands[8].kernel.find("multi_tensor_apply_kernel") != std::string::npos);
    CHECK(t.commands[8].launch_skip == 0);  // ran once
    o.launch_skip = 5;
    o.launch_count = 3;
    auto u = make_triage(s, o, cli::collection_of(gh100_plan()));
    CHECK(u.commands[8].launch_skip == 5);
    CHECK(u.commands[8].launch_count == 3);
}

TEST_CASE("shell quoting survives a single quote, and /bin/sh passes ncu exactly the intended words") {
    CHECK(shell_quote("regex:^device_kernel$") == "'regex:^device_kernel$'");
    CHECK(shell_quote("k1_device_kernel") == "k1_device_kernel");
    CHECK(shell_quote("it's") == "'it'\\''s'");
    CHECK(regex_escape("a<1>(int *, T[2]) | x.y^$") == "a<1>\\(int \\*, T\\[2\\]\\) \\| x\\.y\\^\\$");

    auto s = summary("quoted_names_kern_sum.csv");
    auto t = make_triage(s, {}, cli::collection_of(gh100_plan()));
    REQUIRE(t.commands.size() == 2);
    for (const auto& c : t.commands) {
        CHECK(c.name_base == "demangled");  // both are fill_kernel
        auto words = shell_words(c.profile_shell);
        auto expected = c.profile;
        for (std::size_t i = 1; i < expected.size(); ++i)
            if (expected[i - 1] == "--metrics") expected[i] = "the-metrics";
        CHECK(words == expected);
        const std::regex re(c.kernel_filter.substr(6));
        CHECK(std::regex_search(c.kernel, re));
    }
    CHECK_FALSE(std::regex_search(t.commands[1].kernel, std::regex(t.commands[0].kernel_filter.substr(6))));
}

TEST_CASE("the commands: --metrics with the plan or the section folder, then the export and the analysis") {
    auto s = summary("training_step_kern_sum.csv");
    auto t = make_triage(s, {}, cli::collection_of(gh100_plan()));
    const auto& c = t.commands[0];
    CHECK(c.stem == "k1_device_kernel");
    // cutlass::device_kernel<...> is a template: matched on its words (the filter test above).
    CHECK(c.profile_shell == "ncu --kernel-name-base demangled --kernel-name " + shell_quote(c.kernel_filter) +
                                 " --launch-skip 1 -c 1 --metrics \"$METRICS\" --section SourceCounters -o "
                                 "k1_device_kernel ./app");
    CHECK(c.export_shell == "ncu -i k1_device_kernel.ncu-rep --csv --page raw > k1_device_kernel.csv");
    CHECK(c.profile[10] == diagnose::metrics_argument(gh100_plan()));
    triage_options o;
    o.section_folder = "sections";
    o.app = "python train.py --steps 3";
    auto u = make_triage(s, o, cli::collection_of(gh100_plan()));
    CHECK(u.commands[0].profile_shell == "ncu --kernel-name-base demangled --kernel-name " +
                                             shell_quote(c.kernel_filter) +
                                             " --launch-skip 1 -c 1 --section-folder sections --section roofline -o "
                                             "k1_device_kernel python train.py --steps 3");
    auto md = triage_markdown(u);
    CHECK(md.find("roofline metrics --format section -o sections/roofline.section") != std::string::npos);
}

TEST_CASE("roofline triage on the command line: markdown, JSON and usage errors") {
    auto file = source_path("tests/data/nsys/training_step_stats_stdout.txt");
    auto md = run_cli({"triage", file, "--cover", "80%"});
    CHECK(md.rc == 0);
    CHECK(md.out.find("METRICS=" + diagnose::metrics_argument(gh100_plan()) + "\n") != std::string::npos);
    CHECK(md.out.find("ncu -i k4_vectorized_elementwise_kernel.ncu-rep --csv --page raw > "
                      "k4_vectorized_elementwise_kernel.csv") != std::string::npos);
    CHECK(md.out.find("k5_") == std::string::npos);  // four kernels reach 80%
    auto j = nlohmann::json::parse(run_cli({"triage", file, "--format", "json", "--top", "2"}).out);
    CHECK(j["selection"]["kernels"] == 2);
    CHECK(j["kernels"].size() == 10);
    CHECK(j["kernels"][2]["cumulative"].get<double>() == doctest::Approx(0.761));
    CHECK(j["commands"].size() == 2);
    const std::string view = run_cli({"triage", file, "--format", "terminal"}).out;
    CHECK(view.find("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT") != std::string::npos);
    // Each title stands over its column: the header's words end where the first row's numbers end.
    const std::size_t head = view.find("#   share"), row = view.find(" *  1 ");
    REQUIRE(head != std::string::npos);
    REQUIRE(row != std::string::npos);
    const std::size_t head_at = view.rfind('\n', head) + 1;
    const std::string head_line = view.substr(head_at, view.find('\n', head) - head_at),
                      row_line = view.substr(row, 60);
    auto ends = [](const std::string& line, const std::string& word) { return line.find(word) + word.size(); };
    CHECK(ends(head_line, "#") == ends(row_line, "1"));
    CHECK(ends(head_line, "share") == ends(row_line, "41.2%"));
    CHECK(ends(head_line, "total time") == ends(row_line, "412 ms"));
    CHECK(ends(head_line, "instances") == ends(row_line, "96"));
    CHECK(head_line.find("kernel") == row_line.find("cutlass"));
    CHECK_THROWS_WITH_AS(run_cli({"triage", file, "--top", "3", "--cover", "50"}), doctest::Contains("give one"),
                         input_error);
    CHECK_THROWS_WITH_AS(run_cli({"triage", file, "--cover", "0"}), doctest::Contains("--cover takes"), input_error);
    CHECK_THROWS_WITH_AS(run_cli({"triage", file, "--cover", "120%"}), doctest::Contains("--cover takes"), input_error);
    CHECK(run_cli({"triage", "--help"})
              .out.find("roofline triage tests/data/nsys/training_step_kern_sum.csv --cover 80%") != std::string::npos);
}
