// Rule trees: the expression language, the loader's errors (tests/rules_corpus), each tree's
// boundaries on small synthetic kernels, and the trees on the real H100 pairs capture.
#include "analyzer/input_error.hpp"
#include "analyzer/rules/diagnose.hpp"
#include "analyzer/rules/kernel_facts.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <filesystem>

using namespace roofline;
using namespace roofline::rules;
using namespace roofline::test;

namespace {
std::optional<double> eval(const std::string& text, std::map<std::string, double> values = {}) {
    auto e = expression::parse(text, fact_type);
    return e.evaluate([&](const std::string& n) -> std::optional<double> {
        auto it = values.find(n);
        return it == values.end() ? std::nullopt : std::optional<double>(it->second);
    });
}

std::size_t error_column(const std::string& text) {
    try {
        expression::parse(text, fact_type);
    } catch (const expression_error& e) {
        return e.column();
    }
    return 0;
}

std::vector<std::string> finding_ids(const diagnosis& d) {
    std::vector<std::string> ids;
    for (const auto& f : d.findings) ids.push_back(f.id);
    return ids;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

const gpu_spec& h100() {
    static const std::vector<gpu_spec> specs = load_gpu_specs();
    return *std::find_if(specs.begin(), specs.end(), [](const gpu_spec& g) { return g.id == "h100-sxm"; });
}

diagnosis diagnose(const std::vector<rule_tree>& trees, const kernel_result& k) { return rules::diagnose(trees, k, h100()); }

// A kernel with just the metrics a test names, classified as `bound`.
kernel_result synthetic(const std::string& bound, std::map<std::string, double> metrics, double pct = 50, std::size_t launches = 1) {
    kernel_result k;
    k.group.launches = launches;
    k.group.numbers = std::move(metrics);
    k.verdict.bound = bound;
    k.roof.placed = true;
    k.roof.duration_ns = 1e6;
    k.roof.pct_of_roof = pct;
    return k;
}
}  // namespace

TEST_CASE("expressions: precedence, comparisons, logic, and missing values") {
    CHECK(*eval("1 + 2 * 3") == 7);
    CHECK(*eval("(1 + 2) * 3") == 9);
    CHECK(*eval("-2 * -3") == 6);
    CHECK(*eval("10 / 4") == 2.5);
    CHECK(*eval("1 < 2 and not (3 <= 2) or false") == 1);
    CHECK(*eval("pct_of_roof >= 85", {{"pct_of_roof", 85}}) == 1);
    CHECK(*eval("pct_of_roof >= 85", {{"pct_of_roof", 84.9}}) == 0);
    CHECK(*eval("dram__bytes_read.sum / gpu__time_duration.sum", {{"dram__bytes_read.sum", 10}, {"gpu__time_duration.sum", 4}}) == 2.5);
    CHECK_FALSE(eval("1 / 0").has_value());
    CHECK(*eval("0 / 0") == 0);  // two idle counters
    auto e = expression::parse("util_dram > 0.6 and lts__t_sector_hit_rate.pct < 50", fact_type);
    std::vector<std::string> missing;
    CHECK_FALSE(e.evaluate([](const std::string&) { return std::nullopt; }, &missing).has_value());
    CHECK(missing == std::vector<std::string>{"util_dram", "lts__t_sector_hit_rate.pct"});
}

TEST_CASE("expression errors point at the column") {
    CHECK(error_column("pct_of_roof > 85 and nonsense") == 22);
    CHECK(error_column("bound_memory + 1") == 1);
    CHECK(error_column("(1 + 2") == 7);
    CHECK(error_column("1 +") == 4);
    CHECK(error_column("2 $ 3") == 3);
}

TEST_CASE("every malformed rule file fails with its exact error") {
    namespace fs = std::filesystem;
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(source_path("tests/rules_corpus"))) {
        if (e.path().extension() != ".json") continue;
        ++n;
        std::string name = e.path().filename().string();
        CAPTURE(name);
        std::string expected = read_text(e.path().string().substr(0, e.path().string().size() - 5) + ".expected");
        while (!expected.empty() && expected.back() == '\n') expected.pop_back();
        CHECK_THROWS_WITH_AS(parse_rule_tree(read_text(e.path().string()), name), expected.c_str(), input_error);
    }
    CHECK(n == 8);
}

TEST_CASE("the shipped trees load, and --rules overrides one by id") {
    auto trees = load_rule_trees();
    CHECK(trees.size() == 5);
    auto dir = std::filesystem::temp_directory_path() / "roofline-rules-override";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "mine.json") << R"({"id": "near-roof", "title": "Mine", "roots": [{"id": "n", "title": "N", "explain": "x", "when": "true", "finding": "always"}]})";
    auto over = load_rule_trees(dir.string());
    CHECK(over.size() == 5);
    auto it = std::find_if(over.begin(), over.end(), [](const rule_tree& t) { return t.id == "near-roof"; });
    REQUIRE(it != over.end());
    CHECK(it->title == "Mine");
}

