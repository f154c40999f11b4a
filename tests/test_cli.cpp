#include "analyzer/base/atomic_file.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/cli/commands.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "models/gpu_spec.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

using namespace roofline;
using namespace roofline::test;

namespace {
std::vector<std::string> kernel_names(const std::string& json) {
    std::vector<std::string> names;
    auto j = nlohmann::json::parse(json);  // kept alive for the loop
    for (const auto& k : j["kernels"]) names.push_back(k["name"]);
    return names;
}
}  // namespace

TEST_CASE("--threads changes no byte of a report") {
    const auto csv =
        source_path("examples/h100/kernels_raw_instances.csv");  // 1.4 MB: the workers read 14 of its 15 launches
    const auto one = run_cli({"analyze", csv, "--format", "markdown", "--no-chart", "--threads", "1"});
    REQUIRE(one.rc == 0);
    CHECK(one.out.find("transpose") != std::string::npos);
    for (const char* n : {"2", "3", "64"}) {
        CAPTURE(n);
        const auto many = run_cli({"analyze", csv, "--format", "markdown", "--no-chart", "--threads", n});
        CHECK(many.rc == 0);
        CHECK(many.out == one.out);
    }
}

TEST_CASE("analyze -o writes the report and --format json writes JSON") {
    auto path = temp_path("cli-test.json").string();
    std::filesystem::remove(path);
    auto r = run_cli({"analyze", source_path("examples/h100/kernels_raw.csv"), "--format", "json", "-o", path});
    CHECK(r.rc == 0);
    auto j = nlohmann::json::parse(read_text(path));
    CHECK(j["kernels"].size() == 8);
}

TEST_CASE("--kernel-name takes an exact name or regex:, like ncu") {
    auto csv = source_path("examples/h100/kernels_raw.csv");
    // A plain name matches exactly, as ncu's: "transpose" is no kernel's function name.
    CHECK(kernel_names(run_cli({"analyze", csv, "--format", "json", "-k", "transpose_smem"}).out).size() == 1);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "-k", "transpose"}), doctest::Contains("passes the filters"),
                         input_error);
    auto sub = kernel_names(run_cli({"analyze", csv, "--format", "json", "-k", "regex:transpose"}).out);
    CHECK(sub.size() == 2);
    auto re = kernel_names(run_cli({"analyze", csv, "--format", "json", "--kernel-name-base", "demangled", "-k",
                                    "regex:^void .*fma_chain<(float|double)>"})
                               .out);
    CHECK(re.size() == 2);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "-k", "regex:(("}),
                         doctest::Contains("not a valid regular expression"), input_error);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "-k", "no_such_kernel"}),
                         doctest::Contains("none of the 15 launches passes the filters"), input_error);
}

TEST_CASE("--launch-skip and --launch-count count matching launches in capture order") {
    auto csv = source_path("examples/h100/kernels_raw.csv");
    auto j = nlohmann::json::parse(
        run_cli({"analyze", csv, "--format", "json", "-k", "tiny_add", "--launch-skip", "2", "--launch-count", "3"})
            .out);
    REQUIRE(j["kernels"].size() == 1);
    CHECK(j["kernels"][0]["launches"] == 3);
    CHECK(j["input"]["launches_read"] == 15);
    CHECK(j["input"]["launches_analysed"] == 3);
}

TEST_CASE(
    "--gpu overrides detection; a live run without a device name gets what it measured, and --gpu adds the roofs") {
    auto live = source_path("examples/h100/live_metrics_stdout.txt");
    // CC 9.0 fits five specs and the --metrics list holds no peak: no kernel is placed on a roof,
    // and none is given a bound it cannot know (copy_vec4 is 6% on ncu's SM percentage, which
    // alone would read as "latency").
    auto bare = run_cli({"analyze", live, "--format", "json"});
    CHECK(bare.rc == 0);
    auto b = nlohmann::json::parse(bare.out);
    CHECK(b["gpu"]["id"] == "unknown");
    CHECK(b["gpu"]["matched"].get<std::string>().find("pass --gpu") != std::string::npos);
    CHECK(b["gpu"]["matched"].get<std::string>().find("--gpu adds each kernel's roofline") != std::string::npos);
    for (const auto& k : b["kernels"]) CHECK(k["bound"] == "unknown");
    // The section still says what was measured: copy_vec4 moved 268,453,632 + 250,164,736 bytes
    // (the capture's dram__bytes_read.sum and _write.sum) in 184,128 ns: 519 MB at 2.82 TB/s.
    auto md = run_cli({"analyze", live, "--format", "markdown"}).out;
    CHECK(md.find("- Measured: 184 us (88.9% of the workload), 519 MB of DRAM traffic (2.82 TB/s), sm 6.1% busy") !=
          std::string::npos);
    auto r = run_cli({"analyze", live, "--gpu", "h100-sxm", "--format", "json"});
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["gpu"]["id"] == "h100-sxm");
    CHECK(j["kernels"][0]["bound"] == "memory");
}

TEST_CASE("--gpu that contradicts the capture's device is an error unless --gpu-override") {
    auto csv = source_path("examples/h100/kernels_raw.csv");
    CHECK_THROWS_WITH_AS(
        run_cli({"analyze", csv, "--gpu", "rtx-5090"}),
        doctest::Contains("--gpu rtx-5090 contradicts the capture, which ran on \"NVIDIA H100 80GB HBM3\""),
        input_error);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "--gpu", "h200"}), doctest::Contains("add --gpu-override"),
                         input_error);
    auto r = run_cli({"analyze", csv, "--gpu", "h200", "--gpu-override", "--format", "json"});
    CHECK(r.rc == 0);
    CHECK(nlohmann::json::parse(r.out)["gpu"]["id"] == "h200");
    CHECK(nlohmann::json::parse(run_cli({"analyze", csv, "--gpu", "h100-sxm", "--format", "json"}).out)["gpu"]["id"] ==
          "h100-sxm");
}

