// Two analyses on two threads of one process: the library holds no per-process state that one analysis
// writes while another reads (the metric id table is shared and locked; everything else is per analysis
// or made once, before any thread can see it). CTest runs this file in a process of its own, so the two
// analyses below are the first to intern their metric ids, and do it at the same time.
#include "analyzer/read/metric_keys.hpp"
#include "analyzer/report/report.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

using namespace roofline;
using namespace roofline::test;

namespace {

std::string json_of(const std::string& capture) { return render_json(analyze_example(capture)); }

}  // namespace

TEST_CASE("two analyses on two threads give the reports each gives alone") {
    // Two captures with different columns (a raw page of 2,238 metrics, a details page of display
    // names) from two GPUs, so each thread interns ids the other has not made.
    const std::string first = "examples/h100/kernels_raw.csv", second = "examples/h200/pairs_details.csv";
    std::string together_first, together_second;
    {
        std::thread a([&] { together_first = json_of(first); });
        std::thread b([&] { together_second = json_of(second); });
        a.join();
        b.join();
    }
    REQUIRE_FALSE(together_first.empty());
    REQUIRE_FALSE(together_second.empty());
    // Alone, after: the same bytes (the ids made by the threads are the ids these runs find).
    CHECK(json_of(first) == together_first);
    CHECK(json_of(second) == together_second);
    // And again on four threads at once, two of each.
    std::vector<std::string> out(4);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < out.size(); ++i)
        threads.emplace_back([&, i] { out[i] = json_of(i % 2 ? second : first); });
    for (auto& t : threads) t.join();
    for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i] == (i % 2 ? together_second : together_first));
}

TEST_CASE("metric ids made on eight threads at once: one key per name, every name where its key says") {
    constexpr int threads_n = 8, names_n = 2003;  // prime: each (2t + 1) steps through every name
    std::vector<std::vector<metric_key>> keys(threads_n, std::vector<metric_key>(names_n));
    std::vector<std::thread> threads;
    for (int t = 0; t < threads_n; ++t)
        threads.emplace_back([&, t] {
            // Every thread makes the same names, each in its own order.
            for (int i = 0; i < names_n; ++i) {
                const int n = (i * (2 * t + 1)) % names_n;
                keys[t][n] = intern_metric("test__thread_name_" + std::to_string(n) + ".sum");
            }
        });
    for (auto& t : threads) t.join();
    for (int n = 0; n < names_n; ++n) {
        for (int t = 1; t < threads_n; ++t) CHECK(keys[t][n] == keys[0][n]);
        CHECK(metric_name(keys[0][n]) == "test__thread_name_" + std::to_string(n) + ".sum");
        CHECK(metric_key_is_additive(keys[0][n]));
    }
}
