// Every reader form on real exports (examples/h100, captured on an H100 with ncu 2025.3.1).
#include "analyzer/base/input_error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace roofline;
using namespace roofline::test;

namespace {
const char* copy = "copy_vec4";
// copy_vec4's duration in --print-units base: "182,336" ns.
constexpr double copy_ns = 182336;
}  // namespace

TEST_CASE("raw page with auto units: units row applied per column") {
    read_summary s;
    auto v = read_example("examples/h100/kernels_raw.csv", &s);
    CHECK(s.form == ncu_form::raw);
    CHECK(s.style == number_style::point);
    CHECK(v.size() == 15);  // 7 kernels once, tiny_add 8 times
    const auto& c = by_name(v, copy);
    CHECK(c.get("gpu__time_duration.sum") == doctest::Approx(copy_ns));       // "0.182336" ms
    CHECK(c.get("dram__bytes_read.sum") == doctest::Approx(268456960));       // "268.456960" Mbyte
    CHECK(c.get("dram__bytes.sum.peak_sustained") == doctest::Approx(1280));  // "1.280000" Kbyte/cycle
    CHECK(c.get("dram__cycles_elapsed.avg.per_second") == doctest::Approx(2.618006e9));
    CHECK(c.get("launch__grid_size") == 1056);  // "1,056", no unit
    CHECK(c.texts.at("device__attribute_display_name") == "NVIDIA H100 80GB HBM3");
    CHECK(to_string(c.grid_size.value()) == "(1056, 1, 1)");
    CHECK(c.block_size == launch_dims{{256, 1, 1}});
    CHECK(c.cc == "9.0");
}

TEST_CASE("raw page in base units and in the C locale give the same numbers") {
    auto a = read_example("examples/h100/kernels_raw.csv");
    auto b = read_example("examples/h100/kernels_raw_base.csv");
    read_summary sc;
    auto c = read_example("examples/h100/kernels_raw_lc_c.csv", &sc);
    REQUIRE(a.size() == b.size());
    REQUIRE(a.size() == c.size());
    for (const char* m : {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
                          "smsp__cycles_elapsed.avg.per_second", "launch__waves_per_multiprocessor"}) {
        CAPTURE(m);
        for (std::size_t i = 0; i < a.size(); ++i) {
            // Auto units keep 6 decimals of the scaled value: agreement to 1e-5 relative.
            CHECK(a[i].get(m) == doctest::Approx(b[i].get(m)).epsilon(1e-5));
            CHECK(c[i].get(m) == doctest::Approx(b[i].get(m)).epsilon(1e-5));
        }
    }
}

TEST_CASE("details page: display names mapped to metric ids, rule rows kept") {
    read_summary s;
    auto v = read_example("examples/h100/kernels_details.csv", &s);
    CHECK(s.form == ncu_form::details);
    REQUIRE(v.size() == 15);
    const auto& c = by_name(v, copy);
    CHECK(c.get("gpu__time_duration.sum") == doctest::Approx(182340).epsilon(1e-4));  // "182.34" us
    CHECK(c.get("sm__cycles_elapsed.avg.per_second") == doctest::Approx(1.58e9).epsilon(1e-2));
    CHECK(c.get("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed") > 80);
    CHECK(c.get("launch__grid_size") == 1056);
    CHECK(c.texts.at("launch__func_cache_config") == "CachePreferNone");
    const auto& fma = by_name(v, "fma_chain<float>");
    bool high_pipe = false;
    for (const auto& r : fma.rules)
        high_pipe |= r.name == "HighPipeUtilization" && r.type == "OPT" && !r.description.empty();
    CHECK(high_pipe);
    bool occupancy = false;
    for (const auto& r : fma.rules)
        if (r.name == "AchievedOccupancy") {
            occupancy = true;
            CHECK(r.speedup_type == "local");
            CHECK(r.est_speedup_pct == doctest::Approx(20.88));
        }
    CHECK(occupancy);
}

TEST_CASE("details page in base units and in the C locale agree with auto units") {
    auto a = read_example("examples/h100/kernels_details.csv");
    auto b = read_example("examples/h100/kernels_details_base.csv");
    auto c = read_example("examples/h100/kernels_details_lc_c.csv");
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        // Auto units print 2 decimals of the scaled value ("1.13" ms): 3 digits at worst.
        CHECK(a[i].get("gpu__time_duration.sum") == doctest::Approx(b[i].get("gpu__time_duration.sum")).epsilon(5e-3));
        CHECK(c[i].get("gpu__time_duration.sum") == doctest::Approx(a[i].get("gpu__time_duration.sum")));
    }
}