TEST_CASE("launches of two GPU models are never analysed as one; --device picks one") {
    auto csv = source_path("tests/corpus/fail_two_gpu_models.csv");
    CHECK_THROWS_WITH_AS(
        run_cli({"analyze", csv}),
        doctest::Contains("more than one GPU model (device 0 \"NVIDIA H100 80GB HBM3\" (CC 9.0, 1 launch), device 1 "
                          "\"NVIDIA H200\" (CC 9.0, 1 launch)); kernels of different GPUs are never analysed as one: "
                          "pass --device"),
        input_error);
    for (const auto& [device, gpu] : {std::pair{"0", "h100-sxm"}, std::pair{"1", "h200"}}) {
        auto j = nlohmann::json::parse(run_cli({"analyze", csv, "--device", device, "--format", "json"}).out);
        CHECK(j["gpu"]["id"] == gpu);
        CHECK(j["input"]["launches_analysed"] == 1);
    }
}

TEST_CASE("a GPU no spec file describes is placed by the capture's own peaks") {
    auto j = nlohmann::json::parse(
        run_cli({"analyze", source_path("tests/corpus/pass_unknown_gpu_from_capture.csv"), "--format", "json"}).out);
    CHECK(j["gpu"]["id"] == "from-capture");
    CHECK(j["gpu"]["name"] == "Mystery GPU");
    CHECK(j["kernels"][0]["share_of_roof"].is_number());  // placed under a roof
}

TEST_CASE("usage errors are errors, help is not") {
    CHECK(run_cli({"analyze", "--help"}).rc == 0);
    CHECK(run_cli({"nonsense"}).rc == 2);
    CHECK_THROWS_AS(run_cli({"analyze"}), input_error);
    CHECK_THROWS_AS(run_cli({"analyze", "x.csv", "--format", "pdf"}), input_error);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", "/no/such/file.csv"}), "/no/such/file.csv: cannot open the file",
                         input_error);
}

TEST_CASE("on a terminal, analyze prints the compact view; --format markdown and -o still give markdown") {
    auto csv = source_path("examples/h100/pairs_raw.csv");
    cli::console tty{true, true, true};
    auto view = run_cli({"analyze", csv}, tty);
    CHECK(view.rc == 0);
    CHECK(view.out.find("# Roofline report") == std::string::npos);
    CHECK(view.out.find("Top opportunities") != std::string::npos);
    CHECK(view.out.find("\033[") != std::string::npos);  // coloured
    // The first row is the longest kernel, with its verdict and its first finding.
    CHECK(view.out.find("  1  wmma_global ") != std::string::npos);
    CHECK(view.out.find("tensor-underused (24.0x)") != std::string::npos);  // its estimate
    cli::console tty_no_colour{true, false, false};
    auto plain = run_cli({"analyze", csv}, tty_no_colour);
    CHECK(plain.out.find("\033[") == std::string::npos);
    CHECK(plain.out.find("Top opportunities") != std::string::npos);
    // Forced markdown on a terminal, and markdown when stdout is a pipe.
    CHECK(run_cli({"analyze", csv, "--format", "markdown"}, tty).out.rfind("# Roofline report", 0) == 0);
    CHECK(run_cli({"analyze", csv}).out.rfind("# Roofline report", 0) == 0);
    CHECK_THROWS_WITH_AS(
        run_cli({"analyze", csv, "--format", "htm"}),
        doctest::Contains(
            "--format takes markdown, json, terminal, html, svg or auto, not \"htm\"; did you mean \"html\"?"),
        input_error);
}

TEST_CASE("long inputs show progress on stderr, only when stderr is a terminal") {
    // 2,500 launches: the H100 raw export's header rows and one launch row, repeated.
    std::istringstream in(read_text(source_path("examples/h100/kernels_raw.csv")));
    std::string names, units, row, text;
    std::getline(in, names);
    std::getline(in, units);
    std::getline(in, row);
    text = names + "\n" + units + "\n";
    for (int i = 0; i < 2500; ++i) text += row + "\n";
    auto path = temp_path("progress-test.csv").string();
    std::ofstream(path) << text;
    auto watched = run_cli({"analyze", path, "--format", "json"}, cli::console{false, true, false});
    CHECK(watched.rc == 0);
    CHECK(watched.err.find("\rroofline: read 1000 launches") != std::string::npos);
    CHECK(watched.err.find("\rroofline: read 2000 launches") != std::string::npos);
    CHECK(watched.err.find("\r\033[K") != std::string::npos);  // the line is cleared at the end
    auto piped = run_cli({"analyze", path, "--format", "json"});
    CHECK(piped.err.find('\r') == std::string::npos);
    CHECK(nlohmann::json::parse(piped.out)["input"]["launches_read"] == 2500);
}

TEST_CASE("--format terminal -o writes the table without colour codes, whatever stdout is") {
    auto path = temp_path("terminal.txt").string();
    auto r = run_cli({"analyze", source_path("examples/h100/pairs_raw.csv"), "--format", "terminal", "-o", path},
                     cli::console{true, true, true});
    CHECK(r.rc == 0);
    const std::string text = read_text(path);
    CHECK(text.find("Top opportunities") != std::string::npos);
    CHECK(text.find('\033') == std::string::npos);
}

