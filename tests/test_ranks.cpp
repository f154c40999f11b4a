// roofline timeline over several ranks: each rank summarised on its own, the straggler named by the
// collectives it arrives last at, on traces built here and on the two-rank NCCL run of examples/timeline.
#include "analyzer/base/input_error.hpp"
#include "analyzer/timeline/ranks.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <tuple>

using namespace roofline;
using namespace roofline::test;
using namespace roofline::timeline;

namespace {

// One rank's trace: a step of 0-`step` us with a compute kernel, then NCCL kernels of the durations
// given, each launched 10 us before it starts. Clocks deliberately offset per rank (`shift`).
std::string rank_trace(int rank, const std::vector<double>& nccl, double shift) {
    std::ostringstream e;
    e << std::fixed << std::setprecision(3);
    double t = 5e9 + shift;
    int id = 1;
    auto add = [&](const std::string& cat, const std::string& name, double ts, double dur, const std::string& args,
                   int pid, int tid) {
        e << (id == 1 && cat == "user_annotation" ? "" : ",\n") << R"({"ph": "X", "cat": ")" << cat << R"(", "name": ")"
          << name << R"(", "pid": )" << pid << R"(, "tid": )" << tid << R"(, "ts": )" << ts << R"(, "dur": )" << dur
          << R"(, "args": )" << args << "}";
    };
    double total = 100;
    for (double d : nccl) total += 20 + d;
    add("user_annotation", "ProfilerStep#1", t, total + 50, "{}", 1, 100);
    auto kernel = [&](const std::string& name, double start, double dur) {
        const std::string corr = R"({"correlation": )" + std::to_string(id) + "}";
        add("cuda_runtime", "cudaLaunchKernel", start - 10, 5, corr, 1, 100);
        add("kernel", name, start, dur, R"({"device": 0, "stream": 7, "correlation": )" + std::to_string(id) + "}", 0,
            7);
        ++id;
    };
    kernel("gemm", t + 10, 90);
    double at = t + 100;
    for (double d : nccl) {
        at += 20;
        kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", at, d);
        at += d;
    }
    return R"({"distributedInfo": {"backend": "nccl", "rank": )" + std::to_string(rank) +
           R"(, "world_size": 2}, "traceEvents": [)" + e.str() + "]}";
}

