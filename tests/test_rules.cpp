// Rule trees: the expression language, the loader's errors (tests/rules_corpus), each tree's
// boundaries on small synthetic kernels, and the trees on the real H100 pairs capture.
#include "analyzer/base/input_error.hpp"
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/diagnose/fusion.hpp"
#include "analyzer/diagnose/kernel_facts.hpp"
#include "analyzer/report/text.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

#include <filesystem>

using namespace roofline;
using namespace roofline::diagnose;
using namespace roofline::test;

namespace {

// The pipeline's own step: fusion findings on the first kernel of each run, ranked (analysis.hpp).
void add_fusion(std::vector<analysed_kernel>& kernels, const gpu_spec& spec) {
    attach_workload_findings(kernels, spec);
}

}  // namespace

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

bool has(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

// The near-roof node fired; on a synthetic kernel that lacks the counters of other nodes it is not
// reported (diagnose::diagnose(): "look elsewhere" is not decided), and a note says so.
bool near_roof_fired(const diagnosis& d) {
    return std::any_of(d.path.begin(), d.path.end(), [](const visited_node& v) {
        return v.tree == "near-roof" && v.node == "near-roof" && v.result == visited_node::outcome::fired;
    });
}

const gpu_spec& h100() {
    static const std::vector<gpu_spec> specs = load_gpu_specs();
    return *std::find_if(specs.begin(), specs.end(), [](const gpu_spec& g) { return g.id == "h100-sxm"; });
}

}  // namespace

namespace roofline::diagnose {
// The diagnosis on the H100 SXM's spec (an overload for these tests only).
diagnosis diagnose(const std::vector<rule_tree>& trees, const analysed_kernel& k) { return diagnose(trees, k, h100()); }
}  // namespace roofline::diagnose

namespace {

// A kernel with just the metrics a test names, classified as `bound`.
// `roof_share`: its largest floor at the practical shares over its duration, in percent.
analysed_kernel synthetic(const std::string& bound, std::map<std::string, double> metrics, double roof_share = 50,
                          std::size_t launches = 1, const std::string& limiter = "") {
    analysed_kernel k;
    k.group.launches = launches;
    k.group.metrics = std::move(metrics);
    k.verdict.bound = bound_named(bound).value();
    if (!limiter.empty()) k.verdict.limiter = resource_named(limiter).value();
    k.roof.placed = true;
    k.roof.duration_ns = 1e6;
    k.roof.pct_of_roof = k.roof.pct_of_roof_hi = roof_share;
    k.roof.practical_floor_ns = k.roof.practical_floor_hi_ns = k.roof.duration_ns * roof_share / 100.0;
    // Not a wgmma or TMA kernel: its counters say so (0), as every capture of --set full does.
    k.group.metrics["sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed"] += 0.0;
    k.group.metrics["smsp__inst_executed_op_tma_ld.sum"] += 0.0;
    // No global atomics, and the L2 clock they would be timed at (atomic_chain_ns).
    for (const char* op : {"red", "atom_dot_alu", "atom_dot_cas"}) {
        k.group.metrics[std::string("lts__t_requests_srcunit_tex_op_") + op + ".sum"] += 0.0;
        k.group.metrics[std::string("lts__t_sectors_srcunit_tex_op_") + op + "_lookup_miss.sum"] += 0.0;
    }
    if (!k.group.metrics.find("lts__cycles_elapsed.avg.per_second"))
        k.group.metrics["lts__cycles_elapsed.avg.per_second"] = 1.6e9;
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
    CHECK(*eval("dram__bytes_read.sum / gpu__time_duration.sum",
                {{"dram__bytes_read.sum", 10}, {"gpu__time_duration.sum", 4}}) == 2.5);
    CHECK_FALSE(eval("1 / 0").has_value());
    CHECK(*eval("false and lts__t_sector_hit_rate.pct > 1") == 0);  // a known false decides "and"
    CHECK(*eval("lts__t_sector_hit_rate.pct > 1 or true") == 1);    // a known true decides "or"
    CHECK_FALSE(eval("true and lts__t_sector_hit_rate.pct > 1").has_value());
    // Metric ids are checked against the catalogue: a misspelt counter is an error, not a hint.
    CHECK_THROWS_AS(expression::parse("l1tex__t_request_pipe_lsu_mem_global_op_ld.sum > 1", fact_type),
                    expression_error);
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
        const std::string expected_file = e.path().string().substr(0, e.path().string().size() - 5) + ".expected";
        if (std::getenv("ROOFLINE_UPDATE_CORPUS")) {  // rewrite the expected errors (read the diff before committing)
            try {
                parse_rule_tree(read_text(e.path().string()), name);
            } catch (const input_error& x) {
                std::ofstream(expected_file, std::ios::binary) << x.what() << "\n";
            }
        }
        std::string expected = read_text(expected_file);
        while (!expected.empty() && expected.back() == '\n') expected.pop_back();
        CHECK_THROWS_WITH_AS(parse_rule_tree(read_text(e.path().string()), name), expected.c_str(), input_error);
    }
    CHECK(n == 13);
}