TEST_CASE("a report written as it is made leaves nothing behind when its writer fails half way") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("roofline_atomic_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string report = (dir / "r.md").string(), chart = (dir / "r.svg").string();
    { std::ofstream(report) << "old report"; }
    auto half_then_fail = [](std::ostream& out) {
        out << "half a report";
        throw input_error(error_code::io, "r.svg", 0, 0, "failed while writing");
    };
    CHECK_THROWS_AS(write_files_atomically(
                        std::vector<std::pair<std::string, file_writer>>{
                            {report, [](std::ostream& out) { out << "new report"; }}, {chart, half_then_fail}},
                        write_policy{true, {}}),
                    input_error);
    std::ifstream in(report);
    std::string kept((std::istreambuf_iterator<char>(in)), {});
    CHECK(kept == "old report");  // the earlier file is not replaced either
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
    CHECK(files == 1);  // no temporary file, no chart
    fs::remove_all(dir);
}

TEST_CASE("-k matches the function name by default, like ncu's --kernel-name-base function") {
    CHECK(function_name("void unnamed>::fma_chain<__half2>(const T1 *, T1 *, T1, T1, int)") == "fma_chain");
    CHECK(function_name("unnamed>::transpose_naive(const float *, float *, int)") == "transpose_naive");
    CHECK(function_name("void cutlass::Kernel2<cutlass::gemm::Gemm<float>>(T1::Params)") == "Kernel2");
    CHECK(function_name("_Z9copy_vec4PK6float4PS_m") == "copy_vec4");  // demangled first
    CHECK(function_name("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT") == "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT");
    // Anonymous namespaces as ncu writes them in PyTorch's softmax (examples/h100/torch_ops_raw.csv)
    // and as nsys writes them ("(anonymous namespace)", not a parameter list): the name is the
    // function's, not a template argument's and not the namespace before it.
    const std::string ncu_softmax =
        "void at::<unnamed>::cunn_SoftMaxForwardReg<float, float, float, at::<unnamed>::SoftMaxForwardEpilogue, long, "
        "8>(T3 *, const T1 *, T5)";
    CHECK(function_name(ncu_softmax) == "cunn_SoftMaxForwardReg");
    CHECK(plain_name(ncu_softmax) ==
          "cunn_SoftMaxForwardReg<float, float, float, at::<unnamed>::SoftMaxForwardEpilogue, long, 8>");
    const std::string nsys_softmax =
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float, c10::BFloat16, "
        "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(T4 *, const T2 *, int)";
    CHECK(function_name(nsys_softmax) == "cunn_SoftMaxForward");
    CHECK(short_name(nsys_softmax).rfind("at::native::(anonymous namespace)::cunn_SoftMaxForward<8,", 0) == 0);
    auto csv = source_path("examples/h100/kernels_raw.csv");
    // ncu users anchor on the function name: the full signature starts "unnamed>::" or "void ".
    CHECK(kernel_names(run_cli({"analyze", csv, "--format", "json", "-k", "regex:^transpose"}).out).size() == 2);
    CHECK(kernel_names(run_cli({"analyze", csv, "--format", "json", "-k", "regex:^fma_chain$"}).out).size() == 3);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "-k", "regex:^void"}), doctest::Contains("passes the filters"),
                         input_error);
    // The signature, on request: template arguments and parameters.
    CHECK(kernel_names(
              run_cli({"analyze", csv, "--format", "json", "--kernel-name-base", "demangled", "-k", "regex:<double>"})
                  .out)
              .size() == 1);
    CHECK_THROWS_WITH_AS(
        run_cli({"analyze", csv, "--kernel-name-base", "demangle", "-k", "x"}),
        doctest::Contains(
            "--kernel-name-base takes function, demangled or mangled, not \"demangle\"; did you mean \"demangled\"?"),
        input_error);
    // This export holds demangled names only: mangled says so, with the export that has them.
    CHECK_THROWS_WITH_AS(
        run_cli({"analyze", csv, "--kernel-name-base", "mangled", "-k", "_Z"}),
        doctest::Contains("kernels_raw.csv:3: --kernel-name-base mangled: this export holds demangled names only"),
        input_error);
    // An export made with --print-kernel-base mangled: both bases work on it.
    std::string text = read_text(source_path("tests/corpus/pass_trimmed_raw.csv"));
    const std::string from = "unnamed>::copy_vec4(const float4 *, float4 *, unsigned long)";
    text.replace(text.find(from), from.size(), "_Z9copy_vec4PK6float4PS_m");
    const std::string other = "unnamed>::transpose_naive(const float *, float *, int)";
    text.replace(text.find(other), other.size(), "_Z15transpose_naivePKfPfi");
    const auto path = temp_path("mangled.csv").string();
    std::ofstream(path) << text;
    CHECK(
        kernel_names(
            run_cli({"analyze", path, "--format", "json", "--kernel-name-base", "mangled", "-k", "regex:^_Z9copy"}).out)
            .size() == 1);
    CHECK(kernel_names(run_cli({"analyze", path, "--format", "json", "-k", "regex:^copy_vec4$"}).out).size() == 1);
    std::filesystem::remove(path);
}

