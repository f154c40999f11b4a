#include "analyzer/base/atomic_file.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/cli/commands.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

using namespace roofline;
using namespace roofline::test;

namespace {
struct result {
    int rc;
    std::string out, err;
};
result run_cli(std::vector<std::string> args, const cli::console& where = {}) {
    args.insert(args.begin(), "roofline");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::ostringstream out, err;
    int rc = cli::run(int(argv.size()), argv.data(), out, err, where);
    return {rc, out.str(), err.str()};
}
std::vector<std::string> kernel_names(const std::string& json) {
    std::vector<std::string> names;
    auto j = nlohmann::json::parse(json);  // kept alive for the loop
    for (const auto& k : j["kernels"]) names.push_back(k["name"]);
    return names;
}
}  // namespace

TEST_CASE("analyze -o writes the report and --format json writes JSON") {
    auto path = temp_path("cli-test.json").string();
    std::filesystem::remove(path);
    auto r = run_cli({"analyze", source_path("examples/h100/kernels_raw.csv"), "--format", "json", "-o", path});
    CHECK(r.rc == 0);
    auto j = nlohmann::json::parse(read_text(path));
    CHECK(j["kernels"].size() == 8);
}

TEST_CASE("--kernel-name takes a substring or regex:, like ncu") {
    auto csv = source_path("examples/h100/kernels_raw.csv");
    auto sub = kernel_names(run_cli({"analyze", csv, "--format", "json", "-k", "transpose"}).out);
    CHECK(sub.size() == 2);
    auto re = kernel_names(run_cli({"analyze", csv, "--format", "json", "-k", "regex:^void .*fma_chain<(float|double)>"}).out);
    CHECK(re.size() == 2);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "-k", "regex:(("}), doctest::Contains("not a valid regular expression"), input_error);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "-k", "no_such_kernel"}), doctest::Contains("none of the 15 launches passes the filters"),
                         input_error);
}

TEST_CASE("--launch-skip and --launch-count count matching launches in capture order") {
    auto csv = source_path("examples/h100/kernels_raw.csv");
    auto j = nlohmann::json::parse(
        run_cli({"analyze", csv, "--format", "json", "-k", "tiny_add", "--launch-skip", "2", "--launch-count", "3"}).out);
    REQUIRE(j["kernels"].size() == 1);
    CHECK(j["kernels"][0]["launches"] == 3);
    CHECK(j["input"]["launches_read"] == 15);
    CHECK(j["input"]["launches_analysed"] == 3);
}

TEST_CASE("--gpu overrides detection; a live run without a device name needs it") {
    auto live = source_path("examples/h100/live_metrics_stdout.txt");
    CHECK_THROWS_WITH_AS(run_cli({"analyze", live}), doctest::Contains("pass --gpu"), input_error);
    auto r = run_cli({"analyze", live, "--gpu", "h100-sxm", "--format", "json"});
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["gpu"]["id"] == "h100-sxm");
    CHECK(j["kernels"][0]["bound"] == "memory");
}

TEST_CASE("--gpu that contradicts the capture's device is an error unless --gpu-override") {
    auto csv = source_path("examples/h100/kernels_raw.csv");
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "--gpu", "rtx-5090"}),
                         doctest::Contains("--gpu rtx-5090 contradicts the capture, which ran on \"NVIDIA H100 80GB HBM3\""), input_error);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "--gpu", "h200"}), doctest::Contains("add --gpu-override"), input_error);
    auto r = run_cli({"analyze", csv, "--gpu", "h200", "--gpu-override", "--format", "json"});
    CHECK(r.rc == 0);
    CHECK(nlohmann::json::parse(r.out)["gpu"]["id"] == "h200");
    CHECK(nlohmann::json::parse(run_cli({"analyze", csv, "--gpu", "h100-sxm", "--format", "json"}).out)["gpu"]["id"] == "h100-sxm");
}

TEST_CASE("launches of two GPU models are never analysed as one; --device picks one") {
    auto csv = source_path("tests/corpus/fail_two_gpu_models.csv");
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv}),
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
    auto j =
        nlohmann::json::parse(run_cli({"analyze", source_path("tests/corpus/pass_unknown_gpu_from_capture.csv"), "--format", "json"}).out);
    CHECK(j["gpu"]["id"] == "from-capture");
    CHECK(j["gpu"]["name"] == "Mystery GPU");
    CHECK(j["kernels"][0]["share_of_roof"].is_number());  // placed under a roof
}

TEST_CASE("usage errors are errors, help is not") {
    CHECK(run_cli({"analyze", "--help"}).rc == 0);
    CHECK(run_cli({"nonsense"}).rc == 2);
    CHECK_THROWS_AS(run_cli({"analyze"}), input_error);
    CHECK_THROWS_AS(run_cli({"analyze", "x.csv", "--format", "pdf"}), input_error);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", "/no/such/file.csv"}), "/no/such/file.csv: cannot open the file", input_error);
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
    CHECK(view.out.find("tensor-underused (23.4x)") != std::string::npos);  // its estimate
    cli::console tty_no_colour{true, false, false};
    auto plain = run_cli({"analyze", csv}, tty_no_colour);
    CHECK(plain.out.find("\033[") == std::string::npos);
    CHECK(plain.out.find("Top opportunities") != std::string::npos);
    // Forced markdown on a terminal, and markdown when stdout is a pipe.
    CHECK(run_cli({"analyze", csv, "--format", "markdown"}, tty).out.rfind("# Roofline report", 0) == 0);
    CHECK(run_cli({"analyze", csv}).out.rfind("# Roofline report", 0) == 0);
    CHECK_THROWS_WITH_AS(run_cli({"analyze", csv, "--format", "html"}),
                         doctest::Contains("--format takes markdown, json, terminal, svg or auto"), input_error);
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
    CHECK_THROWS_AS(write_files_atomically(std::vector<std::pair<std::string, file_writer>>{
                        {report, [](std::ostream& out) { out << "new report"; }}, {chart, half_then_fail}}),
                    input_error);
    std::ifstream in(report);
    std::string kept((std::istreambuf_iterator<char>(in)), {});
    CHECK(kept == "old report");  // the earlier file is not replaced either
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
    CHECK(files == 1);  // no temporary file, no chart
    fs::remove_all(dir);
}
