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
        "roofline metrics [options]\n\nThe smallest metric set the engine needs on a GH100 (H100, H200): what the model and every "
        "rule node read, found by running them over a kernel that holds every metric the reader keeps.\n\noptions");
    opts.add_options()("help,h", "show this help")(
        "format", po::value<std::string>()->default_value("list"),
        "list: one comma-separated line for ncu --metrics; section: an ncu section file (Identifier \"roofline\") for "
        "--section-folder DIR --section roofline; markdown: every metric, required or optional, with the rule nodes that read it")(
        "output,o", po::value<std::string>(), "write it here (written whole or not at all); stdout otherwise")(
        "rules", po::value<std::string>()->default_value(""), "a folder of extra or overriding rule trees (*.json)");
    auto vm = parse(opts, {}, args);
    if (vm.count("help")) return help(io, opts, "metrics");
    const std::string format = vm["format"].as<std::string>();
    if (format != "list" && format != "section" && format != "markdown")
        usage_error("--format takes list, section or markdown, not \"" + format + "\"" + did_you_mean(format, {"list", "section", "markdown"}));
    const auto plan = rules::make_gh100_metric_plan(vm["rules"].as<std::string>());
    const std::string text = format == "list" ? metric_plan_list(plan) : format == "section" ? metric_plan_section(plan) : metric_plan_markdown(plan);
    if (!vm.count("output")) {
        io.out << text;
        return 0;
    }
    const std::string path = vm["output"].as<std::string>();
    write_file_atomically(path, text);
    io.err << "roofline: wrote " << path << " (" << plan.metrics.size() << " metrics, " << plan.required_count() << " required by the model)\n";
    return 0;
}

}  // namespace roofline::cli