TEST_CASE("--format follows -o's extension; an explicit --format that contradicts it is an error") {
    namespace fs = std::filesystem;
    const auto csv = source_path("examples/h100/kernels_raw.csv");
    const fs::path dir = temp_path("formats");
    fs::create_directories(dir);
    CHECK(run_cli({"analyze", csv, "-o", (dir / "r.json").string()}).rc == 0);
    CHECK(nlohmann::json::parse(read_text((dir / "r.json").string()))["kernels"].size() == 8);
    CHECK(run_cli({"analyze", csv, "-o", (dir / "r.md").string()}).rc == 0);
    CHECK(read_text((dir / "r.md").string()).rfind("# Roofline report", 0) == 0);
    CHECK(fs::exists(dir / "r.svg"));  // the chart beside the markdown
    CHECK(run_cli({"analyze", csv, "-o", (dir / "chart.svg").string()}).rc == 0);
    CHECK(read_text((dir / "chart.svg").string()).find("<svg") != std::string::npos);
    CHECK(run_cli({"analyze", csv, "-o", (dir / "view.txt").string()}).rc == 0);
    CHECK(read_text((dir / "view.txt").string()).find("Top opportunities") != std::string::npos);
    // One page: the chart inside it, no file beside it.
    CHECK(run_cli({"analyze", csv, "-o", (dir / "page.html").string()}).rc == 0);
    const std::string page = read_text((dir / "page.html").string());
    CHECK(page.rfind("<!doctype html>", 0) == 0);
    CHECK(page.find("<svg ") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "page.svg"));
    CHECK_FALSE(fs::exists(dir / "page.html.svg"));
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "-o", (dir / "r.html").string(), "--format", "markdown"}),
                         doctest::Contains("drop --format or give the file a .md extension"), input_error);
    // No known extension: markdown, as before; an explicit --format that agrees is fine.
    CHECK(run_cli({"analyze", csv, "-o", (dir / "report").string(), "--no-chart"}).rc == 0);
    CHECK(read_text((dir / "report").string()).rfind("# Roofline report", 0) == 0);
    CHECK(run_cli({"analyze", csv, "-o", (dir / "agree.json").string(), "--format", "json"}).rc == 0);
    CHECK(run_cli({"analyze", csv, "-o", (dir / "data.out").string(), "--format", "json"}).rc == 0);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "-o", (dir / "x.json").string(), "--format", "markdown"}),
                         doctest::Contains("x.json asks for json by its extension, but --format is markdown"),
                         input_error);
    CHECK_FALSE(fs::exists(dir / "x.json"));
    fs::remove_all(dir);
}

TEST_CASE("bad numbers are usage errors that name the option") {
    const auto csv = source_path("examples/h100/kernels_raw.csv");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--launch-count", "-1"}, "--launch-count takes a whole number of 1 or more, not \"-1\""},
        {{"--launch-count", "0"}, "--launch-count takes a whole number of 1 or more, not \"0\""},
        {{"--launch-skip", "abc"}, "--launch-skip takes a whole number of 0 or more, not \"abc\""},
        {{"--launch-skip", "-2"}, "--launch-skip takes a whole number of 0 or more, not \"-2\""},
        {{"--launch-skip", "3x"}, "--launch-skip takes a whole number of 0 or more, not \"3x\""},
        {{"--top", "0"}, "--top takes a whole number of 1 or more, not \"0\""},
        {{"--top", "1.5"}, "--top takes a whole number of 1 or more, not \"1.5\""},
        {{"--launch-count", "99999999999999999999999"}, "--launch-count takes a whole number"},
        {{"--threads", "0"}, "--threads takes a whole number of 1 or more, not \"0\""},
        {{"--threads", "65"}, "--threads takes at most 64, not 65"},
    };
    for (const auto& [extra, message] : cases) {
        std::vector<std::string> args = {"analyze", csv, "--format", "json"};
        args.insert(args.end(), extra.begin(), extra.end());
        CAPTURE(message);
        try {
            run_cli(args);
            FAIL("accepted");
        } catch (const input_error& e) {
            CHECK(e.code() == error_code::usage);
            CHECK(std::string(e.what()).find(message) != std::string::npos);
        }
    }
}

TEST_CASE("output errors name the real cause and leave no file behind") {
    namespace fs = std::filesystem;
    const auto csv = source_path("examples/h100/kernels_raw.csv");
    const fs::path dir = temp_path("out-errors");
    fs::create_directories(dir);
    // A folder as -o: "is a folder", never "Success", and no DIR.svg beside it.
    try {
        run_cli({"analyze", csv, "-o", dir.string()});
        FAIL("accepted");
    } catch (const input_error& e) {
        CHECK(std::string(e.what()).find("is a folder") != std::string::npos);
        CHECK(std::string(e.what()).find("Success") == std::string::npos);
    }
    CHECK_FALSE(fs::exists(dir.string() + ".svg"));
    // A folder that does not exist is made (the user named it); one that cannot be, because a file
    // stands where a folder must go, is an error that leaves nothing behind.
    CHECK(run_cli({"analyze", csv, "-o", (dir / "no" / "such" / "r.md").string()}).rc == 0);
    CHECK(fs::is_regular_file(dir / "no" / "such" / "r.md"));
    { std::ofstream(dir / "plain") << "a file"; }
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "-o", (dir / "plain" / "sub" / "r.md").string()}),
                         doctest::Contains("cannot create the folder"), input_error);
    CHECK(read_text((dir / "plain").string()) == "a file");
    // A folder the user may not write into (root may write anywhere but /sys, which stands in).
    fs::path locked = dir / "locked";
    fs::create_directories(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    const bool root = ::geteuid() == 0;
    const fs::path target = root ? fs::path("/sys/roofline-report.md") : locked / "r.md";
    try {
        run_cli({"analyze", csv, "-o", target.string()});
        FAIL("accepted");
    } catch (const input_error& e) {
        CAPTURE(e.what());
        CHECK(std::string(e.what()).find(target.string() + ": cannot create the output file: ") == 0);
        CHECK(std::string(e.what()).find("permission denied in the folder") != std::string::npos);
        CHECK(std::string(e.what()).find("Success") == std::string::npos);
    }
    CHECK(fs::is_empty(locked));
    fs::permissions(locked, fs::perms::owner_all);
    fs::remove_all(dir);
}