TEST_CASE("the shipped trees load, and --rules overrides one by id") {
    auto trees = load_rule_trees();
    CHECK(trees.size() == 5);
    auto dir = temp_path("rules-override");
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "mine.json")
        << R"({"id": "near-roof", "title": "Mine", "roots": [)"
        << R"({"id": "n", "title": "N", "explain": "x", "when": "true", "finding": "always"}]})";
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
    // Over a quarter of the sectors moved wasted, whatever bounds the kernel: the estimate says
    // whether it matters.
    CHECK_FALSE(has(finding_ids(diagnose::diagnose(trees, synthetic("memory", with(25)))), "uncoalesced-global"));
    CHECK(has(finding_ids(diagnose::diagnose(trees, synthetic("memory", with(26)))), "uncoalesced-global"));
    CHECK(has(finding_ids(diagnose::diagnose(trees, synthetic("latency", with(90)))), "uncoalesced-global"));

    auto banks = [](double conflicts) {
        return std::map<std::string, double>{{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", conflicts},
                                             {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 100}};
    };
    CHECK_FALSE(has(finding_ids(diagnose::diagnose(trees, synthetic("memory", banks(30)))), "shared-bank-conflicts"));
    CHECK(has(finding_ids(diagnose::diagnose(trees, synthetic("memory", banks(31)))), "shared-bank-conflicts"));

    auto barrier = [](double stalled) {
        return std::map<std::string, double>{
            {"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", stalled},
            {"smsp__average_warp_latency_per_inst_issued.ratio", 10}};
    };
    CHECK_FALSE(has(finding_ids(diagnose::diagnose(trees, synthetic("latency", barrier(1.0)))), "barrier-stalls"));
    CHECK(has(finding_ids(diagnose::diagnose(trees, synthetic("latency", barrier(1.01)))), "barrier-stalls"));
    CHECK(
        has(finding_ids(diagnose::diagnose(trees, synthetic("compute", barrier(5.0), 50, 1, "sm"))), "barrier-stalls"));
    // Not asked of a kernel one pipe saturates (its warps wait for that pipe), nor of a kernel its
    // tensor cores bind, nor of a warp-specialised one (wgmma or TMA: mbarrier waits by design).
    for (const char* limiter : {"tensor_fp16", "tensor_bf16", "tensor_fp8", "pipe_alu", "fp32"})
        CHECK_FALSE(has(finding_ids(diagnose::diagnose(trees, synthetic("compute", barrier(5.0), 50, 1, limiter))),
                        "barrier-stalls"));
    auto specialised = barrier(5.0);
    specialised["smsp__inst_executed_op_tma_ld.sum"] = 1;
    CHECK_FALSE(has(finding_ids(diagnose::diagnose(trees, synthetic("latency", specialised))), "barrier-stalls"));

    // near-roof at 80% of the practical ceiling: no fix that keeps the work gains over 1.25x.
    const auto at_80 = diagnose::diagnose(trees, synthetic("compute", {}, 80));
    CHECK(near_roof_fired(at_80));
    // Other nodes lack counters here: near-roof leads only as a provisional answer, naming what could
    // outrank it, and missing-counters follows with the command that collects their counters.
    REQUIRE(!at_80.findings.empty());
    CHECK(at_80.findings.front().id == "near-roof");
    CHECK(at_80.provisional);
    CHECK_FALSE(at_80.could_outrank.empty());
    CHECK(at_80.findings.back().id == "missing-counters");
    CHECK_FALSE(near_roof_fired(diagnose::diagnose(trees, synthetic("compute", {}, 79.9))));

    auto launch = diagnose::diagnose(trees, synthetic("launch", {}, 10, 8));
    REQUIRE(has(finding_ids(launch), "launch-bound"));
    auto f = std::find_if(launch.findings.begin(), launch.findings.end(),
                          [](const finding& x) { return x.id == "launch-bound"; });
    CHECK(f->fixes.size() == 3);
    // One short launch is launch-bound too: its own start and drain are as long as its work. Folding
    // it into a neighbour saves at most the GPU's shortest launch, so it is one of 3 us here.
    auto short_one = synthetic("launch", {}, 10, 1);
    short_one.roof.duration_ns = 3000;
    auto single = diagnose::diagnose(trees, short_one);
    REQUIRE(has(finding_ids(single), "launch-bound"));
    CHECK(single.findings.front().fixes.size() == 2);
}

