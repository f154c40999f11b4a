// Every file in tests/corpus: pass_* analyse, fail_* fail with their exact message and leave
// no output file.
#include "analyzer/base/input_error.hpp"
#include "analyzer/cli/commands.hpp"
#include "analyzer/report/chart_svg.hpp"
#include "analyzer/report/report.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace roofline;
using namespace roofline::test;
namespace fs = std::filesystem;

namespace {
std::string trim_newline(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
}
}  // namespace

TEST_CASE("every corpus file behaves as its name says") {
    fs::path dir = source_path("tests/corpus");
    fs::path out_dir = temp_path("corpus-test");
    fs::create_directories(out_dir);
    std::size_t passes = 0, fails = 0;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".csv") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        std::string name = f.filename().string();
        CAPTURE(name);
        fs::path out = out_dir / (name + ".md");
        fs::remove(out);
        // Run with the file name alone, as a user in that folder would, so messages are stable.
        const working_folder in_folder(dir);
        int rc = -1;
        std::string message;
        try {
            rc = run_cli({"analyze", name, "-o", out.string()}).rc;
        } catch (const input_error& e) {
            rc = 2;
            message = std::string(error_code_name(e.code())) + ": " + e.what();
        }
        if (name.rfind("pass_", 0) == 0) {
            ++passes;
            CHECK(rc == 0);
            CHECK(fs::exists(out));
        } else {
            ++fails;
            CHECK(rc == 2);
            const fs::path expected = dir / (f.stem().string() + ".expected");
            // ROOFLINE_UPDATE_CORPUS=1 rewrites the .expected files: read the diff before committing.
            if (std::getenv("ROOFLINE_UPDATE_CORPUS")) std::ofstream(expected) << message << "\n";
            CHECK(message == trim_newline(read_text(expected.string())));
            CHECK_FALSE(fs::exists(out));
        }
    }
    CHECK(passes >= 8);
    CHECK(fails >= 22);
}

TEST_CASE("a failed run leaves an existing report untouched") {
    fs::path out = temp_path("keep.md");
    {
        std::ofstream o(out);
        o << "previous report\n";
    }
    CHECK_THROWS_AS(run_cli({"analyze", source_path("tests/corpus/fail_column_count.csv"), "-o", out.string()}),
                    input_error);
    CHECK(read_text(out.string()) == "previous report\n");
    // No temporary file is left beside it either.
    for (const auto& e : fs::directory_iterator(out.parent_path()))
        CHECK(e.path().filename().string().find("roofline-keep.md.tmp") == std::string::npos);
}

TEST_CASE("hostile names reach no output raw: terminal, markdown, SVG and JSON each escape them") {
    auto ctrl = analyze_file(source_path("tests/corpus/pass_control_characters_in_name.csv"), {});
    for (const auto& f : report_formats()) {
        CAPTURE(f.name);
        const std::string text = f.print(ctrl, {});
        CHECK(text.find('\x1b') == std::string::npos);
        CHECK(text.find('\x07') == std::string::npos);
    }
    auto quoted = analyze_file(source_path("tests/corpus/pass_quotes_and_newlines_in_name.csv"), {});
    const std::string md = render_markdown(quoted);
    // The section's full name, and the table's name cut at 40 characters, both as code spans.
    CHECK(md.find("- Full name: ``my \"quoted\" kernel with a `tick` and a line break(int)``") != std::string::npos);
    CHECK(md.find("| ``my \"quoted\" kernel with a `tick` and...`` |") != std::string::npos);
    auto bad = analyze_file(source_path("tests/corpus/pass_invalid_utf8_name.csv"), {});
    const std::string json = render_json(bad);
    CHECK(json.find("bad_\xef\xbf\xbd_name") != std::string::npos);  // U+FFFD for the bad byte
    CHECK(json.find("is not UTF-8") != std::string::npos);
    auto huge = analyze_file(source_path("tests/corpus/pass_huge_duration.csv"), {});
    const auto chart = build_chart(huge);  // a duration of 1e290 ms: the axes stay bounded
    for (const auto* panel : {&chart.roof, &chart.mem}) {
        CHECK(panel->y_max - panel->y_min <= 24);
        CHECK(panel->x_max - panel->x_min <= 24);
    }
}

TEST_CASE("a line with no end, a regex over an endless name, and a report onto a folder are refused by name") {
    // 65 MiB without a line break: refused at line 1 before memory grows further.
    std::istringstream zeros(std::string(65u << 20, '\0'));
    CHECK_THROWS_WITH_AS(analyze(zeros, "zeros", {}), doctest::Contains("zeros:1: a line longer than 64 MiB"),
                         input_error);
    // A 40,000-character kernel name under --kernel-name regex:
    std::string csv = read_text(source_path("tests/corpus/pass_trimmed_raw.csv"));
    const std::string from = "unnamed>::copy_vec4(";
    csv.replace(csv.find(from), from.size(), std::string(40000, 'k') + "(");
    std::istringstream in(csv);
    analyze_options o;
    o.filter.kernel_name = "regex:copy";
    CHECK_THROWS_WITH_AS(analyze(in, "long.csv", o), doctest::Contains("long.csv:3: a kernel name of 400"),
                         input_error);
    // -o onto a folder: an error, and neither the report nor its chart is written.
    fs::path dir = temp_path("report-dir.md");
    fs::create_directories(dir);
    fs::path svg = temp_path("report-dir.svg");
    fs::remove(svg);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", source_path("tests/corpus/pass_trimmed_raw.csv"), "-o", dir.string()}),
                         doctest::Contains("is a folder"), input_error);
    CHECK_FALSE(fs::exists(svg));
    fs::remove_all(dir);
}