TEST_CASE("did you mean: explain names and rule trees") {
    CHECK_THROWS_WITH_AS(run_cli({"explain", "uncoalesced-globel"}),
                         doctest::Contains("did you mean \"uncoalesced-global\"?"), input_error);
    CHECK_THROWS_WITH_AS(run_cli({"rules", "--tree", "memory-acess"}),
                         doctest::Contains("did you mean \"memory-access\"?"), input_error);
    CHECK_THROWS_WITH_AS(run_cli({"explain", "zzzzzzzzzzzz"}),
                         doctest::Contains("nothing is known as \"zzzzzzzzzzzz\": try"), input_error);
}

TEST_CASE("did you mean: command names and GPU ids") {
    auto r = run_cli({"analyse", "x.csv"});
    CHECK(r.rc == 2);
    CHECK(r.err.find("unknown command \"analyse\"; did you mean \"analyze\"?") != std::string::npos);
    CHECK(run_cli({"explian"}).err.find("did you mean \"explain\"?") != std::string::npos);
    CHECK(run_cli({"zzzzzzzz"}).err.find("did you mean") == std::string::npos);  // nothing close: no guess
    const auto csv = source_path("examples/h100/kernels_raw.csv");
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "--gpu", "h100sxm"}), doctest::Contains("did you mean \"h100-sxm\"?"),
                         input_error);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "--gpu", "h20"}), doctest::Contains("did you mean \"h200\"?"),
                         input_error);
    try {
        run_cli({"analyze", csv, "--gpu", "rtx-9999-ti-super"});
        FAIL("accepted");
    } catch (const input_error& e) {
        CHECK(e.code() == error_code::unknown_gpu);
        CHECK(std::string(e.what()).find("names no known GPU") != std::string::npos);
    }
}

TEST_CASE("an .ncu-rep or any binary input names the command that exports it") {
    auto refused = [](const std::string& path) -> std::string {
        try {
            run_cli({"analyze", path});
        } catch (const input_error& e) {
            CHECK(e.code() == error_code::unknown_format);
            return e.what();
        }
        return "accepted";
    };
    // The first 512 bytes of a real report (ncu 2025.3.1 on an H100), by name and renamed.
    const auto real = source_path("tests/data/ncu_report_head.ncu-rep");
    // No ncu on PATH here (a test with a stub ncu is in test_ncu_report.cpp).
    CHECK(refused(real) == real +
                               ": an Nsight Compute report (.ncu-rep), not a CSV export, and ncu is not on PATH to "
                               "export it; export it with: ncu -i " +
                               real + " --csv --page raw > " + real.substr(0, real.size() - 8) + ".csv");
    const auto renamed = temp_path("renamed.csv").string();
    std::filesystem::copy_file(real, renamed, std::filesystem::copy_options::overwrite_existing);
    CHECK(refused(renamed).find("an Nsight Compute report (.ncu-rep), not a CSV export, and ncu is not on PATH to "
                                "export it; export it with: ncu -i " +
                                renamed + " --csv --page raw > report.csv") != std::string::npos);
    std::filesystem::remove(renamed);
    // Any other bytes that are not text.
    const auto bin = temp_path("capture.bin").string();
    std::ofstream(bin, std::ios::binary) << std::string("\x7f\0\0\x01", 4);
    CHECK(refused(bin).find(
              "binary, not text (an Nsight Compute .ncu-rep report?), not a CSV export; export it with: ncu -i "
              "REPORT.ncu-rep --csv --page raw > report.csv") != std::string::npos);
    std::filesystem::remove(bin);
}

TEST_CASE("a details-page export's missing metrics point at the raw page of the same report") {
    const auto md = run_cli({"analyze", source_path("examples/h100/kernels_details.csv"), "--format", "markdown"}).out;
    CHECK(md.find("the raw page of the same report holds every metric it collected (`ncu -i REPORT.ncu-rep --csv "
                  "--page raw > "
                  "report.csv`)") != std::string::npos);
    const auto raw = run_cli({"analyze", source_path("examples/h100/kernels_raw.csv"), "--format", "markdown"}).out;
    CHECK(raw.find("raw page of the same report") == std::string::npos);
}

TEST_CASE("the terminal view fits the width it is given, never cuts a verdict, and shows --top kernels") {
    const auto csv = source_path("examples/h200/pairs_raw.csv");  // every bound, tensor_fp16 among the limiters
    for (std::size_t width : {80u, 100u, 132u}) {
        cli::console tty{true, true, false, width};
        const auto view = run_cli({"analyze", csv, "--top", "40"}, tty);
        REQUIRE(view.rc == 0);
        std::istringstream lines(view.out);
        std::string line;
        CAPTURE(width);
        while (std::getline(lines, line)) {
            if (line.find(csv) != std::string::npos) continue;  // the path, as given, on a line of its own
            CAPTURE(line);
            CHECK(line.size() <= width);
            CHECK(line.find("tensor_~") == std::string::npos);
        }
        CHECK(view.out.find("compute / tensor_fp16") != std::string::npos);
        CHECK(view.out.find("compute / pipe_fma") != std::string::npos);
        CHECK(view.out.find("more kernels") == std::string::npos);  // all 35 shown
    }
    const auto top = run_cli({"analyze", csv, "--top", "2"}, cli::console{true, true, false, 80});
    const std::string table = top.out.substr(0, top.out.find("Top opportunities"));
    CHECK(table.find("\n  2  ") != std::string::npos);
    CHECK(table.find("\n  3  ") == std::string::npos);
    CHECK(top.out.find("more kernels") != std::string::npos);
}

