#include "analyzer/pipeline/analysis.hpp"

#include "analyzer/base/input_error.hpp"
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/diagnose/fusion.hpp"
#include "models/gpu_match.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>

namespace roofline {
namespace {

gpu_identity identity_of(const kernel_group& g, const std::string& cc) {
    gpu_identity id;
    auto name = g.texts.find("device__attribute_display_name");
    if (name != g.texts.end()) id.display_name = name->second;
    id.cc = cc;
    metric_view m{g.numbers, g.launches};
    id.sm_count = m.first_of({"device__attribute_multiprocessor_count", "launch__sm_count"});
    if (auto clk = m.find("dram__cycles_elapsed.avg.per_second"))
        id.dram_clock_mhz = *clk / 1e6;
    else if (auto khz = m.find("device__attribute_memory_clock_rate"))
        id.dram_clock_mhz = *khz / 1e3;
    return id;
}

}  // namespace

analysis analyze(std::istream& in, const std::string& input_name, const analyze_options& options) {
    analysis a;
    a.input = input_name;
    kernel_table table;
    launch_filter filter(options.filter);
    std::string first_cc;
    a.read = read_ncu_csv(in, input_name, options.read, [&](launch_record&& launch) {
        a.launches_read += launch.invocations;
        if (options.progress) options.progress(a.launches_read);
        if (!filter.accept(launch, input_name)) return;
        a.launches_kept += launch.invocations;
        if (first_cc.empty()) first_cc = launch.cc;
        table.add(std::move(launch));
    });
    std::vector<kernel_group> groups = table.finish();
    if (groups.empty())
        throw input_error(error_code::no_kernels, input_name, 0, 0,
                          "none of the " + std::to_string(a.launches_read) +
                              " launches passes the filters (--kernel-name, --launch-skip, --launch-count)");
    std::vector<gpu_spec> specs = load_gpu_specs(options.hwspecs_dir);
    gpu_choice choice = match_gpu(specs, identity_of(groups.front(), first_cc), options.gpu, input_name);
    a.gpu = *choice.spec;
    a.gpu_how = choice.how;
    a.default_practical = default_practical_resources(a.gpu);
    for (auto& g : groups) {
        analysed_kernel k;
        static_cast<kernel_result&>(k) = model_kernel(std::move(g), a.gpu);
        a.total_ns += k.roof.duration_ns;
        a.kernels.push_back(std::move(k));
    }
    const auto trees = rules::load_rule_trees(options.rules_dir);
    for (auto& k : a.kernels) {
        k.share = a.total_ns > 0 ? k.roof.duration_ns / a.total_ns : 0.0;
        k.diagnosis = rules::diagnose(trees, k, a.gpu);
    }
    // Findings about runs of kernels, on the first kernel of each run (still in launch order here).
    std::vector<const kernel_result*> in_order;
    for (const auto& k : a.kernels) in_order.push_back(&k);
    for (auto& w : rules::fusion_candidates(in_order, a.gpu)) {
        analysed_kernel& first = a.kernels[w.kernel];
        first.diagnosis.path.push_back(std::move(w.path));
        first.diagnosis.findings.push_back(std::move(w.what));
        rules::settle_findings(first.diagnosis, first, a.gpu);
    }
    std::stable_sort(a.kernels.begin(), a.kernels.end(),
                     [](const analysed_kernel& x, const analysed_kernel& y) { return x.roof.duration_ns > y.roof.duration_ns; });
    return a;
}

namespace {

// An Nsight Compute report (.ncu-rep) is binary: its name, its magic ("NVR\0", read off a report of
// ncu 2025.3.1), or a NUL byte among the first bytes (no CSV export holds one) gives it away. The
// user needs the export command, not the bytes.
void refuse_binary(std::istream& in, const std::string& path) {
    char head[4096];
    in.read(head, sizeof head);
    const std::string_view seen(head, std::size_t(in.gcount()));
    in.clear();
    in.seekg(0);
    const bool named = path.size() > 8 && path.compare(path.size() - 8, 8, ".ncu-rep") == 0;
    const bool report = named || seen.substr(0, 4) == std::string_view("NVR\0", 4);
    if (!report && seen.find('\0') == std::string_view::npos) return;
    const std::string command =
        report ? "ncu -i " + path + " --csv --page raw > " + (named ? path.substr(0, path.size() - 8) : std::string("report")) + ".csv"
               : "ncu -i REPORT.ncu-rep --csv --page raw > report.csv";
    throw input_error(error_code::unknown_format, path, 0, 0,
                      std::string(report ? "an Nsight Compute report (.ncu-rep)" : "binary, not text (an Nsight Compute .ncu-rep report?)") +
                          ", not a CSV export; export it with: " + command);
}

}  // namespace

analysis analyze_file(const std::string& path, const analyze_options& options) {
    if (path == "-") return analyze(std::cin, "<stdin>", options);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(error_code::io, path, 0, 0, "cannot open the file");
    refuse_binary(in, path);
    return analyze(in, path, options);
}

}  // namespace roofline
