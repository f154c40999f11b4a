// roofline predict: what an operation must cost before it is written, on one GPU or on all of them.
#include "analyzer/cli/cli_support.hpp"
#include "analyzer/cli/command_list.hpp"

#include "analyzer/base/atomic_file.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/report/predict_report.hpp"

#include "models/gpu_spec.hpp"
#include "models/op_models.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace roofline::cli {

namespace {

// The ops and their keys, for --help: generated from the catalogue the parser checks against.
std::string ops_help() {
    std::string help_text = "OP and its KEY=VALUE arguments (a key with = after it has that default):\n";
    for (const auto& op : op_catalogue()) {
        help_text += "  " + op.name + ": " + op.summary + "\n   ";
        for (const auto& key_spec : op.keys) {
            help_text += " " + key_spec.name;
            if (!key_spec.fallback.empty()) help_text += "=" + key_spec.fallback;
            if (!key_spec.choices.empty()) {
                std::string choice_list;
                for (const auto& choice : key_spec.choices) choice_list += (choice_list.empty() ? "" : "|") + choice;
                help_text += "(" + choice_list + ")";
            }
        }
        help_text += "\n";
    }
    return help_text;
}

}  // namespace

int predict_command(const std::vector<std::string>& args, const io& io) {
    const std::string caption =
        "roofline predict OP KEY=VALUE... [options]\n\nThe floor time of an operation on a GPU: its FLOPs, "
        "the bytes that must cross DRAM at least once, and the larger of the two times at the GPU's "
        "practical shares of its peaks (docs/predict.md).\n\n" +
        ops_help() + "\noptions";
    po::options_description opts(caption);
    opts.add_options()("help,h", "show this help")("op", po::value<std::string>(), "the operation")(
        "keys", po::value<std::vector<std::string>>()->default_value({}, ""), "its KEY=VALUE arguments")(
        "gpu", po::value<std::string>()->default_value("h100-sxm"),
        "a GPU spec id (see `roofline gpus`), or all: one row per spec")(
        "hwspecs", po::value<std::string>()->default_value(""),
        "a folder of extra or overriding GPU spec files (*.json)")(
        "format", po::value<std::string>()->default_value("auto"),
        "markdown, json, terminal or html (one page); auto: what -o's extension says (.md, .json, .txt, .html), else "
        "terminal on a terminal and markdown "
        "otherwise")("output,o", po::value<std::string>(), "write here (whole or not at all); stdout otherwise");
    po::positional_options_description pos;
    pos.add("op", 1).add("keys", -1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) return help(io, opts, "predict");
    if (!vm.count("op"))
        usage_error(
            "predict needs an op and its keys, e.g. roofline predict gemm M=4096 N=4096 K=4096 dtype=bf16 (see "
            "--help)");

    const std::string format = output_format(vm, predict_format_names(), io);

    // The op and its keys are checked before any spec is read: a typo is the likelier mistake.
    prediction predicted{model_op(vm["op"].as<std::string>(), vm["keys"].as<std::vector<std::string>>()), {}};
    const std::string gpu = vm["gpu"].as<std::string>();
    const auto specs = load_gpu_specs(vm["hwspecs"].as<std::string>());
    const std::string id = gpu == "all" ? gpu : resolve_gpu(specs, gpu, "--gpu");
    for (const auto& spec : specs)
        if (id == "all" || spec.id == id) predicted.floors.push_back(floor_on(predicted.cost, spec));
    const std::string text = render_prediction(predicted, format);
    emit_output(vm, text, output_policy(vm, {}), io);
    return 0;
}

}  // namespace roofline::cli