TEST_CASE("the console: no colour for NO_COLOR or TERM=dumb, the width from COLUMNS or the tty") {
    CHECK(cli::make_console(true, true, 120, "xterm-256color", nullptr, nullptr).colour);
    CHECK_FALSE(cli::make_console(true, true, 120, "dumb", nullptr, nullptr).colour);
    CHECK_FALSE(cli::make_console(true, true, 120, "xterm", "1", nullptr).colour);
    CHECK_FALSE(cli::make_console(false, true, 0, "xterm", nullptr, nullptr).colour);  // a pipe
    CHECK(cli::make_console(true, true, 120, "xterm", nullptr, nullptr).width == 120);
    CHECK(cli::make_console(true, true, 120, "xterm", nullptr, "80").width == 80);
    CHECK(cli::make_console(false, false, 0, nullptr, nullptr, "90").width == 90);
    CHECK(cli::make_console(true, true, 120, "xterm", nullptr, "wide").width == 120);
    CHECK(cli::make_console(false, false, 0, nullptr, nullptr, nullptr).width ==
          100);  // a pipe: 100 columns (issue 35, item 11)
}

TEST_CASE("--version is in the help; every help page has an example and the exit codes") {
    const auto top = run_cli({"--help"});
    CHECK(top.out.find("--version") != std::string::npos);
    CHECK(top.out.find("exit codes:") != std::string::npos);
    CHECK(top.out.find("examples:") != std::string::npos);
    CHECK(run_cli({"--version"}).out.rfind("roofline ", 0) == 0);
    for (const char* command : {"analyze", "gpus", "pairs", "lessons", "calibrate", "project", "rules", "explain"}) {
        CAPTURE(command);
        const auto help = run_cli({command, "--help"});
        CHECK(help.rc == 0);
        CHECK(help.out.find("example:\n  roofline " + std::string(command)) != std::string::npos);
        CHECK(help.out.find("exit codes:") != std::string::npos);
        CHECK(help.out.find("  2  bad input") != std::string::npos);
    }
}

TEST_CASE("every JSON output writes a kernel name that is not UTF-8 the same way: replaced, never an internal error") {
    // A name with a byte that is no UTF-8 (0xFF): analyze handled it; diff, project and triage ended in
    // "internal error" (exit 3) before they shared one JSON writer (json_text in render/json_number.hpp).
    std::string capture = read_text(source_path("examples/h100/diff/before.csv"));
    const auto at = capture.find("fill(float *");
    REQUIRE(at != std::string::npos);
    capture[at] = char(0xFF);
    const auto csv = temp_path("latin1.csv");
    std::ofstream(csv, std::ios::binary) << capture;
    std::string summary = read_text(source_path("tests/data/nsys/old_gpukernsum.csv"));
    summary[summary.find("sgemm_128x64_nn")] = char(0xFF);
    const auto nsys = temp_path("latin1_kern_sum.csv");
    std::ofstream(nsys, std::ios::binary) << summary;
    // A trace's names come as bytes from an SQLite export or an nsys stats CSV (a JSON trace that is not
    // UTF-8 is refused by the parser, with its line and column).
    std::string trace = read_text(source_path("tests/data/timeline/planted_gpu_trace.csv"));
    trace[trace.find("gemm_kernel<128>")] = char(0xFF);
    const auto kineto = temp_path("latin1_gpu_trace.csv");
    std::ofstream(kineto, std::ios::binary) << trace;
    const std::vector<std::vector<std::string>> runs = {{"analyze", csv.string(), "--format", "json"},
                                                        {"diff", csv.string(), csv.string(), "--format", "json"},
                                                        {"project", csv.string(), "--to", "h200", "--format", "json"},
                                                        {"triage", nsys.string(), "--format", "json"},
                                                        {"timeline", kineto.string(), "--format", "json"},
                                                        {"diff", kineto.string(), kineto.string(), "--format", "json"}};
    for (const auto& args : runs) {
        CAPTURE(args[0]);
        const auto r = run_cli(args);
        CHECK(r.rc == 0);
        CHECK(nlohmann::json::parse(r.out).is_object());         // valid JSON
        CHECK(r.out.find("\xEF\xBF\xBD") != std::string::npos);  // U+FFFD where the byte was
    }
    std::filesystem::remove(csv);
    std::filesystem::remove(nsys);
    std::filesystem::remove(kineto);
}

