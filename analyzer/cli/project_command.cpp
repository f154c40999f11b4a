// roofline project: one capture's kernels projected onto another GPU (analyzer/compare/projection.hpp).
#include "analyzer/cli/cli_support.hpp"
#include "analyzer/cli/command_list.hpp"

#include "analyzer/base/atomic_file.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/pipeline/analysis.hpp"
#include "analyzer/compare/projection_report.hpp"

#include "models/gpu_spec.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <string>
#include <vector>

namespace roofline::cli {

namespace {

std::string format_names() {
    std::string names;
    for (const auto& format_name : projection_format_names()) names += (names.empty() ? "" : ", ") + format_name;
    return names;
}

}  // namespace

int project_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts(
        "roofline project FILE --to GPU [options]\n\nFILE is an ncu --csv export, as roofline analyze reads it; each "
        "kernel's "
        "time is projected onto GPU (an id of `roofline gpus`) under the assumption: same code, same traffic, same "
        "share of the "
        "practical peak (docs/project.md).\n\noptions");
    const std::string formats =
        format_names() +
        " or auto: what -o's extension says (.md, .json, .txt, .html), else terminal on a terminal, "
        "markdown otherwise";
    opts.add_options()("help,h", "show this help")("input", po::value<std::string>(), "the CSV export")(
        "to", po::value<std::string>(), "the GPU to project onto (a spec id, see roofline gpus)")(
        "output,o", po::value<std::string>(),
        "write the projection here (written whole or not at all); stdout otherwise")(
        "format", po::value<std::string>()->default_value("auto"), formats.c_str())(
        "sm-clock", po::value<std::string>(),
        "the target's SM clock in MHz (default: the target's boost clock scaled by the share of the source's boost "
        "clock the "
        "capture ran at)")("gpu", po::value<std::string>()->default_value(""),
                           "the source GPU's spec, as roofline analyze --gpu (detected from the capture by default)")(
        "device", po::value<std::string>()->default_value(""),
        "only the launches of this device, as roofline analyze --device")(
        "hwspecs", po::value<std::string>()->default_value(""),
        "a folder of extra or overriding GPU spec files (*.json)");
    po::positional_options_description pos;
    pos.add("input", 1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) return help(io, opts, "project");
    if (!vm.count("input")) usage_error("project needs a CSV file (see roofline project --help)");
    if (!vm.count("to")) usage_error("project needs --to GPU, the GPU to project onto (see roofline gpus)");
    const std::string hwspecs = vm["hwspecs"].as<std::string>();
    const std::string to = vm["to"].as<std::string>();
    const auto specs = load_gpu_specs(hwspecs);
    std::vector<std::string> ids;
    for (const auto& spec : specs) ids.push_back(spec.id);
    const std::string to_id = resolve_gpu(specs, to, "--to");
    auto target = std::find_if(specs.begin(), specs.end(), [&](const gpu_spec& spec) { return spec.id == to_id; });
    projection_options projection;
    if (vm.count("sm-clock")) {
        const std::string text = vm["sm-clock"].as<std::string>();
        double mhz = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mhz);
        if (ec != std::errc() || end != text.data() + text.size() || !(mhz > 0 && mhz < 1e5))
            usage_error("--sm-clock takes a clock in MHz (e.g. 1755), not \"" + text + "\"");
        projection.target_sm_clock_hz = mhz * 1e6;
    }
    const std::string format = output_format(vm, projection_format_names(), io);
    const bool to_file = vm.count("output") != 0;

    analyze_options options;
    options.gpu = vm["gpu"].as<std::string>();
    options.device = vm["device"].as<std::string>();
    options.hwspecs_dir = hwspecs;
    if (!options.gpu.empty()) options.gpu = resolve_gpu(specs, options.gpu, "--gpu");
    const write_policy policy = output_policy(vm, {vm["input"].as<std::string>()});
    if (to_file) check_output(vm["output"].as<std::string>(), policy);
    const analysis result = analyze_file(vm["input"].as<std::string>(), options);
    const std::string text = render_projection(result, project_analysis(result, *target, projection), format);
    emit_output(vm, text, policy, io);
    return 0;
}

}  // namespace roofline::cli