TEST_CASE("tree boundaries on synthetic kernels") {
    auto trees = load_rule_trees();
    const std::map<std::string, double> sectors = {{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 50},
                                                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 50}};
    auto with = [&](double excessive) {
        auto m = sectors;
        m["derived__memory_l2_theoretical_sectors_global_excessive"] = excessive;
        return m;
    };
    CHECK_FALSE(has(finding_ids(diagnose(trees, synthetic("memory", with(25)))), "uncoalesced-global"));
    CHECK(has(finding_ids(diagnose(trees, synthetic("memory", with(26)))), "uncoalesced-global"));
    CHECK_FALSE(has(finding_ids(diagnose(trees, synthetic("compute", with(90)))), "uncoalesced-global"));  // only under memory-bound

    auto banks = [](double conflicts) {
        return std::map<std::string, double>{{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", conflicts},
                                             {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 100}};
    };
    CHECK_FALSE(has(finding_ids(diagnose(trees, synthetic("memory", banks(30)))), "shared-bank-conflicts"));
    CHECK(has(finding_ids(diagnose(trees, synthetic("memory", banks(31)))), "shared-bank-conflicts"));

    auto barrier = [](double stalled) {
        return std::map<std::string, double>{{"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", stalled},
                                             {"smsp__average_warp_latency_per_inst_issued.ratio", 10}};
    };
    CHECK_FALSE(has(finding_ids(diagnose(trees, synthetic("compute", barrier(1.0)))), "barrier-stalls"));
    CHECK(has(finding_ids(diagnose(trees, synthetic("compute", barrier(1.01)))), "barrier-stalls"));

    CHECK(has(finding_ids(diagnose(trees, synthetic("compute", {}, 85))), "near-roof"));
    CHECK_FALSE(has(finding_ids(diagnose(trees, synthetic("compute", {}, 84.99))), "near-roof"));
    CHECK_FALSE(has(finding_ids(diagnose(trees, synthetic("latency", {}, 90))), "near-roof"));

    auto launch = diagnose(trees, synthetic("launch", {}, 10, 8));
    REQUIRE(has(finding_ids(launch), "launch-bound"));
    auto f = std::find_if(launch.findings.begin(), launch.findings.end(), [](const finding& x) { return x.id == "launch-bound"; });
    CHECK(f->fixes.size() == 3);  // fuse and graph apply: 8 launches
    CHECK(finding_ids(diagnose(trees, synthetic("launch", {}, 10, 1))).size() == 1);
}

TEST_CASE("a rule that lacks counters says which, and the ncu flags that collect them") {
    auto trees = load_rule_trees();
    auto d = diagnose(trees, synthetic("memory", {}));
    CHECK(has(d.missing_metrics, "derived__memory_l2_theoretical_sectors_global_excessive"));
    bool cannot = false;
    for (const auto& v : d.path) cannot |= v.node == "uncoalesced-global" && v.result == visited_node::outcome::cannot_evaluate;
    CHECK(cannot);
    CHECK(ncu_flags_for({"a__b.sum", "util_dram"}) == "--metrics a__b.sum --set full");
}