TEST_CASE(
    "-o keeps an existing file unless -f, never writes over an input, creates the folders it names, keeps the mode") {
    namespace fs = std::filesystem;
    const fs::path dir = temp_path("outputs");
    fs::create_directories(dir);
    const std::string csv = source_path("examples/h100/diff/before.csv");
    const std::string report = (dir / "r.json").string();
    { std::ofstream(report) << "keep me"; }
    // An existing file without -f: nothing changes, and the message names the flag; before any work.
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "-o", report}), doctest::Contains("pass -f (--force)"), input_error);
    CHECK(read_text(report) == "keep me");
    for (const std::vector<std::string> cmd :
         {std::vector<std::string>{"diff", csv, csv},
          {"project", csv, "--to", "h200"},
          {"predict", "gemm", "M=64", "N=64", "K=64", "dtype=fp16", "--gpu", "h100-sxm"},
          {"metrics"},
          {"triage", source_path("tests/data/nsys/old_gpukernsum.csv")}}) {
        CAPTURE(cmd[0]);
        auto args = cmd;
        args.insert(args.end(), {"-o", report});
        CHECK_THROWS_WITH_AS(run_cli(args), doctest::Contains("-f (--force)"), input_error);
        CHECK(read_text(report) == "keep me");
    }
    // With -f it is replaced, and keeps the mode it had.
    fs::permissions(report, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    CHECK(run_cli({"analyze", csv, "-o", report, "-f"}).rc == 0);
    CHECK(read_text(report).find("\"kernels\"") != std::string::npos);
    CHECK(fs::status(report).permissions() == (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
    // The input itself, -f or not: refused, and the capture is untouched.
    const fs::path copy = dir / "capture.csv";
    fs::copy_file(csv, copy);
    const std::string before = read_text(copy.string());
    CHECK_THROWS_WITH_AS(run_cli({"analyze", copy.string(), "-o", copy.string(), "-f", "--format", "json"}),
                         doctest::Contains("is an input of this command"), input_error);
    CHECK_THROWS_WITH_AS(run_cli({"diff", copy.string(), csv, "-o", copy.string(), "-f", "--format", "json"}),
                         doctest::Contains("is an input of this command"), input_error);
    CHECK(read_text(copy.string()) == before);
    // Folders the user names in -o are made (the README's calibrate and metrics examples need it).
    const std::string nested = (dir / "a" / "b" / "plan.section").string();
    CHECK(run_cli({"metrics", "--format", "section", "-o", nested}).rc == 0);
    CHECK(fs::is_regular_file(nested));
    // A link planted where the temporary file used to go (r.md.tmp-PID) is not written through: the
    // temporary file's name is random and created exclusively.
    const fs::path victim = dir / "victim.txt";
    { std::ofstream(victim) << "victim"; }
    const std::string md = (dir / "r.md").string();
    fs::create_symlink(victim, md + ".tmp-" + std::to_string(::getpid()));
    CHECK(run_cli({"analyze", csv, "-o", md, "--no-chart"}).rc == 0);
    CHECK(read_text(victim.string()) == "victim");
    // Nothing else is left beside the outputs: no temporary file.
    for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().string().find(".tmp-XXXXXX") == std::string::npos);
    std::size_t temporaries = 0;
    for (const auto& e : fs::directory_iterator(dir))
        if (!fs::is_symlink(e.path()) && e.path().filename().string().find(".tmp-") != std::string::npos) ++temporaries;
    CHECK(temporaries == 0);
    fs::remove_all(dir);
}

TEST_CASE("a misspelt option gets the nearest one of its command") {
    const std::string csv = source_path("examples/h100/diff/before.csv");
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "--formt", "json"}), doctest::Contains("did you mean \"--format\"?"),
                         input_error);
    CHECK_THROWS_WITH_AS(run_cli({"diff", csv, csv, "--noize", "5"}), doctest::Contains("did you mean \"--noise\"?"),
                         input_error);
}

TEST_CASE("analyze given a folder, or an Nsight Systems summary, says what to run instead") {
    CHECK_THROWS_WITH_AS(
        run_cli({"analyze", source_path("examples/wild")}),
        doctest::Contains("is a folder; roofline analyze reads one CSV export (this one holds 6: lib_a_raw.csv"),
        input_error);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", source_path("examples/h100")}),
                         doctest::Contains("roofline pairs, lessons and calibrate"), input_error);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", source_path("tests/data/nsys/old_gpukernsum.csv")}),
                         doctest::Contains("is what roofline triage reads"), input_error);
}

TEST_CASE("-s and -c are --launch-skip and --launch-count, as ncu users type them") {
    const std::string csv = source_path("examples/h100/kernels_raw.csv");
    const auto long_form =
        run_cli({"analyze", csv, "--format", "json", "-k", "tiny_add", "--launch-skip", "2", "--launch-count", "3"})
            .out;
    const auto short_form = run_cli({"analyze", csv, "--format", "json", "-k", "tiny_add", "-s", "2", "-c", "3"}).out;
    CHECK(short_form == long_form);
    CHECK(short_form.find("\"launches\": 3") != std::string::npos);
}

TEST_CASE("the terminal view gives each distinct kernel a distinct name within 100 columns, and names every roof") {
    // Three cuBLAS kernels of one long name prefix, two of them one function on two grids (the bf16 layer).
    const cli::console tty{true, false, false, 100};
    const auto view = run_cli({"analyze", source_path("examples/h200/forms/layer_full_raw.csv")}, tty).out;
    std::set<std::string> labels;
    std::size_t rows = 0;
    std::istringstream in(view);
    bool table = true;  // the kernel table, until the opportunities
    for (std::string line; std::getline(in, line);) {
        CAPTURE(line);
        CHECK(line.size() <= 100);
        if (line.rfind("Top opportunities", 0) == 0) table = false;
        if (table && line.size() > 40 && line[2] >= '1' && line[2] <= '9' && line.substr(3, 2) == "  " &&
            line.find(" us ") != std::string::npos) {
            ++rows;
            labels.insert(line.substr(5, 34));
            // The roof column says whose roof: "76.9% tensor_bf16", "67.4% issue".
            CHECK(std::regex_search(line, std::regex("[0-9]% [a-z]")));
        }
    }
    CHECK(rows == 6);
    CHECK(labels.size() == 6);
}