std::string write(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
    std::filesystem::create_directories(dir);
    const auto p = (dir / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

}  // namespace

TEST_CASE("ranks: the rank whose collectives are the shortest arrived last, and the others waited for it") {
    const auto dir = temp_path("ranks_planted");
    // Rank 1 reaches each all-reduce 400-480 us after rank 0, whose kernels spin that long; the clocks differ.
    const auto a = write(dir, "r0.json", rank_trace(0, {500, 600, 550}, 0));
    const auto b = write(dir, "r1.json", rank_trace(1, {100, 120, 110}, 123456));
    for (unsigned threads : {1u, 4u}) {
        CAPTURE(threads);
        const auto m = model_ranks({b, a}, 10'000, threads);  // given out of order: sorted by distributedInfo rank
        REQUIRE(m.ranks.size() == 2);
        CHECK(m.ranks[0].rank == 0);
        CHECK(m.ranks[1].rank == 1);
        CHECK(m.collectives == 3);
        CHECK_FALSE(m.counts_differ);
        CHECK(m.arrived_last[1] == 3);
        CHECK(m.waited_ns[0] == 1'320'000);  // 400 + 480 + 440 us
        CHECK(m.waited_ns[1] == 0);
        REQUIRE(m.straggler);
        CHECK(*m.straggler == 1);
        CHECK(m.others_wait_per_step_ns == 1'320'000);
        REQUIRE(m.est_speedup);
        CHECK(*m.est_speedup == doctest::Approx(double(m.step_ns) / double(m.step_ns - 1'320'000)));
    }
    // A folder of traces reads as the ranks of one job.
    const auto out = run_cli({"timeline", dir.string(), "--format", "json"});
    REQUIRE(out.rc == 0);
    const auto j = nlohmann::json::parse(out.out);
    CHECK(j["schema"] == "roofline-timeline-ranks/1");
    CHECK(j["straggler"]["rank"] == 1);
    const auto md = run_cli({"timeline", a, b}).out;
    CHECK(md.find("**straggler-rank**: rank 1 arrived last at 3 of 3 collectives") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("ranks: balanced ranks name no straggler; a bad rank's file is named; an empty folder is refused") {
    const auto dir = temp_path("ranks_balanced");
    const auto a = write(dir, "r0.json", rank_trace(0, {100, 300, 100, 300}, 0));
    const auto b = write(dir, "r1.json", rank_trace(1, {300, 100, 300, 100}, 0));
    const auto m = model_ranks({a, b}, 10'000, 2);
    CHECK(m.collectives == 4);
    CHECK(m.arrived_last[0] == 2);
    CHECK_FALSE(m.straggler);
    CHECK(ranks_markdown(m).find("no-straggler") != std::string::npos);
    // The error names the rank's file (main() prints it with the line and column, and exits 1).
    const auto bad = write(dir, "r2.json", "{\"traceEvents\": [");
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const input_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(message([&] { model_ranks({a, bad}, 10'000, 2); }).find("r2.json:1:") != std::string::npos);
    const auto empty = temp_path("ranks_empty");
    std::filesystem::create_directories(empty);
    CHECK(message([&] { run_cli({"timeline", empty.string()}); }).find("holds no trace") != std::string::npos);
    std::filesystem::remove_all(dir);
    std::filesystem::remove_all(empty);
}

TEST_CASE("ranks: the two-rank NCCL run of examples/timeline, in parallel and one at a time alike") {
    const std::vector<std::string> files = {source_path("examples/timeline/nccl/nccl_naive_rank0.json.gz"),
                                            source_path("examples/timeline/nccl/nccl_naive_rank1.json.gz")};
    const auto one = model_ranks(files, 10'000, 1), two = model_ranks(files, 10'000, 2);
    CHECK(ranks_json(one) == ranks_json(two));
    REQUIRE(one.ranks.size() == 2);
    CHECK(one.ranks[0].world_size == 2);
    CHECK(one.collectives > 0);
    // Every collective has one rank that arrived last.
    CHECK(one.arrived_last[0] + one.arrived_last[1] == one.collectives);
}

TEST_CASE("ranks: the device's DDP runs with rank 1 slowed: rank 1 named, its cost within the measured band") {
    // examples/timeline_cpu: rank 1 burns 40 ms of CPU in its input step (LABELS.md); timed without the profiler.
    const std::string dir = source_path("examples/timeline_cpu/");
    const auto timing = nlohmann::json::parse(read_text(dir + "timing_call2.json"));
    for (const auto& [run, ranks, fast] :
         {std::tuple{"ddp2_slow", 2, "ddp2_fast"}, std::tuple{"ddp4_slow", 4, "ddp4_fast"}}) {
        CAPTURE(run);
        std::vector<std::string> files;
        for (int r = 0; r < ranks; ++r)
            files.push_back(dir + "traces/" + run + "/rank" + std::to_string(r) + ".json.gz");
        const auto m = model_ranks(files, 10'000, 2);
        REQUIRE(m.straggler);
        CHECK(m.ranks[*m.straggler].rank == 1);
        REQUIRE(m.est_speedup);
        const double measured = timing[run]["median_ms"].get<double>() / timing[fast]["median_ms"].get<double>();
        CHECK(*m.est_speedup / measured >= 0.67);
        CHECK(*m.est_speedup / measured <= 1.5);
    }
    // The balanced run names none.
    const auto balanced =
        model_ranks({dir + "traces/ddp2_fast/rank0.json.gz", dir + "traces/ddp2_fast/rank1.json.gz"}, 10'000, 2);
    CHECK_FALSE(balanced.straggler);
}

TEST_CASE("ranks: diff of two runs rank by rank, with the gate on the job's step") {
    const std::string dir = source_path("examples/timeline_cpu/traces/");
    // The slowed run against the balanced one: faster, the straggler gone.
    const auto better = run_cli({"diff", dir + "ddp2_slow", dir + "ddp2_fast", "--format", "json"});
    REQUIRE(better.rc == 0);
    const auto j = nlohmann::json::parse(better.out);
    CHECK(j["base"]["straggler"] == 1);
    CHECK(j["new"]["straggler"].is_null());
    CHECK(j["change_pct"].get<double>() < -40.0);
    // The other way round, --fail-if-slower fails the job's step (exit 1).
    const auto worse = run_cli({"diff", dir + "ddp2_fast", dir + "ddp2_slow", "--fail-if-slower", "5"});
    CHECK(worse.rc == 1);
    CHECK(worse.out.find("**Gate failed**") != std::string::npos);
    CHECK(worse.err.find("--fail-if-slower 5 failed") != std::string::npos);
}

TEST_CASE("ranks: a folder of one trace is read as that trace") {
    const auto dir = temp_path("ranks_one");
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(source_path("tests/data/timeline/planted.json"), dir / "planted.json");
    const auto r = run_cli({"timeline", dir.string(), "--format", "json"});
    CHECK(r.rc == 0);
    CHECK(nlohmann::json::parse(r.out)["schema"] == "roofline-timeline/1");
    std::filesystem::remove_all(dir);
}