TEST_CASE("on the real H100 pairs: each naive kernel shows its bottleneck's finding, its fix does not") {
    auto a = analyze_example("examples/h100/pairs_raw.csv");
    auto ids = [&](const char* name) { return finding_ids(kernel_named(a, name).diagnosis); };
    struct expectation { const char* naive; const char* fixed; const char* finding; };
    for (const expectation& e : {expectation{"transpose_naive(", "transpose_smem(", "uncoalesced-global"},
                                 expectation{"aos_strided(", "soa_contiguous(", "uncoalesced-global"},
                                 expectation{"transpose_unpadded(", "transpose_smem(", "shared-bank-conflicts"},
                                 expectation{"reduce_naive(", "reduce_shuffle(", "barrier-stalls"},
                                 expectation{"copy_few_blocks(", "copy_vec4(", "small-grid"},
                                 expectation{"gather_smem_limited(", "gather_full_occupancy(", "memory-latency"},
                                 expectation{"gather_smem_limited(", "gather_full_occupancy(", "occupancy-limited"},
                                 expectation{"branch_divergent(", "branch_free(", "thread-divergence"},
                                 expectation{"bins_local_array(", "bins_registers(", "register-spills"},
                                 expectation{"poly_chain<double>(", "poly_chain<float>(", "fp64-slow-pipe"},
                                 expectation{"sgemm_smem_tiled(", "sgemm_register_blocked(", "mio-throttle"}}) {
        CAPTURE(e.naive);
        CHECK(has(ids(e.naive), e.finding));
        CHECK_FALSE(has(ids(e.fixed), e.finding));
    }
    CHECK(has(ids("tiny_add("), "launch-bound"));
    // For these pairs the bottleneck's finding ranks first on the naive kernel.
    for (const auto& [naive, finding] : std::vector<std::pair<const char*, const char*>>{
             {"transpose_naive(", "uncoalesced-global"}, {"aos_strided(", "uncoalesced-global"},
             {"transpose_unpadded(", "shared-bank-conflicts"}, {"reduce_naive(", "barrier-stalls"},
             {"branch_divergent(", "thread-divergence"}, {"poly_chain<double>(", "fp64-slow-pipe"},
             {"copy_few_blocks(", "small-grid"}, {"tiny_add(", "launch-bound"}, {"gather_smem_limited(", "memory-latency"},
             {"wmma_global(", "tensor-underused"}, {"sgemm_smem_tiled(", "mio-throttle"}}) {
        CAPTURE(naive);
        CHECK(ids(naive).front() == finding);
    }
    // Both WMMA kernels leave the tensor pipe idle most of the time (4% and 45% active): the
    // staged one too, which PAIRS.md lists as a fix that did not reach its roof.
    CHECK(has(ids("wmma_global("), "tensor-underused"));
    CHECK(has(ids("wmma_staged("), "tensor-underused"));
    // The roof references say near-roof.
    for (const char* r : {"copy_vec4(", "fma_chain<float>(", "fma_chain<double>("}) CHECK(has(ids(r), "near-roof"));
}

TEST_CASE("gain estimates land within 25% of the measured speedup of each pair (H100, H200)") {
  for (const char* gpu : {"h100", "h200"}) {
    CAPTURE(gpu);
    auto a = analyze_example(std::string("examples/") + gpu + "/pairs_raw.csv");
    auto est = [&](const char* kernel, const char* id) {
        for (const auto& f : kernel_named(a, kernel).diagnosis.findings)
            if (f.id == id) return f.est_speedup.value_or(0.0);
        return 0.0;
    };
    auto measured = [&](const char* naive, const char* fixed) {
        return kernel_named(a, naive).roof.duration_ns / kernel_named(a, fixed).roof.duration_ns;
    };
    struct pair_case { const char* naive; const char* fixed; const char* finding; };
    for (const pair_case& p : {pair_case{"transpose_naive(", "transpose_smem(", "uncoalesced-global"},
                               pair_case{"aos_strided(", "soa_contiguous(", "uncoalesced-global"},
                               pair_case{"transpose_unpadded(", "transpose_smem(", "shared-bank-conflicts"},
                               pair_case{"reduce_naive(", "reduce_shuffle(", "barrier-stalls"},
                               pair_case{"branch_divergent(", "branch_free(", "thread-divergence"},
                               pair_case{"poly_chain<double>(", "poly_chain<float>(", "fp64-slow-pipe"},
                               pair_case{"sgemm_smem_tiled(", "sgemm_register_blocked(", "mio-throttle"},
                               pair_case{"copy_few_blocks(", "copy_vec4(", "small-grid"}}) {
        CAPTURE(p.naive);
        double m = measured(p.naive, p.fixed), e = est(p.naive, p.finding);
        CAPTURE(m);
        CAPTURE(e);
        CHECK(e >= 0.75 * m);
        CHECK(e <= 1.25 * m);
    }
    // The launch chain: 8 launches of tiny_add against one fused launch.
    double chain = kernel_named(a, "tiny_add(").roof.duration_ns;
    double fused = kernel_named(a, "tiny_add_fused(").roof.duration_ns;
    CHECK(est("tiny_add(", "launch-bound") == doctest::Approx(chain / fused).epsilon(0.25));
    // The WMMA pair's fix stops short of the tensor roof; cuBLAS on the same problem does not:
    // the estimate is held to cuBLAS's time.
    auto cublas = analyze_example(std::string("examples/") + gpu + "/cublas_ref_raw.csv");
    double lib = kernel_named(a, "wmma_global(").roof.duration_ns / cublas.kernels.front().roof.duration_ns;
    CHECK(est("wmma_global(", "tensor-underused") == doctest::Approx(lib).epsilon(0.25));
    // Never below the kernel's floor: near-roof's estimate is the floor itself.
    const auto& copy = kernel_named(a, "copy_vec4(");
    for (const auto& f : copy.diagnosis.findings)
        if (f.id == "near-roof") CHECK(*f.est_time_after_ns == doctest::Approx(copy.roof.floor_ns));
  }
}
