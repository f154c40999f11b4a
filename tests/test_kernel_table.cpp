#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/read/kernel_table.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

using namespace roofline;
using namespace roofline::test;

TEST_CASE("counters add up over launches and rates are averaged by duration") {
    CHECK(metric_is_additive("dram__bytes_read.sum"));
    CHECK(metric_is_additive("gpu__time_duration.sum"));
    CHECK(metric_is_additive("lts__t_sectors.avg"));
    CHECK_FALSE(metric_is_additive("dram__bytes.sum.per_second"));
    CHECK_FALSE(metric_is_additive("sm__throughput.avg.pct_of_peak_sustained_elapsed"));
    CHECK_FALSE(metric_is_additive("lts__t_sector_hit_rate.pct"));
    CHECK_FALSE(metric_is_additive("launch__grid_size"));
    CHECK_FALSE(metric_is_additive("device__attribute_multiprocessor_count"));

    kernel_table t;
    launch_record a, b;
    a.kernel_name = b.kernel_name = "k";
    a.set("gpu__time_duration.sum", 100);
    a.set("dram__bytes_read.sum", 10);
    a.set("sm__throughput.avg.pct_of_peak_sustained_elapsed", 10);
    b.set("gpu__time_duration.sum", 300);
    b.set("dram__bytes_read.sum", 30);
    b.set("sm__throughput.avg.pct_of_peak_sustained_elapsed", 50);
    t.add(std::move(a));
    t.add(std::move(b));
    auto g = t.finish();
    REQUIRE(g.size() == 1);
    CHECK(g[0].launches == 2);
    CHECK(g[0].metrics["gpu__time_duration.sum"] == 400);
    CHECK(g[0].metrics["dram__bytes_read.sum"] == 40);
    CHECK(g[0].metrics["sm__throughput.avg.pct_of_peak_sustained_elapsed"] ==
          doctest::Approx(40));  // (10*100+50*300)/400
}

TEST_CASE("the eight tiny_add launches of the real capture fold into one kernel") {
    kernel_table t;
    for (auto& l : read_example("examples/h100/kernels_raw.csv")) t.add(std::move(l));
    auto g = t.finish();
    CHECK(g.size() == 8);
    std::size_t tiny = 0;
    for (const auto& k : g)
        if (k.name.find("tiny_add") != std::string::npos) tiny = k.launches;
    CHECK(tiny == 8);
}

TEST_CASE("a summary record counts its invocations") {
    kernel_table t;
    launch_record r;
    r.kernel_name = "k";
    r.invocations = 8;
    r.set("gpu__time_duration.sum", 2875);
    r.set("dram__bytes_read.sum", 100);
    t.add(std::move(r));
    auto g = t.finish();
    CHECK(g[0].launches == 8);
    CHECK(g[0].metrics["gpu__time_duration.sum"] == 23000);
    CHECK(g[0].metrics["dram__bytes_read.sum"] == 800);
}

TEST_CASE("a metric set twice in one launch counts once, with its last value") {
    launch_record r;
    r.kernel_name = "k";
    r.set("gpu__time_duration.sum", 100);
    r.set("dram__bytes_read.sum", 5);
    r.set("dram__bytes_read.sum", 7);
    kernel_table t;
    t.add(launch_record(r));
    t.add(std::move(r));
    auto g = t.finish();
    REQUIRE(g.size() == 1);
    CHECK(g[0].metrics["dram__bytes_read.sum"] == 14);
    CHECK(g[0].metrics["gpu__time_duration.sum"] == 200);
}

TEST_CASE("the kernel table keeps the metrics some stage reads, and only those") {
    launch_record r;
    r.kernel_name = "k";
    r.set("gpu__time_duration.sum", 100);  // in the catalogue
    r.set("sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum.peak_sustained",
          512);                                                              // a catalogued family
    r.set("smsp__sass_inst_executed_op_branch.sum.no_stage_reads_this", 7);  // neither
    kernel_table t;
    t.add(std::move(r));
    auto g = t.finish();
    REQUIRE(g.size() == 1);
    CHECK(g[0].metrics.count("gpu__time_duration.sum") == 1);
    CHECK(g[0].metrics.count("sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum.peak_sustained") == 1);
    CHECK(g[0].metrics.count("smsp__sass_inst_executed_op_branch.sum.no_stage_reads_this") == 0);
    CHECK(engine_reads("dram__bytes_read.sum"));
    CHECK_FALSE(engine_reads("dram__bytes_read.sum.no_such_rollup"));
}

TEST_CASE("metric_values finds by name like a map, and a name it lacks is absent, not zero") {
    metric_values v{{"dram__bytes_read.sum", 40.0}, {"gpu__time_duration.sum", 400.0}};
    CHECK(v.size() == 2);
    CHECK(v.find("dram__bytes_read.sum") == 40.0);
    CHECK_FALSE(v.find("dram__bytes_write.sum").has_value());
    CHECK_FALSE(v.find("never_interned__anywhere.sum").has_value());
    CHECK(v.count("gpu__time_duration.sum") == 1);
    CHECK_THROWS_AS((void)v.at("dram__bytes_write.sum"), std::out_of_range);
    v["dram__bytes_write.sum"] += 7;  // made 0, then added to, as std::map's operator[]
    CHECK(v.at("dram__bytes_write.sum") == 7.0);
    v.set(intern_metric("dram__bytes_read.sum"), 41.0);
    CHECK(v.at("dram__bytes_read.sum") == 41.0);
    CHECK(v.size() == 3);
    for (std::size_t i = 1; i < v.entries().size(); ++i) CHECK(v.entries()[i - 1].first < v.entries()[i].first);
}

TEST_CASE("launches of one kernel name with different grids or blocks are separate kernels, never averaged together") {
    kernel_table t;
    auto launch = [](long grid, long block, double ns) {
        launch_record r;
        r.kernel_name = "void gemm_kernel<128>(float *)";  // one cuBLAS-like name, several shapes
        r.grid_size = launch_dims{{grid, 1, 1}};
        r.block_size = launch_dims{{block, 1, 1}};
        r.set("gpu__time_duration.sum", ns);
        return r;
    };
    t.add(launch(64, 256, 100));
    t.add(launch(512, 256, 700));
    t.add(launch(64, 256, 110));
    t.add(launch(64, 128, 90));
    auto g = t.finish();
    REQUIRE(g.size() == 3);
    CHECK(g[0].grid_size->xyz[0] == 64);
    CHECK(g[0].launches == 2);
    CHECK(g[0].metrics.at("gpu__time_duration.sum") == 210);
    CHECK(g[1].grid_size->xyz[0] == 512);
    CHECK(g[1].metrics.at("gpu__time_duration.sum") == 700);
    CHECK(g[2].block_size->xyz[0] == 128);
}
