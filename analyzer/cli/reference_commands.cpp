// rules, explain and gpus: the reference pages of what the engine knows.
#include "analyzer/cli/cli_support.hpp"
#include "analyzer/cli/command_list.hpp"

#include "analyzer/diagnose/rule_tree.hpp"
#include "analyzer/report/explain.hpp"
#include "analyzer/report/reference.hpp"

#include "models/gpu_spec.hpp"

#include <functional>
#include <string>
#include <vector>

namespace roofline::cli {

int rules_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts("roofline rules [--tree ID] [options]\n\noptions");
    opts.add_options()("help,h", "show this help")("tree", po::value<std::string>(),
                                                   "print one tree as markdown with a mermaid diagram")(
        "rules", po::value<std::string>()->default_value(""), "a folder of extra or overriding rule trees")(
        "format", po::value<std::string>()->default_value("markdown"), "markdown, or json (every tree, for scripts)");
    auto vm = parse(opts, {}, args);
    if (vm.count("help")) return help(io, opts, "rules");
    auto trees = diagnose::load_rule_trees(vm["rules"].as<std::string>());
    const std::string format = output_format(vm, {"markdown", "json"}, io);
    if (format == "json") {
        io.out << rule_trees_json(trees);
        return 0;
    }
    if (!vm.count("tree")) {
        io.out << rule_trees_markdown(trees);
        return 0;
    }
    std::vector<std::string> ids;
    for (const auto& tree : trees) {
        if (tree.id == vm["tree"].as<std::string>()) {
            io.out << rule_tree_markdown(tree);
            return 0;
        }
        ids.push_back(tree.id);
    }
    usage_error("no rule tree \"" + vm["tree"].as<std::string>() + "\"" +
                did_you_mean(vm["tree"].as<std::string>(), ids) + " (see roofline rules)");
}

int explain_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts(
        "roofline explain NAME [options]\n\nNAME: a finding id (uncoalesced-global), an ncu metric the model reads, a "
        "stall "
        "reason\n(long_scoreboard), a derived value (util_dram) or an error code (bad_number).\n\noptions");
    opts.add_options()("help,h", "show this help")("name", po::value<std::string>(), "what to explain")(
        "rules", po::value<std::string>()->default_value(""), "a folder of extra or overriding rule trees")(
        "catalogue", "print the metric catalogue as markdown (docs/metrics.md)");
    po::positional_options_description pos;
    pos.add("name", 1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) return help(io, opts, "explain");
    if (vm.count("catalogue")) {
        io.out << metric_catalogue_markdown();
        return 0;
    }
    if (!vm.count("name")) usage_error("explain needs a name (see roofline explain --help)");
    const auto trees = diagnose::load_rule_trees(vm["rules"].as<std::string>());
    auto text = explain(vm["name"].as<std::string>(), trees);
    if (!text) {
        // The names a typo most likely meant: finding ids and tree ids.
        std::vector<std::string> known;
        std::function<void(const diagnose::rule_node&)> add = [&](const diagnose::rule_node& node) {
            if (!node.finding.empty()) known.push_back(node.finding);
            for (const auto& child : node.children) add(child);
        };
        for (const auto& tree : trees) {
            known.push_back(tree.id);
            for (const auto& root : tree.roots) add(root);
        }
        usage_error("nothing is known as \"" + vm["name"].as<std::string>() + "\"" +
                    did_you_mean(vm["name"].as<std::string>(), known) +
                    ": try a finding id from `roofline rules`, a stall reason, or an ncu metric id");
    }
    io.out << *text;
    return 0;
}

int gpus_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts("roofline gpus [options]\n\noptions");
    opts.add_options()("help,h", "show this help")("hwspecs", po::value<std::string>()->default_value(""),
                                                   "a folder of extra or overriding GPU spec files (*.json)")(
        "format", po::value<std::string>()->default_value("markdown"),
        "markdown, or json (every figure with its source, for scripts)");
    auto vm = parse(opts, {}, args);
    if (vm.count("help")) return help(io, opts, "gpus");
    const std::string format = output_format(vm, {"markdown", "json"}, io);
    const auto specs = load_gpu_specs(vm["hwspecs"].as<std::string>());
    io.out << (format == "json" ? gpu_specs_json(specs) : gpu_specs_markdown(specs));
    return 0;
}

}  // namespace roofline::cli