TEST_CASE("gpus and rules print JSON for scripts, every figure with its source and every node as written") {
    const auto g = nlohmann::json::parse(run_cli({"gpus", "--format", "json"}).out);
    CHECK(g["schema"] == "roofline-gpus/1");
    CHECK(g["gpus"].size() == load_gpu_specs().size());
    for (const auto& s : g["gpus"])
        if (s["id"] == "b200") CHECK(s["peaks_tflops"]["fp16"]["estimated"] == true);
    const auto r = nlohmann::json::parse(run_cli({"rules", "--format", "json"}).out);
    CHECK(r["schema"] == "roofline-rules/1");
    std::size_t nodes = 0;
    std::function<void(const nlohmann::json&)> count = [&](const nlohmann::json& n) {
        ++nodes;
        CHECK(n.contains("when"));
        for (const auto& c : n["children"]) count(c);
    };
    for (const auto& t : r["trees"])
        for (const auto& n : t["roots"]) count(n);
    CHECK(nodes >= 20);
    CHECK_THROWS_WITH_AS(run_cli({"gpus", "--format", "jsno"}), doctest::Contains("did you mean \"json\"?"),
                         input_error);
}

TEST_CASE("every command decides its output format in one place: --format, else -o's extension, else the console") {
    namespace fs = std::filesystem;
    const fs::path dir = temp_path("formats");
    fs::create_directories(dir);
    const std::string csv = source_path("examples/h100/diff/before.csv"),
                      nsys = source_path("tests/data/nsys/old_gpukernsum.csv");
    const std::vector<std::vector<std::string>> commands = {
        {"analyze", csv},
        {"diff", csv, csv},
        {"project", csv, "--to", "h200"},
        {"predict", "gemm", "M=64", "N=64", "K=64", "dtype=fp16", "--gpu", "h100-sxm"},
        {"triage", nsys}};
    for (const auto& cmd : commands) {
        CAPTURE(cmd[0]);
        // -o x.json writes JSON without --format (triage ignored the extension before).
        const std::string out = (dir / (cmd[0] + ".json")).string();
        auto args = cmd;
        args.insert(args.end(), {"-o", out});
        CHECK(run_cli(args).rc == 0);
        CHECK(nlohmann::json::parse(read_text(out)).is_object());
        // A --format that contradicts the extension, and a misspelt one, get the same words everywhere.
        args.insert(args.end(), {"--format", "markdown", "-f"});
        CHECK_THROWS_WITH_AS(
            run_cli(args), doctest::Contains("asks for json by its extension, but --format is markdown"), input_error);
        auto bad = cmd;
        bad.insert(bad.end(), {"--format", "jsn"});
        CHECK_THROWS_WITH_AS(run_cli(bad), doctest::Contains("did you mean \"json\"?"), input_error);
    }
    fs::remove_all(dir);
}

TEST_CASE("first day: a GPU by its id in any case or by its name's words; ambiguity and near misses named") {
    const auto specs = load_gpu_specs();
    CHECK(resolve_gpu(specs, "H200", "--to") == "h200");
    CHECK(resolve_gpu(specs, "RTX 4090", "--to") == "rtx-4090");
    CHECK(resolve_gpu(specs, "a10g", "--gpu") == "a10g");
    auto why = [&](const std::string& text) {
        try {
            (void)resolve_gpu(specs, text, "--to");
        } catch (const input_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(why("H100").find("names 2 GPUs (h100-pcie, h100-sxm)") != std::string::npos);
    // The H20 is another GPU than the H200: no prefix or part of a word is taken for a name.
    CHECK(why("h20").find("names no known GPU; did you mean \"h200\"?") != std::string::npos);
}

TEST_CASE("first day: a duration needs its unit; analyze on a trace and a near command say what to run") {
    const std::string planted = source_path("tests/data/timeline/planted.json");
    CHECK_THROWS_WITH_AS(run_cli({"timeline", planted, "--step-time", "7.3"}),
                         doctest::Contains("--step-time needs its unit: 7.3ms"), input_error);
    CHECK(run_cli({"timeline", planted, "--min-gap", "0", "--format", "json"}).rc == 0);  // zero needs none
    CHECK_THROWS_WITH_AS(run_cli({"analyze", planted}), doctest::Contains("`roofline timeline"), input_error);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", source_path("tests/data/timeline/planted.sqlite")}),
                         doctest::Contains("a whole-run trace"), input_error);
    const auto near = run_cli({"analyse", "x.csv"});
    CHECK(near.rc == 2);
    CHECK(near.err ==
          "roofline: unknown command \"analyse\"; did you mean \"analyze\"?\n(roofline --help lists the "
          "commands)\n");
}

TEST_CASE("first day: -o x.txt says what it wrote; a name filter that matches nothing names the kernels") {
    const auto out = temp_path("view.txt").string();
    std::filesystem::remove(out);
    const auto r = run_cli({"analyze", source_path("examples/h100/kernels_raw.csv"), "-o", out});
    CHECK(r.rc == 0);
    CHECK(r.err.find("roofline: wrote " + out) != std::string::npos);
    std::filesystem::remove(out);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", source_path("examples/h100/kernels_raw.csv"), "-k", "tranpose_naive"}),
                         doctest::Contains("did you mean \"transpose_naive\"?"), input_error);
    // In a pipe, without COLUMNS, the terminal view keeps to 100 columns.
    CHECK(cli::make_console(false, false, 0, "xterm", nullptr, nullptr).width == 100);
}

TEST_CASE("first day: diff's help example with files that are not there says they are missing") {
    CHECK_THROWS_WITH_AS(run_cli({"diff", "no-such-before.csv", "no-such-after.csv"}),
                         doctest::Contains("no-such-before.csv: cannot open the file: no such file or folder"),
                         input_error);
}
