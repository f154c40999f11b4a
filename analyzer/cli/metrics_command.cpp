// roofline metrics: the metrics the model and the rule trees read, for ncu --metrics or as a section file.
#include "analyzer/cli/cli_support.hpp"
#include "analyzer/cli/command_list.hpp"

#include "analyzer/base/atomic_file.hpp"
#include "analyzer/diagnose/metric_plan.hpp"
#include "analyzer/report/metric_plan_text.hpp"

#include <string>
#include <vector>

namespace roofline::cli {

int metrics_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts(
        "roofline metrics [options]\n\nThe smallest metric set the engine needs on each chip: what the model and every "
        "rule node "
        "read, found by running them over a kernel that holds every quantity the chip counts, under the chip's own "
        "counter names "
        "(GB20x's DRAM bytes are dram__bytes_op_read/_write, Blackwell's tensor ops utc*mma paths, ...).\n\noptions");
    opts.add_options()("help,h", "show this help")("format", po::value<std::string>()->default_value("list"),
                                                   "list: one comma-separated line for ncu --metrics (with --gpu; "
                                                   "without it, one line per chip, each after a # comment); "
                                                   "section: one ncu section file (Identifier \"roofline\") for "
                                                   "--section-folder DIR --section roofline, whose names carry the "
                                                   "compute capabilities they are collected on, so one file serves "
                                                   "every chip; markdown: every metric, required or optional, "
                                                   "with the rule nodes that read it and its name on each chip")(
        "gpu", po::value<std::string>(),
        "the plan for the chip of this GPU (an id or name of roofline gpus); default: every chip")(
        "output,o", po::value<std::string>(), "write it here (written whole or not at all); stdout otherwise")(
        "rules", po::value<std::string>()->default_value(""), "a folder of extra or overriding rule trees (*.json)");
    auto vm = parse(opts, {}, args);
    if (vm.count("help")) return help(io, opts, "metrics");
    const std::vector<printer<std::vector<diagnose::metric_plan>>> printers = {
        {"list", metric_plan_list}, {"section", metric_plan_section}, {"markdown", metric_plan_markdown}};
    const std::string format = output_format(vm, printer_names(printers), io);
    const std::string rules_dir = vm["rules"].as<std::string>();
    const auto plans =
        vm.count("gpu")
            ? std::vector<diagnose::metric_plan>{diagnose::make_metric_plan_for(vm["gpu"].as<std::string>(), rules_dir)}
            : diagnose::make_metric_plans(rules_dir);
    const std::string text = print_as(printers, format, plans);
    if (!vm.count("output")) {
        io.out << text;
        return 0;
    }
    const std::string path = vm["output"].as<std::string>();
    write_file_atomically(path, text, output_policy(vm, {}));
    io.err << "roofline: wrote " << path << " (";
    for (std::size_t i = 0; i < plans.size(); ++i)
        io.err << (i ? "; " : "") << plans[i].for_chip->id << ": " << plans[i].ncu_names().size() << " metrics, "
               << plans[i].required_count() << " quantities required by the model";
    io.err << ")\n";
    return 0;
}

}  // namespace roofline::cli
