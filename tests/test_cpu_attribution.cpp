// roofline timeline: what the launching CPU thread was doing while the GPU waited for it, on a
// Kineto-shaped trace built here with one gap of each category planted at known times.
#include "analyzer/timeline/timeline_findings.hpp"
#include "analyzer/timeline/timeline_model.hpp"
#include "analyzer/timeline/trace_file.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

using namespace roofline;
using namespace roofline::test;
using namespace roofline::timeline;

namespace {

// Times in microseconds from the step's start (the trace's ts are 5e9 us later).
struct builder {
    std::ostringstream events;
    bool first = true;
    builder() { events << std::fixed << std::setprecision(3); }
    void add(const std::string& cat, const std::string& name, double ts, double dur, const std::string& args = "{}",
             int pid = 1, int tid = 100) {
        events << (first ? "" : ",\n") << R"({"ph": "X", "cat": ")" << cat << R"(", "name": ")" << name
               << R"(", "pid": )" << pid << R"(, "tid": )" << tid << R"(, "ts": )" << 5e9 + ts << R"(, "dur": )" << dur
               << R"(, "args": )" << args << "}";
        first = false;
    }
    // A kernel launched by cudaLaunchKernel at `at` (5 us on the CPU), running [start, end).
    void kernel(int id, double at, double start, double end, const std::string& call = "cudaLaunchKernel") {
        const std::string corr = R"({"correlation": )" + std::to_string(id) + "}";
        add("cuda_runtime", call, at, 5, corr);
        add("kernel", "k" + std::to_string(id), start, end - start,
            R"({"device": 0, "stream": 7, "correlation": )" + std::to_string(id) + "}", 0, 7);
    }
    std::string text() const { return R"({"traceEvents": [)" + events.str() + "]}"; }
};