TEST_CASE("tail-effect and dram-bandwidth-low boundaries on synthetic kernels") {
    auto trees = load_rule_trees();
    auto waves = [&](double w) {
        auto k = synthetic("memory", {});
        k.shape.waves = w;
        return diagnose::diagnose(trees, k);
    };
    CHECK_FALSE(has(finding_ids(waves(0.9)), "tail-effect"));  // under one wave: the small-grid rule's ground
    CHECK(has(finding_ids(waves(1.7)), "tail-effect"));        // 0.3 of 2 waves idle: 15%
    CHECK_FALSE(has(finding_ids(waves(1.71)), "tail-effect"));
    CHECK_FALSE(has(finding_ids(waves(2.0)), "tail-effect"));
    CHECK(has(finding_ids(waves(3.1)), "tail-effect"));        // 0.9 of 4 idle: 22.5%
    CHECK_FALSE(has(finding_ids(waves(4.1)), "tail-effect"));  // from 4 waves on, the tail is left to the scheduler
    CHECK(has(finding_ids(waves(2.5)), "tail-effect"));
    auto tail = waves(1.25);
    auto f = std::find_if(tail.findings.begin(), tail.findings.end(),
                          [](const finding& x) { return x.id == "tail-effect"; });
    REQUIRE(f != tail.findings.end());
    CHECK(*f->est_speedup == doctest::Approx(2.0 / 1.25));  // 2 waves of time for 1.25 waves of work

    // A kernel whose floor is its DRAM traffic, running DRAM at `busy` of its peak.
    const double practical = *h100().practical_fraction.at(roofline::resource::dram).value;
    auto dram = [&](double busy, const char* bound = "memory", const char* limiter = "dram") {
        auto k = synthetic(bound, {}, 100.0 * busy / practical, 1, limiter);
        resource_use u;
        u.id = roofline::resource::dram;
        u.peak = 3e12;
        u.work = busy * 3e12 * 1e-3;  // bytes moved in the 1 ms the kernel lasts
        u.utilisation = u.useful = busy;
        u.practical = practical;
        u.floor_ns = busy * 1e6 / practical;
        k.roof.bytes_dram = u.work;
        k.roof.resources.push_back(u);
        k.roof.binding_practical = roofline::resource::dram;
        return diagnose::diagnose(trees, k);
    };
    CHECK(has(finding_ids(dram(0.79 * practical)), "dram-bandwidth-low"));
    CHECK_FALSE(has(finding_ids(dram(0.80 * practical)), "dram-bandwidth-low"));  // near-roof's ground
    CHECK(near_roof_fired(dram(0.80 * practical)));
    CHECK(has(finding_ids(dram(0.4 * practical, "latency", "")), "dram-bandwidth-low"));  // nothing bounds it: latency
    CHECK_FALSE(has(finding_ids(dram(0.3, "memory", "l1")), "dram-bandwidth-low"));       // L1 limits it
    CHECK_FALSE(has(finding_ids(dram(0.3, "small_grid", "")), "dram-bandwidth-low"));     // the grid explains it
    auto low = dram(0.5 * practical);
    auto g = std::find_if(low.findings.begin(), low.findings.end(),
                          [](const finding& x) { return x.id == "dram-bandwidth-low"; });
    REQUIRE(g != low.findings.end());
    CHECK(*g->est_speedup == doctest::Approx(2.0));  // to the practical share of the DRAM roof
}