TEST_CASE("a European-locale details export reads like the original") {
    read_summary s;
    auto eu = read_launches(read_text(source_path("tests/data/details_eu_locale.csv")), &s);
    CHECK(s.style == number_style::comma);
    auto orig = read_example("examples/h100/kernels_details.csv");
    REQUIRE(eu.size() == 3);
    CHECK(eu[0].get("gpu__time_duration.sum") == doctest::Approx(by_name(orig, copy).get("gpu__time_duration.sum")));
    CHECK(eu[0].get("sm__cycles_elapsed.max") == by_name(orig, copy).get("sm__cycles_elapsed.max"));
}

TEST_CASE("metric-instance exports read their aggregates") {
    auto inst = read_example("examples/h100/kernels_raw_instances.csv");
    auto plain = read_example("examples/h100/kernels_raw.csv");
    REQUIRE(inst.size() == plain.size());
    CHECK(by_name(inst, copy).get("dram__bytes_read.sum") == by_name(plain, copy).get("dram__bytes_read.sum"));
    auto dinst = read_example("examples/h100/kernels_details_instances.csv");
    CHECK(by_name(dinst, copy).get("gpu__time_duration.sum") == doctest::Approx(copy_ns).epsilon(1e-4));
}

TEST_CASE("a live --metrics run: CSV among ==PROF== lines and program output, base units") {
    read_summary s;
    auto v = read_example("examples/h100/live_metrics_stdout.txt", &s);
    CHECK(s.form == ncu_form::metrics);
    CHECK(s.skipped_lines > 5);
    REQUIRE(v.size() == 9);  // copy_vec4 once, tiny_add eight times
    CHECK(v[0].get("dram__bytes_read.sum") == 268453632);
    CHECK(v[0].get("gpu__time_duration.sum") == 184128);
    for (std::size_t i = 1; i < v.size(); ++i) CHECK(v[i].kernel_name.find("tiny_add") != std::string::npos);
}

TEST_CASE("per-kernel summary: one record per kernel with its invocation count") {
    read_summary s;
    auto v = read_example("examples/h100/kernels_summary.csv", &s);
    CHECK(s.form == ncu_form::summary);
    REQUIRE(v.size() == 8);
    CHECK(by_name(v, "tiny_add").invocations == 8);
    CHECK(by_name(v, copy).invocations == 1);
}

TEST_CASE("the 2019.5 layout reads with its nsecond durations") {
    auto v = read_launches(read_text(source_path("tests/data/old_2019_5_layout.csv")));
    REQUIRE(v.size() == 1);
    CHECK(v[0].get("gpu__time_duration.sum") == 182336);
    CHECK(v[0].get("sm__cycles_elapsed.avg.per_second") == doctest::Approx(1.58e9));
}

TEST_CASE("unknown metrics are kept out of the way, not errors") {
    auto v = read_launches(
        "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid "
        "Size\",\"Device\",\"CC\",\"gpu__time_duration.sum\",\"my__made_up_metric.sum\"\n"
        "\"\",\"\",\"\",\"\",\"\",\"\",\"us\",\"\"\n"
        "\"0\",\"k\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"1.5\",\"7\"\n");
    REQUIRE(v.size() == 1);
    CHECK(v[0].get("gpu__time_duration.sum") == 1500);
}

TEST_CASE("block and grid sizes are read as three integers; any other text is an error at its cell") {
    CHECK(parse_launch_dims("(256, 1, 1)") == launch_dims{{256, 1, 1}});
    CHECK(parse_launch_dims("(32, 8, 2)")->count() == 512);
    for (const char* bad : {"", "256", "(256, 1)", "(256,1,1)", "(256, 1, 1", "(a, 1, 1)", "(-1, 1, 1)", "(1, 1, 1) "})
        CHECK_FALSE(parse_launch_dims(bad).has_value());
    const std::string csv =
        "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"gpu__time_duration.sum\"\n"
        "\"\",\"\",\"\",\"\",\"nsecond\"\n"
        "\"0\",\"k\",\"(256, 1)\",\"(4, 1, 1)\",\"1000\"\n";
    try {
        read_launches(csv);
        FAIL("a malformed Block Size was accepted");
    } catch (const input_error& e) {
        CHECK(e.code() == error_code::bad_number);
        CHECK(e.line() == 3);
        CHECK(e.column() == 9);
        CHECK(e.detail() == "Block Size \"(256, 1)\" is not \"(x, y, z)\"");
    }
    // An empty cell is unknown, not an error.
    auto launches = read_launches(
        "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"gpu__time_duration.sum\"\n"
        "\"\",\"\",\"\",\"\",\"nsecond\"\n\"0\",\"k\",\"\",\"(4, 1, 1)\",\"1000\"\n");
    REQUIRE(launches.size() == 1);
    CHECK_FALSE(launches[0].block_size.has_value());
    CHECK(to_string(*launches[0].grid_size) == "(4, 1, 1)");
}
