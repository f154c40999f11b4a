// Helpers shared by the tests: paths into the repository and small CSV builders.
#pragma once

#include "analyzer/cli/commands.hpp"
#include "analyzer/diagnose/metric_plan.hpp"
#include "analyzer/pipeline/analysis.hpp"
#include "analyzer/read/ncu_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace roofline::test {

// A command run in-process, as main() runs it: its exit code and both streams.
struct cli_result {
    int rc;
    std::string out, err;
};
inline cli_result run_cli(std::vector<std::string> args, const cli::console& where = {}) {
    args.insert(args.begin(), "roofline");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::ostringstream out, err;
    int rc = cli::run(int(argv.size()), argv.data(), out, err, where);
    return {rc, out.str(), err.str()};
}

// The metric plan of the built-in rule trees, made once per test process (it runs the model and
// every rule node).
inline const diagnose::metric_plan& gh100_plan() {
    static const diagnose::metric_plan p = diagnose::make_metric_plan_for("h100-sxm");
    return p;
}

inline std::string source_path(const std::string& rel) { return std::string(ROOFLINE_SOURCE_DIR) + "/" + rel; }

// Runs the rest of a scope in `folder` and goes back at its end, also when a REQUIRE or an exception
// leaves it (tests whose outputs name inputs relative to the source tree, as the committed files do).
class working_folder {
public:
    explicit working_folder(const std::filesystem::path& folder) : before_(std::filesystem::current_path()) {
        std::filesystem::current_path(folder);
    }
    ~working_folder() {
        std::error_code ignored;
        std::filesystem::current_path(before_, ignored);
    }
    working_folder(const working_folder&) = delete;
    working_folder& operator=(const working_folder&) = delete;

private:
    std::filesystem::path before_;
};

// A path in the temporary folder that no other test process uses: two builds' tests (or a
// parallel CTest) run at once without writing each other's files. Whatever a test leaves there (a file,
// a folder) is removed when the test program ends: a run of the suite leaves /tmp as it found it.
inline std::filesystem::path temp_path(const std::string& name) {
    struct left_behind {
        std::vector<std::filesystem::path> paths;
        ~left_behind() {
            std::error_code ignored;
            for (const auto& p : paths) std::filesystem::remove_all(p, ignored);
        }
    };
    static left_behind registry;
    auto p = std::filesystem::temp_directory_path() / ("roofline-" + std::to_string(::getpid()) + "-" + name);
    if (std::find(registry.paths.begin(), registry.paths.end(), p) == registry.paths.end()) registry.paths.push_back(p);
    return p;
}

// Throws when the file cannot be read: a test that reads a moved file must fail, not read "".
inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Reads CSV text and returns every launch.
inline std::vector<launch_record> read_launches(const std::string& text, read_summary* summary = nullptr,
                                                const read_options& options = {}) {
    std::istringstream in(text);
    std::vector<launch_record> out;
    read_summary s = read_ncu_csv(in, "test.csv", options, [&](launch_record&& r) { out.push_back(std::move(r)); });
    if (summary) *summary = s;
    return out;
}

inline std::vector<launch_record> read_example(const std::string& rel, read_summary* summary = nullptr) {
    return read_launches(read_text(source_path(rel)), summary);
}

inline const launch_record& by_name(const std::vector<launch_record>& v, const std::string& part) {
    for (const auto& r : v)
        if (r.kernel_name.find(part) != std::string::npos) return r;
    throw std::runtime_error("no launch named " + part);
}

// Options that keep every kernel's counters after the diagnosis (analyze drops them), for tests
// that recompute a figure from the counters themselves.
inline analyze_options keeping_metrics() {
    analyze_options o;
    o.keep_metrics = true;
    return o;
}

// A capture of examples/ by the name ncu gave it: examples/ keeps its largest exports gzip-compressed
// (report.csv.gz, which analyze reads as the export), so "x.csv" is "x.csv.gz" where only that is there.
inline std::string example_path(const std::string& rel) {
    const std::string plain = source_path(rel);
    std::error_code ignored;
    if (!std::filesystem::exists(plain, ignored) && std::filesystem::exists(plain + ".gz", ignored))
        return plain + ".gz";
    return plain;
}

// Every report of examples/ exported as both pages (prefix + "_details.csv" and prefix + "_raw.csv"), the six
// held-out programs last.
inline const std::vector<std::string>& details_raw_reports() {
    static const std::vector<std::string> reports = {
        "examples/h100/kernels",          "examples/h100/pairs",       "examples/h100/torch_ops",
        "examples/h100/cublas_ref",       "examples/h200/kernels",     "examples/h200/pairs",
        "examples/h200/torch_ops",        "examples/h200/cublas_ref",  "examples/h200/forms/kernels_full",
        "examples/h200/forms/layer_full", "examples/user_level/gemm",  "examples/user_level/elem",
        "examples/user_level/sdpa",       "examples/heldout/step",     "examples/heldout_vision/step",
        "examples/heldout_decode/step",   "examples/heldout_moe/step", "examples/heldout_unet/step",
        "examples/heldout_bert/step"};
    return reports;
}

inline analysis analyze_example(const std::string& rel, const analyze_options& o = {}) {
    return analyze_file(example_path(rel), o);
}

inline const analysed_kernel& kernel_named(const analysis& a, const std::string& part) {
    for (const auto& k : a.kernels)
        if (k.group.name.find(part) != std::string::npos) return k;
    throw std::runtime_error("no kernel named " + part);
}

}  // namespace roofline::test