TEST_CASE("the estimator: a restructuring fix falls to the floors it leaves, and never beats one") {
    auto trees = load_rule_trees();
    const double practical = *h100().practical_fraction.at(roofline::resource::dram).value;
    // Memory-bound on DRAM at 80% busy with 40% of L1's peak in uncoalesced global wavefronts.
    auto kernel = [&](double l1_busy) {
        auto k = synthetic("memory",
                           {{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 100},
                            {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0},
                            {"derived__memory_l2_theoretical_sectors_global_excessive", 80},
                            {"dram__bytes_read.sum", 640},
                            {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 32}},
                           80, 1, "dram");
        k.roof.bytes_dram = 640;
        k.roof.l2_excess_share = 0.0;  // L1 absorbed the excess: L2 saw the ideal
        resource_use dram;
        dram.id = roofline::resource::dram;
        dram.utilisation = dram.useful = 0.8;
        dram.practical = practical;
        resource_use l1 = dram;
        l1.id = roofline::resource::l1;
        l1.utilisation = l1_busy;
        l1.practical = 1.0;
        k.roof.resources = {dram, l1};
        l1_traffic t;
        t.lsu = t.global = l1_busy * 100;
        t.global_ideal_share = 0.2;
        k.roof.l1 = t;
        return k;
    };
    // Coalescing restructures the kernel: whichever unit limits now, it falls to the floors of what it
    // leaves, here DRAM's at its practical share.
    auto d = diagnose::diagnose(trees, kernel(0.4));
    auto f = std::find_if(d.findings.begin(), d.findings.end(),
                          [](const finding& x) { return x.id == "uncoalesced-global"; });
    REQUIRE(f != d.findings.end());
    REQUIRE(f->est_time_after_ns.has_value());
    CHECK(*f->est_time_after_ns == doctest::Approx(0.8 * 1e6 / practical));
    // Where L1 limits (busier than DRAM), the same fix takes the kernel to its floors: DRAM at its practical share.
    auto l1_bound = kernel(0.95);
    l1_bound.verdict.limiter = roofline::resource::l1;
    auto e = diagnose::diagnose(trees, l1_bound);
    auto g = std::find_if(e.findings.begin(), e.findings.end(),
                          [](const finding& x) { return x.id == "uncoalesced-global"; });
    REQUIRE(g != e.findings.end());
    CHECK(*g->est_time_after_ns == doctest::Approx(0.8 * 1e6 / practical));
    // Every estimate stays above the floors it leaves: DRAM's work at its practical share.
    for (const auto& x : d.findings)
        if (x.est_time_after_ns) CHECK(*x.est_time_after_ns >= 0.8 * 1e6 / practical - 1e-6);
}
TEST_CASE("fusion-candidate: consecutive DRAM-bound kernels that pass a buffer along") {
    auto kernel = [](const char* name, double read, double written, const char* grid = "(1024, 1, 1)") {
        analysed_kernel k;
        k.group.name = name;
        k.group.launches = 1;
        k.group.grid_size = parse_launch_dims(grid);
        k.group.block_size = parse_launch_dims("(256, 1, 1)");
        k.roof.bytes_dram_read = read;
        k.roof.bytes_dram_written = written;
        k.verdict.bound = roofline::bound::memory;
        k.verdict.limiter = roofline::resource::dram;
        k.roof.placed = true;
        resource_use u;
        u.id = roofline::resource::dram;
        u.peak = 1e12;
        k.roof.bytes_dram = read + written;
        k.roof.duration_ns = 1e9 * (read + written) / 1e12;
        k.roof.resources.push_back(u);
        return k;
    };
    // Three passes over 1 MB: 6 MB through DRAM; fused, 2 MB.
    std::vector<analysed_kernel> ks = {kernel("a(", 1e6, 1e6), kernel("b(", 1e6, 1e6), kernel("c(", 1e6, 1e6),
                                       kernel("other(", 1e6, 1e6, "(7, 1, 1)")};
    add_fusion(ks, h100());
    REQUIRE(ks[0].diagnosis.findings.size() == 1);
    const auto& f = ks[0].diagnosis.findings.front();
    CHECK(f.id == "fusion-candidate");
    const double practical = *h100().practical_fraction.at(roofline::resource::dram).value;
    CHECK(*f.est_time_after_ns == doctest::Approx(1e9 * 2e6 / (1e12 * practical)));
    CHECK(*f.est_speedup == doctest::Approx(3.0 * practical));
    CHECK(ks[1].diagnosis.findings.empty());
    CHECK(ks[3].diagnosis.findings.empty());  // another grid: not part of the run
    // The next kernel reads far more than this one wrote: not one buffer passed along.
    std::vector<analysed_kernel> apart = {kernel("a(", 1e6, 1e6), kernel("b(", 2e6, 1e6)};
    add_fusion(apart, h100());
    CHECK(apart[0].diagnosis.findings.empty());
    // Not DRAM-bound: nothing to gain from keeping the buffer on chip.
    std::vector<analysed_kernel> compute = {kernel("a(", 1e6, 1e6), kernel("b(", 1e6, 1e6)};
    compute[1].verdict.bound = roofline::bound::compute;
    add_fusion(compute, h100());
    CHECK(compute[0].diagnosis.findings.empty());
}

