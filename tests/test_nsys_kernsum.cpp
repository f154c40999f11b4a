// The Nsight Systems kernel summary reader, on the hand-written inputs of tests/data/nsys (see its
// MANIFEST.md: the layouts of /work/shared/ncu/FORMATS.md, "Nsight Systems").
#include "analyzer/base/input_error.hpp"
#include "analyzer/read/nsys_kernsum.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <sstream>

using namespace roofline;
using namespace roofline::test;

namespace {
nsys_kernsum read_text_summary(const std::string& text) {
    std::istringstream in(text);
    return read_nsys_kernsum(in, "k.csv");
}
// The error's code and place, for checks that name both.
std::string located(const std::string& text) {
    try {
        read_text_summary(text);
    } catch (const input_error& e) {
        return std::string(error_code_name(e.code())) + " " + std::to_string(e.line()) + ":" +
               std::to_string(e.column());
    }
    return "no error";
}
}  // namespace

TEST_CASE("the current cuda_gpu_kern_sum layout: names with commas quoted, times in ns") {
    auto s = read_nsys_kernsum_file(source_path("tests/data/nsys/training_step_kern_sum.csv"));
    CHECK(s.layout == "cuda_gpu_kern_sum");
    CHECK(s.header_line == 1);
    REQUIRE(s.kernels.size() == 10);
    // Row 1: a FlashAttention name with commas inside angle brackets, read whole from its quotes.
    CHECK(s.kernels[0].name.rfind("void cutlass::device_kernel<flash::FlashAttnFwdSm90<", 0) == 0);
    CHECK(s.kernels[0].name.size() > 300);
    CHECK(s.kernels[0].name.substr(s.kernels[0].name.size() - 12) == "(T1::Params)");
    CHECK(s.kernels[0].total_ns == 412000000.0);
    CHECK(s.kernels[0].instances == 96.0);
    // Row 2: unquoted, as nsys writes a name without a comma.
    CHECK(s.kernels[1].name == "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn");
    CHECK(s.kernels[1].line == 3);
    double total = 0;
    for (const auto& k : s.kernels) total += k.total_ns;
    CHECK(total == 1e9);  // the file's rows were written to sum to exactly 1 s
}

TEST_CASE("a stream of several nsys stats reports: the kernel summary is found and the trace skipped") {
    auto s = read_nsys_kernsum_file(source_path("tests/data/nsys/training_step_stats_stdout.txt"));
    auto plain = read_nsys_kernsum_file(source_path("tests/data/nsys/training_step_kern_sum.csv"));
    CHECK(s.layout == "cuda_gpu_kern_sum");
    // Lines 1-6 are the trace report (its Processing line, header, four rows), 7 blank, 8 the summary's Processing
    // line.
    CHECK(s.header_line == 9);
    REQUIRE(s.kernels.size() == plain.kernels.size());
    for (std::size_t i = 0; i < s.kernels.size(); ++i) {
        CHECK(s.kernels[i].name == plain.kernels[i].name);
        CHECK(s.kernels[i].total_ns == plain.kernels[i].total_ns);
    }
}

TEST_CASE("the older gpukernsum layout, every field quoted") {
    auto s = read_nsys_kernsum_file(source_path("tests/data/nsys/old_gpukernsum.csv"));
    CHECK(s.layout == "gpukernsum");
    REQUIRE(s.kernels.size() == 3);
    CHECK(s.kernels[1].name == "void transpose_smem<1>(const float *, float *, int)");
    CHECK(s.kernels[1].total_ns == 2488000.0);
    CHECK(s.kernels[2].instances == 8.0);
}

TEST_CASE("the layout with GridXYZ and BlockXYZ: one kernel's launch shapes are merged") {
    auto s = read_nsys_kernsum_file(source_path("tests/data/nsys/grid_block_kern_sum.csv"));
    CHECK(s.layout == "cuda_gpu_kern_sum (with GridXYZ, BlockXYZ)");
    REQUIRE(s.kernels.size() == 2);
    CHECK(s.kernels[0].name == "void reduce_sum<256>(const float *, float *, int)");
    CHECK(s.kernels[0].total_ns == 3000000.0 + 1200000.0);  // rows 2 and 4
    CHECK(s.kernels[0].instances == 60.0);
    CHECK(s.kernels[0].rows == 2);
}

TEST_CASE("--timeunit's other units are converted to ns; a doubled quote is one quote") {
    auto s = read_text_summary(
        "Time (%),Total Time (us),Instances,Avg (us),Med (us),Min (us),Max (us),StdDev (us),Name\n"
        "100.0,12.5,5,2.5,2.5,2.4,2.6,0.1,\"k<\"\"a\"\", 2>(int)\"\n");
    REQUIRE(s.kernels.size() == 1);
    CHECK(s.kernels[0].total_ns == 12500.0);
    CHECK(s.kernels[0].name == "k<\"a\", 2>(int)");
    auto ms = read_text_summary(
        "Time (%),Total Time (ms),Instances,Avg (ms),Med (ms),Min (ms),Max (ms),StdDev "
        "(ms),Name\n100.0,2,1,2,2,2,2,0,k\n");
    CHECK(ms.kernels[0].total_ns == 2e6);
}

TEST_CASE("bad summaries name the file, line and column") {
    const std::string header =
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n";
    // A name with a comma left unquoted makes one field too many: the 10th starts at column 36.
    CHECK(located(header + "100.0,10,1,10.0,10.0,10,10,0.0,k<1, 2>(int)\n") == "column_count 2:36");
    CHECK(located(header + "100.0,10,1,10.0,10.0,10,10,0.0,\"k<1, 2>(int)\n") == "bad_quote 2:32");
    // "1O" (letter O) in Total Time: column 7.
    CHECK(located(header + "100.0,1O,1,10.0,10.0,10,10,0.0,k\n") == "bad_number 2:7");
    CHECK(located(header) == "header_only 1:1");
    CHECK(located("") == "empty_input 0:0");
    CHECK(located("Time (%),Total Time (min),Instances,Name\n") == "bad_unit 1:10");
    CHECK(located("Start (ns),Duration (ns),CorrId,Name\n1,2,3,k\n") == "unknown_format 1:1");
    CHECK(located(header + "100.0,10,1,10.0,10.0,10,10,0.0,k\n\n" + header + "100.0,10,1,10.0,10.0,10,10,0.0,k\n") ==
          "unknown_format 4:1");
    CHECK_THROWS_WITH_AS(read_nsys_kernsum_file(source_path("examples/h100/kernels_raw.csv")),
                         doctest::Contains("roofline analyze"), input_error);
}