//   0-1000     ProfilerStep#1, and the program's frame train.py(10): main around everything
//   k1 10-100; gap 100-310 (host): DataLoader batch 100-300 (its __getitem__ frame 120-280), k2's launch
//              call 300-305, then main's Python 305-310
//   k2 310-400; gap 400-510 (host): Optimizer.step 400-500 (an aten::add_ inside), launch, Python
//   k3 510-600; gap 600-710 (host): the program's own range my_preprocess 600-700, launch, Python
//   k4 710-800; k5 810-850 under aten::item 805-860, whose cudaStreamSynchronize runs 806-851;
//   gap 850-910 (sync): k6 launched at 900, runs 910-990.
std::string planted_categories() {
    builder b;
    b.add("user_annotation", "ProfilerStep#1", 0, 1000);
    b.add("python_function", "train.py(10): main", 0, 1000);
    b.kernel(1, 0, 10, 100);
    b.add("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 100, 200);
    b.add("python_function", "/usr/lib/python3/site-packages/torch/utils/data/dataloader.py(700): __next__", 101, 198);
    b.add("python_function", "dataset.py(5): __getitem__", 120, 160);
    b.kernel(2, 300, 310, 400);
    b.add("user_annotation", "Optimizer.step#SGD.step", 400, 100);
    b.add("cpu_op", "aten::add_", 410, 10);
    b.kernel(3, 500, 510, 600);
    b.add("user_annotation", "my_preprocess", 600, 100);
    b.kernel(4, 700, 710, 800);
    b.kernel(5, 800, 810, 850);
    b.add("cpu_op", "aten::item", 805, 55);
    b.add("cuda_runtime", "cudaStreamSynchronize", 806, 45);
    b.kernel(6, 900, 910, 990);
    return b.text();
}

struct modelled {
    trace t;
    timeline_model m;
};

modelled model_of_text(const std::string& text) {
    const auto path = temp_path("categories.json").string();
    {
        std::ofstream out(path, std::ios::binary);
        out << text;
    }
    modelled r{read_trace_file(path), {}};
    std::filesystem::remove(path);
    r.m = model_timeline(r.t, 10'000);
    return r;
}

std::int64_t ns_of(const device_timeline& d, cpu_category c) { return d.time_of(c).ns; }

}  // namespace

TEST_CASE("cpu attribution: each moment of a gap the CPU caused goes to the first category that covers it") {
    auto r = model_of_text(planted_categories());
    REQUIRE(r.m.devices.size() == 1);
    const auto& d = r.m.devices[0];
    CHECK(d.cpu_recorded);
    CHECK(ns_of(d, cpu_category::data_loading) == 200'000);
    CHECK(ns_of(d, cpu_category::optimizer) == 100'000);  // the aten::add_ inside is the optimizer's
    CHECK(ns_of(d, cpu_category::user_range) == 100'000);
    CHECK(ns_of(d, cpu_category::dispatch) == 15'000);  // the three launch calls
    CHECK(ns_of(d, cpu_category::python) == 15'000);    // main's Python after each (the gaps are over 100 us)
    CHECK(ns_of(d, cpu_category::sync) == 60'000);      // 850-910: waited in aten::item's synchronize
    CHECK(ns_of(d, cpu_category::unknown) == 0);
    // What carried it: the outermost range of its kind, and the innermost frame of the program's code.
    const auto& loading = d.time_of(cpu_category::data_loading);
    REQUIRE(!loading.top.empty());
    CHECK(r.t.name(loading.top[0].name) == "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
    REQUIRE(!loading.frames.empty());
    CHECK(r.t.name(loading.frames[0].name) == "dataset.py(5): __getitem__");
    CHECK(loading.frames[0].ns == 160'000);
    REQUIRE(!d.time_of(cpu_category::sync).top.empty());
    CHECK(r.t.name(d.time_of(cpu_category::sync).top[0].name) == "aten::item");
    // Each gap is named by its largest share.
    REQUIRE(d.gaps.size() == 4);
    CHECK(d.gaps[0].category == cpu_category::data_loading);
    CHECK(d.gaps[1].category == cpu_category::optimizer);
    CHECK(d.gaps[2].category == cpu_category::user_range);
    CHECK(d.gaps[3].category == cpu_category::sync);
    // The in-process loader's own CPU time: one batch of 200 us (its torch frame is inside the range).
    CHECK(d.loader_batches == 1);
    CHECK(d.loader_in_process_ns == 200'000);
    CHECK_FALSE(d.loader_workers);
}

TEST_CASE("cpu attribution: one finding per category, the largest removing every host gap") {
    auto r = model_of_text(planted_categories());
    const auto f = timeline_findings(r.m);
    const auto& d = r.m.devices[0];
    auto find = [&](finding_kind k) {
        const auto it = std::find_if(f.begin(), f.end(), [k](const timeline_finding& x) { return x.kind == k; });
        REQUIRE(it != f.end());
        return *it;
    };
    // Span 10-990 us. Data loading is the largest: with it gone the CPU runs ahead, so its fix removes every
    // host gap (210 + 110 + 110 us) and the 10 us before k5, launched as k4 ended: 980 - 440 = 540 us.
    const auto loading = find(finding_kind::data_loading);
    CHECK(loading.removed_ns == 440'000);
    CHECK(loading.after_ns == 540'000);
    REQUIRE(loading.workers_to_hide);
    CHECK(*loading.loader_per_batch_ns == 200'000);
    CHECK(*loading.rest_per_step_ns == 540'000);
    CHECK(*loading.workers_to_hide == 1);
    // The smaller categories remove their own time.
    CHECK(find(finding_kind::optimizer).after_ns == 880'000);
    CHECK(find(finding_kind::user_range).after_ns == 880'000);
    // The sync gap's fix leaves the CPU's own time: 980 - the 45 us it was blocked = 935 us (binds).
    CHECK(find(finding_kind::sync).after_ns == 935'000);
    // Dispatch (15 us) and Python (15 us) gain less than run-to-run noise: no finding.
    CHECK(std::none_of(f.begin(), f.end(), [](const timeline_finding& x) {
        return x.kind == finding_kind::dispatch || x.kind == finding_kind::python || x.kind == finding_kind::host;
    }));
    CHECK(d.time_of(cpu_category::dispatch).ns == 15'000);
}

TEST_CASE("cpu attribution: in a gap shorter than a launch's Python, the program's Python is dispatch") {
    builder b;
    b.add("user_annotation", "ProfilerStep#1", 0, 200);
    b.add("python_function", "model.py(20): forward", 0, 200);
    b.kernel(1, 0, 10, 30);
    b.add("cpu_op", "aten::relu", 35, 10);
    b.kernel(2, 40, 80, 100);  // gap 30-80: relu's dispatch 35-45, the call 40-45, Python 30-35 and 45-80
    auto r = model_of_text(b.text());
    const auto& d = r.m.devices[0];
    CHECK(d.time_of(cpu_category::python).ns == 0);
    CHECK(d.time_of(cpu_category::dispatch).ns == 50'000);
    REQUIRE(!d.time_of(cpu_category::dispatch).frames.empty());
    CHECK(r.t.name(d.time_of(cpu_category::dispatch).frames[0].name) == "model.py(20): forward");
}

TEST_CASE("cpu attribution: without CPU operators or frames, what the CPU did is unknown, and said so") {
    builder b;
    b.kernel(1, 0, 10, 30);
    b.kernel(2, 500, 510, 530);
    auto r = model_of_text(b.text());
    const auto& d = r.m.devices[0];
    CHECK_FALSE(d.cpu_recorded);
    CHECK(d.time_of(cpu_category::unknown).ns == 480'000 - 5'000);
    CHECK(d.time_of(cpu_category::dispatch).ns == 5'000);  // the launch call itself is recorded
    const auto f = timeline_findings(r.m);
    REQUIRE(!f.empty());
    CHECK(f[0].kind == finding_kind::host);  // cpu-bound-gaps, as before CPU attribution
}

TEST_CASE("cpu attribution: the labelled device traces: every planted category named first, its estimate in band") {
    // examples/timeline_cpu: labelled before capture (LABELS.md), timed without the profiler (timing_call1.json).
    const std::string dir = source_path("examples/timeline_cpu/");
    const auto timing = nlohmann::json::parse(read_text(dir + "timing_call1.json"));
    auto ms = [&](const char* variant) { return timing[variant]["median_ms"].get<double>(); };
    struct labelled {
        const char* trace;
        finding_kind first;
        const char* fixed;  // the variant whose measured step the estimate is held to ("" : none here)
    };
    for (const labelled& c : {labelled{"A_data_nw0", finding_kind::data_loading, "A_data_nw8"},
                              labelled{"A_data_nw4", finding_kind::data_loading, ""},
                              labelled{"B_decode_eager", finding_kind::dispatch, "B_decode_graph"},
                              labelled{"C_adam_foreach_false", finding_kind::optimizer, "C_adam_fused"},
                              labelled{"D_sync_naive", finding_kind::sync, "D_sync_fixed"}}) {
        CAPTURE(c.trace);
        modelled r{read_trace_file(dir + "traces/" + c.trace + ".json.gz"), {}};
        r.m = model_timeline(r.t, 10'000);
        const auto& d = r.m.devices[0];
        std::int64_t all = 0;
        for (const auto& x : d.cpu) all += x.ns;
        REQUIRE(all > 0);
        CHECK(double(all - d.time_of(cpu_category::unknown).ns) >= 0.9 * double(all));  // >= 90% named
        const auto step = std::llround(ms(c.trace) * 1e6);
        const auto f = timeline_findings(r.m, step);
        REQUIRE(!f.empty());
        CHECK(f[0].kind == c.first);
        if (std::string(c.fixed).empty()) continue;
        // The estimate against the measured step, at the fix that was timed (8 workers for the loader).
        double est = f[0].est_speedup_measured.value_or(0.0);
        for (const auto& [n, ns] : f[0].with_workers)
            if (n == 8) est = double(step) / double(ns);
        const double measured = ms(c.trace) / ms(c.fixed);
        CAPTURE(est);
        CAPTURE(measured);
        CHECK(est / measured >= 0.67);
        CHECK(est / measured <= 1.5);
    }
}

TEST_CASE("cpu attribution: an in-process loader's floor predicts the step at each measured worker count") {
    const std::string dir = source_path("examples/timeline_cpu/");
    const auto timing = nlohmann::json::parse(read_text(dir + "timing_call1.json"));
    modelled r{read_trace_file(dir + "traces/A_data_nw0.json.gz"), {}};
    r.m = model_timeline(r.t, 10'000);
    const auto f = timeline_findings(r.m, std::llround(timing["A_data_nw0"]["median_ms"].get<double>() * 1e6));
    REQUIRE(!f.empty());
    REQUIRE(f[0].kind == finding_kind::data_loading);
    std::size_t checked = 0;
    for (const auto& [n, ns] : f[0].with_workers) {
        const std::string variant = "A_data_nw" + std::to_string(n);
        if (!timing.contains(variant)) continue;
        CAPTURE(n);
        const double ratio = double(ns) / 1e6 / timing[variant]["median_ms"].get<double>();
        CHECK(ratio >= 0.67);
        CHECK(ratio <= 1.5);
        ++checked;
    }
    CHECK(checked == 3);  // 2, 4 and 8 workers
    // Where in the program: its own __getitem__, not the NumPy frames inside it.
    const auto& frames = r.m.devices[0].time_of(cpu_category::data_loading).frames;
    REQUIRE(!frames.empty());
    CHECK(r.t.name(frames[0].name) == "cpu_workloads.py(78): __getitem__");
}