TEST_CASE("a rule that lacks counters says which, and the ncu flags that collect them on the chip") {
    auto trees = load_rule_trees();
    auto d = diagnose::diagnose(trees, synthetic("memory", {}));
    // global_excess_share lacks the excess sectors and the global sectors it divides them by.
    CHECK(has(d.missing_metrics, "derived__memory_l2_theoretical_sectors_global_excessive"));
    CHECK(has(d.missing_metrics, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"));
    bool cannot = false;
    for (const auto& v : d.path)
        if (v.node == "uncoalesced-global" && v.result == visited_node::outcome::cannot_evaluate) {
            cannot = true;
            // The value it could not decide is shown as such.
            bool open = false;
            for (const auto& x : v.values)
                open = open || (x.expression == pooled_string("global_excess_share") && !x.value());
            CHECK(open);
        }
    CHECK(cannot);
    // On GB20x the DRAM bytes are dram__bytes_op_read, FP16 tensor ops come split by accumulate type,
    // the excess sectors need the section that defines them, and the immediate-constant stall has no counter.
    const std::vector<std::string> missing = {
        "dram__bytes_read.sum", "derived__memory_l2_theoretical_sectors_global_excessive",
        "sm__ops_path_tensor_src_fp16.sum", "smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio"};
    const auto gb20x = ncu_flags_for(missing, find_chip("gb20x"));
    CHECK(gb20x.text() ==
          "--metrics "
          "dram__bytes_op_read.sum,sm__ops_path_tensor_src_fp16_dst_fp16.sum,sm__ops_path_tensor_src_fp16_dst_fp32.sum "
          "--section SourceCounters");
    CHECK(gb20x.uncollectable ==
          std::vector<std::string>{"smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio"});
    const auto gh100 = ncu_flags_for(missing, find_chip("gh100"));
    CHECK(gh100.text() ==
          "--metrics "
          "dram__bytes_read.sum,sm__ops_path_tensor_src_fp16.sum,smsp__average_warps_issue_stalled_imc_miss_per_issue_"
          "active.ratio "
          "--section SourceCounters");
    CHECK(gh100.uncollectable.empty());
}

namespace {
// The 13 pairs of kernels/pairs.json: the naive kernel, the fixed one, the finding it was built for.
struct pair_case {
    const char* naive;
    const char* fixed;
    const char* finding;
    // Another first finding, with its reason: a restructuring fix the pair's fixed kernel does not apply,
    // which ranks first where its estimate is larger (the gather's random indices, sorted or bucketed,
    // coalesce); or near-roof before fusion-candidate, where the kernels of the run read and write as
    // much as each other, as variants of one operation do (ncu cannot see data flow).
    const char* or_first = nullptr;
};
const std::vector<pair_case>& pair_cases() {
    static const std::vector<pair_case> cases = {
        {"transpose_naive(", "transpose_smem(", "uncoalesced-global"},
        {"aos_strided(", "soa_contiguous(", "uncoalesced-global"},
        {"transpose_unpadded(", "transpose_smem(", "shared-bank-conflicts"},
        {"reduce_naive(", "reduce_shuffle(", "barrier-stalls"},
        {"wmma_global(", "wgmma_tma(", "tensor-underused"},
        {"sgemm_smem_tiled(", "sgemm_register_blocked(", "mio-throttle"},
        {"gather_smem_limited(", "gather_full_occupancy(", "occupancy-limited", "uncoalesced-global"},
        {"copy_few_blocks(", "copy_vec4(", "small-grid"},
        {"tiny_add(", "tiny_add_fused(", "launch-bound"},
        {"branch_divergent(", "branch_free(", "thread-divergence"},
        {"bins_local_array(", "bins_shared(", "register-spills"},
        {"ew_scale(", "ew_fused(", "fusion-candidate", "near-roof"},
        {"poly_chain<double>(", "poly_chain<float>(", "fp64-slow-pipe"}};
    return cases;
}
}  // namespace

TEST_CASE("on the real H100 and H200 pairs: each naive kernel shows its bottleneck's finding first, its fix does not") {
    for (const char* gpu : {"h100", "h200"}) {
        CAPTURE(gpu);
        auto a = analyze_example(std::string("examples/") + gpu + "/pairs_raw.csv");
        auto ids = [&](const char* name) { return finding_ids(kernel_named(a, name).diagnosis); };
        for (const pair_case& p : pair_cases()) {
            CAPTURE(p.naive);
            REQUIRE(has(ids(p.naive), p.finding));
            const auto& naive_findings = kernel_named(a, p.naive).diagnosis.findings;
            if (p.or_first && naive_findings.front().id == p.or_first) {
                const auto own = std::find_if(naive_findings.begin(), naive_findings.end(),
                                              [&](const auto& f) { return f.id == p.finding; });
                REQUIRE(own != naive_findings.end());
                if (own->below_kernel_findings) continue;
                REQUIRE(own->est_speedup);
                REQUIRE(naive_findings.front().est_speedup);
                CHECK(*naive_findings.front().est_speedup > *own->est_speedup);
            } else {
                CHECK(ids(p.naive).front() == p.finding);
            }
            CAPTURE(std::string(p.fixed));
            // The launch-bound pair's fix is itself one short launch (2.9 us): it keeps launch-bound
            // for a single launch, whose fix is the next step (fold it into a neighbouring kernel).
            if (std::string(p.finding) == "launch-bound") {
                CHECK(kernel_named(a, p.fixed).group.launches == 1);
                CHECK(kernel_named(a, p.fixed).diagnosis.findings.front().node == "launch-bound-single");
                continue;
            }
            CHECK_FALSE(has(ids(p.fixed), p.finding));
        }
        // Between the tensor pair's sides, the shared-memory staged WMMA kernel still issues mma.sync
        // and leaves the tensor pipe idle over half the time (43% active): it keeps tensor-underused.
        // cuBLAS on the same problem does not, and the warp-specialised wgmma kernel is not told of
        // the barrier waits its producer and consumers make by design.
        CHECK(has(ids("wmma_staged("), "tensor-underused"));
        auto cublas = analyze_example(std::string("examples/") + gpu + "/cublas_ref_raw.csv");
        CHECK_FALSE(has(finding_ids(cublas.kernels.front().diagnosis), "tensor-underused"));
        CHECK_FALSE(has(ids("wgmma_tma("), "barrier-stalls"));
        // The register-spills pair's other fix, compile-time indexing, leaves local memory too.
        CHECK_FALSE(has(ids("bins_registers("), "register-spills"));
        // The roof references say near-roof, first. On the FP64 roof, doing the work in FP32
        // promises over 1.25x, which near-roof ("look elsewhere") cannot stand beside: fp64-slow-pipe
        // leads and near-roof is left out, with a note saying why.
        for (const char* r : {"copy_vec4(", "fma_chain<float>(", "fma_chain<__half2>("}) {
            CAPTURE(r);
            REQUIRE(!ids(r).empty());
            CHECK(ids(r).front() == "near-roof");
        }
        CHECK(ids("fma_chain<double>(").front() == "fp64-slow-pipe");
        CHECK_FALSE(has(ids("fma_chain<double>("), "near-roof"));
        CHECK(kernel_named(a, "fma_chain<double>(").diagnosis.notes.size() == 1);
    }
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
        for (const pair_case& p : pair_cases()) {
            // Held apart below: the fusion pair's naive side is three kernels.
            if (std::string(p.finding) == "fusion-candidate") continue;
            CAPTURE(p.naive);
            double m = measured(p.naive, p.fixed), e = est(p.naive, p.finding);
            CAPTURE(m);
            CAPTURE(e);
            CHECK(e >= 0.75 * m);
            CHECK(e <= 1.25 * m);
        }
        // The elementwise chain: three kernels against one fused kernel.
        double chain3 = kernel_named(a, "ew_scale(").roof.duration_ns + kernel_named(a, "ew_shift(").roof.duration_ns +
                        kernel_named(a, "ew_relu(").roof.duration_ns;
        CHECK(est("ew_scale(", "fusion-candidate") ==
              doctest::Approx(chain3 / kernel_named(a, "ew_fused(").roof.duration_ns).epsilon(0.25));
        // register-spills: the floor once local traffic is gone, which the shared-memory fix reaches.
        // The compile-time-indexed fix pays 8 selects per value, ALU work the naive kernel's counters
        // cannot foresee: it stays below the estimate.
        CHECK(est("bins_local_array(", "register-spills") >= measured("bins_local_array(", "bins_registers("));
        // The tensor estimate is also within 25% of what cuBLAS realises on the same problem (27.8x
        // on the H100; on the H200 it is 2% above cuBLAS's 27.3x, which ran at a 8% lower clock).
        auto cublas = analyze_example(std::string("examples/") + gpu + "/cublas_ref_raw.csv");
        double lib = kernel_named(a, "wmma_global(").roof.duration_ns / cublas.kernels.front().roof.duration_ns;
        CHECK(est("wmma_global(", "tensor-underused") == doctest::Approx(lib).epsilon(0.25));
        // Never below the kernel's floor: near-roof's estimate is at least the practical floor.
        const auto& copy = kernel_named(a, "copy_vec4(");
        for (const auto& f : copy.diagnosis.findings)
            if (f.id == "near-roof")
                CHECK(*f.est_time_after_ns >=
                      std::min(copy.roof.practical_floor_ns, copy.roof.duration_ns) * (1 - 1e-9));
    }
}

TEST_CASE("rule files that would run the loader or the walk off the stack are refused by name") {
    auto tree = [](const std::string& when, int depth) {
        // {"id": "t", "roots": [node0 {children: [node1 {...}]}]}, built as text: no recursion here either.
        std::string nodes;
        for (int i = 0; i < depth; ++i)
            nodes += std::string(i ? ", \"children\": [" : "") + "{\"id\": \"n" + std::to_string(i) +
                     "\", \"title\": \"T\", \"explain\": \"x\", \"when\": \"" + (i + 1 == depth ? when : "true") + "\"";
        for (int i = 0; i < depth; ++i) nodes += i + 1 < depth ? "}]" : "}";
        return "{\"id\": \"t\", \"title\": \"T\", \"roots\": [" + nodes + "]}";
    };
    CHECK_NOTHROW(parse_rule_tree(tree("launches > 1", 33), "ok.json"));
    CHECK_THROWS_WITH_AS(parse_rule_tree(tree("true", 20000), "deep.json"),
                         doctest::Contains("nodes nested more than 32 deep"), input_error);
    std::string parens = std::string(5000, '(') + "launches" + std::string(5000, ')') + " > 1";
    CHECK_THROWS_WITH_AS(parse_rule_tree(tree(parens, 1), "parens.json"),
                         doctest::Contains("longer than 2000 characters"), input_error);
    std::string nested = std::string(40, '(') + "launches" + std::string(40, ')') + " > 1";
    CHECK_THROWS_WITH_AS(parse_rule_tree(tree(nested, 1), "nested.json"), doctest::Contains("nested too deeply"),
                         input_error);
    std::string sum = "launches";
    for (int i = 0; i < 70000; ++i) sum += " + launches";
    CHECK_THROWS_WITH_AS(parse_rule_tree(tree(sum + " > 1", 1), "sum.json"),
                         doctest::Contains("longer than 2000 characters"), input_error);
    CHECK_THROWS_WITH_AS(expression::parse(std::string(200, '-') + "1", fact_type),
                         doctest::Contains("nested too deeply"), expression_error);
    CHECK(expression::parse(std::string(20, '(') + "1" + std::string(20, ')'), fact_type)
              .evaluate([](const std::string&) { return 0.0; }) == 1.0);
}

TEST_CASE("an over-long rule expression is quoted in part in its error, not whole") {
    std::string expr;
    for (int i = 0; i < 40000; ++i) expr += "1 + ";
    expr += "1";  // 160,001 characters: over the parser's 2,000
    const std::string file =
        "{\"id\": \"t\", \"title\": \"T\", \"roots\": [{\"id\": \"a\", \"title\": \"A\", \"explain\": \"x\", \"when\": "
        "\"" +
        expr + " > 0\", \"finding\": \"f\"}]}";
    try {
        parse_rule_tree(file, "long.json");
        FAIL("accepted");
    } catch (const input_error& e) {
        const std::string what = e.what();
        CAPTURE(what.substr(0, 400));
        CHECK(what.size() < 600);
        CHECK(what.find("characters)") != std::string::npos);
        CHECK(what.find("column 2001: longer than 2000 characters") != std::string::npos);  // where, and why
    }
}

TEST_CASE("the catch-all findings carry values, and the report words them") {
    // No tree: nothing fires and nothing is left undecided, so the kernel is unexplained; the capture
    // holds no stall reason, and the evidence says so.
    const auto u = diagnose::diagnose({}, synthetic("latency", {}));
    REQUIRE(u.findings.size() == 1);
    const finding& f = u.findings.front();
    CHECK(f.id == "unexplained");
    CHECK(f.engine == engine_finding::unexplained);
    CHECK_FALSE(f.after_findings);
    CHECK((f.title.empty() && f.explain.empty() && f.fixes.empty() && f.estimate_why.empty()));
    CHECK(finding_title(f) == "No rule explains this kernel's time");
    CHECK(finding_explain(f).rfind("No diagnosis tree fired: the kernel is below the roofs", 0) == 0);
    CHECK(finding_fixes(f).size() == 2);
    CHECK(finding_estimate_why(f).rfind("Whatever the cause, the work stays", 0) == 0);
    REQUIRE(f.evidence.size() == 2);
    CHECK(f.evidence[0].kind == evidence_kind::stall_reasons_missing);
    CHECK(evidence_name(f.evidence[0]) ==
          "what the warps waited on: not in this capture (ncu --section WarpStateStats collects every stall reason)");
    CHECK(evidence_name(f.evidence[1]) == "roof_share");

    // With the trees, the same capture leaves nodes undecided and none fires: the answer is what to collect.
    const auto m = diagnose::diagnose(load_rule_trees(), synthetic("latency", {}));
    REQUIRE_FALSE(m.findings.empty());
    const finding& c = m.findings.front();
    CHECK(c.engine == engine_finding::missing_counters);
    CHECK(c.undecided == m.undecided);
    CHECK(finding_title(c) == "Not decided: the capture lacks the counters to tell");
    const std::string why = finding_explain(c);
    CHECK(why.find(std::to_string(m.undecided.size()) + " could not be evaluated for lack of counters (" +
                   undecided_text(m.undecided.front()) + ", ") != std::string::npos);
    REQUIRE(finding_fixes(c).size() == 1);
    CHECK(finding_fixes(c).front() ==
          "Profile again with `ncu " + c.collect + " ...` (or `roofline metrics --format section`'s file).");
    CHECK(c.collect.rfind("--metrics ", 0) == 0);
}

TEST_CASE("a rule error's line and column come from the parser: the value that is wrong, not the first like it") {
    // The same text twice in one node: a true/false condition where "when" wants one, and where
    // "evidence" wants a number. The error is the second's; a search of the text would find the first.
    const std::string text =
        "{\"id\": \"t\", \"title\": \"T\", \"roots\": [\n"
        "  {\"id\": \"a\", \"title\": \"A\", \"explain\": \"x\",\n"
        "   \"when\": \"launches > 1\",\n"
        "   \"evidence\": [\"launches\", \"launches > 1\"]}]}\n";
    try {
        (void)parse_rule_tree(text, "twice.json");
        FAIL("the tree loaded");
    } catch (const input_error& e) {
        CHECK(e.line() == 4);
        CHECK(e.column() == 30);  // the first character of the second "launches > 1" on line 4
        CHECK(std::string(e.what()).find("\"evidence\": expected a number") != std::string::npos);
    }
}
