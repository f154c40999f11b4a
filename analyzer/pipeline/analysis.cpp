#include "analyzer/pipeline/analysis.hpp"

#include "models/gpu_match.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/diagnose/fusion.hpp"

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
    if (auto clk = m.find("dram__cycles_elapsed.avg.per_second")) id.dram_clock_mhz = *clk / 1e6;
    else if (auto khz = m.find("device__attribute_memory_clock_rate")) id.dram_clock_mhz = *khz / 1e3;
    return id;
}

launch_shape shape_of(const kernel_group& g) {
    metric_view m{g.numbers, g.launches};
    launch_shape s;
    s.launches = g.launches;
    s.grid_blocks = m.find("launch__grid_size").value_or(0.0);
    s.waves = m.find("launch__waves_per_multiprocessor").value_or(0.0);
    s.sm_count = m.first_of({"launch__sm_count", "device__attribute_multiprocessor_count"}).value_or(0.0);
    return s;
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
        if (!filter.accept(launch)) return;
        a.launches_kept += launch.invocations;
        if (first_cc.empty()) first_cc = launch.cc;
        table.add(std::move(launch));
    });
    std::vector<kernel_group> groups = table.finish();
    if (groups.empty())
        throw input_error(error_code::no_kernels, input_name, 0, 0,
                          "none of the " + std::to_string(a.launches_read) + " launches passes the filters (--kernel-name, --launch-skip, --launch-count)");
    std::vector<gpu_spec> specs = load_gpu_specs(options.hwspecs_dir);
    gpu_choice choice = match_gpu(specs, identity_of(groups.front(), first_cc), options.gpu, input_name);
    a.gpu = *choice.spec;
    a.gpu_how = choice.how;
    for (auto& g : groups) {
        kernel_result r;
        r.roof = build_roofline(metric_view{g.numbers, g.launches}, a.gpu);
        r.shape = shape_of(g);
        r.verdict = classify(r.roof, r.shape);
        r.group = std::move(g);
        a.total_ns += r.roof.duration_ns;
        a.kernels.push_back(std::move(r));
    }
    const auto trees = rules::load_rule_trees(options.rules_dir);
    for (auto& k : a.kernels) {
        k.share = a.total_ns > 0 ? k.roof.duration_ns / a.total_ns : 0.0;
        k.diagnosis = rules::diagnose(trees, k, a.gpu);
    }
    rules::add_fusion_candidates(a.kernels, a.gpu);  // still in launch order here
    std::stable_sort(a.kernels.begin(), a.kernels.end(),
                     [](const kernel_result& x, const kernel_result& y) { return x.roof.duration_ns > y.roof.duration_ns; });
    return a;
}

analysis analyze_file(const std::string& path, const analyze_options& options) {
    if (path == "-") return analyze(std::cin, "<stdin>", options);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(error_code::io, path, 0, 0, "cannot open the file");
    return analyze(in, path, options);
}

}  // namespace roofline
