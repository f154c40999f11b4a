// roofline timeline: a whole-run trace -> is the GPU busy, and why not: idle gaps by cause, what
// removing each would gain, and the top kernels with the ncu commands that profile them.
#include "analyzer/cli/cli_support.hpp"
#include "analyzer/cli/command_list.hpp"

#include "analyzer/base/atomic_file.hpp"
#include "analyzer/diagnose/metric_plan.hpp"
#include "analyzer/read/units.hpp"
#include "analyzer/render/html_page.hpp"
#include "analyzer/base/format.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/timeline/ranks.hpp"
#include "analyzer/timeline/timeline_report.hpp"
#include "analyzer/timeline/timeline_svg.hpp"
#include "analyzer/timeline/trace_file.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <thread>
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace roofline::cli {
namespace {

// "10us", "0.5ms", "2500ns", "1s" (any duration unit ncu writes) -> ns. The unit is required: "7.3" could be
// milliseconds (a step) as well as microseconds, and a guess off by 1000x gives estimates off by as much.
std::int64_t duration_ns(const std::string& option, const std::string& text) {
    std::size_t unit_at = 0;
    while (unit_at < text.size() && (std::isdigit(static_cast<unsigned char>(text[unit_at])) || text[unit_at] == '.'))
        ++unit_at;
    double amount = 0.0;
    if (unit_at == text.size() && unit_at > 0 && text.find_first_not_of("0.") != std::string::npos)
        usage_error(option + " needs its unit: " + text + "ms, " + text + "us or " + text + "ns, not \"" + text + "\"");
    auto [end, ec] = std::from_chars(text.data(), text.data() + unit_at, amount);
    const auto unit =
        to_base_unit(unit_at == text.size() ? std::string_view("us") : std::string_view(text).substr(unit_at));
    if (unit_at == 0 || ec != std::errc() || end != text.data() + unit_at || !unit || unit->base != "ns" ||
        !(amount >= 0) || amount * unit->factor > 1e18)
        usage_error(option + " takes a duration such as 10us, 0.5ms or 2500ns, not \"" + text + "\"");
    return static_cast<std::int64_t>(std::llround(amount * unit->factor));
}

// The kernels of every device by name, as an Nsight Systems kernel summary: what triage ranks.
std::unique_ptr<nsys_kernsum> kernel_summary(const timeline::timeline_model& model) {
    auto summary = std::make_unique<nsys_kernsum>();
    summary->file = model.source->file;
    summary->layout = "kernels of the trace";
    std::map<std::string, nsys_kernel> by_name;
    for (const auto& device : model.devices)
        for (const auto& total : device.kernel_totals) {
            auto& entry = by_name[model.source->name(total.name)];
            entry.name = model.source->name(total.name);
            entry.total_ns += double(total.total_ns);
            entry.instances += double(total.launches);
        }
    for (auto& [name, kernel_row] : by_name) summary->kernels.push_back(std::move(kernel_row));
    return summary;
}

// The traces of a job's ranks: the files given, or a folder's trace files (by name).
std::vector<std::string> rank_files(const std::vector<std::string>& given) {
    return given.size() > 1 ? given : timeline::trace_files_in(given.front());
}

// Several ranks of one job: each summarised in parallel, then compared (analyzer/timeline/ranks.hpp).
int ranks_command(const po::variables_map& vm, const std::vector<std::string>& files, const io& io) {
    const std::int64_t min_gap = duration_ns("--min-gap", vm["min-gap"].as<std::string>());
    // A terminal gets the markdown: the ranks' table is wider than a terminal view would hold.
    const std::vector<printer<timeline::ranks_model>> printers = {{"markdown", timeline::ranks_markdown},
                                                                  {"json", timeline::ranks_json},
                                                                  {"terminal", timeline::ranks_markdown},
                                                                  {"html", timeline::ranks_html}};
    const std::string format = output_format(vm, printer_names(printers), io);
    const bool to_file = vm.count("output") != 0;
    const write_policy policy = output_policy(vm, files);
    if (to_file) check_output(vm["output"].as<std::string>(), policy);
    // Progress on a terminal only (never in a pipe or a log): ranks read, bytes.
    timeline::rank_progress progress;
    bool shown = false;
    if (io.where.stderr_terminal)
        progress = [&](std::size_t done, std::size_t all, std::uint64_t bytes) {
            io.err << "\rroofline: " << done << " of " << all << " ranks read (" << format_si(double(bytes), "B") << ")"
                   << std::flush;
            shown = true;
        };
    const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    const auto ranks = timeline::model_ranks(files, min_gap, threads, progress);
    if (shown) io.err << "\r\033[K" << std::flush;
    emit_output(vm, print_as(printers, format, ranks), policy, io);
    return 0;
}

}  // namespace

int timeline_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts(
        "roofline timeline FILE [options]\nroofline timeline DIR | FILE FILE... [options]\n\nFILE is a whole-run "
        "trace: a PyTorch profiler Chrome trace (.json or "
        ".json.gz, from torch.profiler's export_chrome_trace or tensorboard_trace_handler), an Nsight Systems "
        "report (.nsys-rep, exported with nsys where it is on PATH) or its SQLite export (nsys export --type sqlite), "
        "or nsys stats' cuda_gpu_trace CSV (with --api). Several files, or a folder of them, are the ranks of one "
        "job: each rank summarised, and the rank that holds the others back named. docs/timeline.md has the "
        "details.\n\noptions");
    opts.add_options()("help,h", "show this help")("input", po::value<std::vector<std::string>>(),
                                                   "the trace, or one trace per rank (files or a folder)")(
        "api", po::value<std::string>(),
        "with an nsys stats cuda_gpu_trace report: the cuda_api_trace report of the same run (the gaps' causes)")(
        "min-gap", po::value<std::string>()->default_value("10us"),
        "list and classify the idle gaps longer than this (10us, 0.5ms, 2500ns)")(
        "step-time", po::value<std::string>(),
        "the program's step time measured without the profiler (its own timing, e.g. 3.04ms): each estimate is also "
        "given against it, since the profiler lengthens the CPU's side of every step; needs a trace that marks its "
        "steps")(
        "format", po::value<std::string>()->default_value("auto"),
        "markdown, json, terminal, html (one page, with the timeline drawn) or svg (the timeline alone); auto: what "
        "-o's extension says (.md, .json, .txt, .html, .svg), else the terminal view on a terminal, markdown "
        "otherwise")("output,o", po::value<std::string>(),
                     "write it here (written whole or not at all); stdout otherwise")(
        "top", po::value<std::string>(), "the ncu commands profile the N kernels with the most GPU time (default 5)")(
        "app", po::value<std::string>()->default_value("./app"),
        "the application's command line, as ncu should run it")(
        "gpu", po::value<std::string>()->default_value("h100-sxm"),
        "the GPU the application runs on (an id or name of roofline gpus): its chip's counter names go in --metrics");
    po::positional_options_description pos;
    pos.add("input", -1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) return help(io, opts, "timeline");
    if (!vm.count("input")) usage_error("timeline needs a trace (see roofline timeline --help)");
    auto given = vm["input"].as<std::vector<std::string>>();
    std::error_code ec;
    if (given.size() > 1 || std::filesystem::is_directory(given.front(), ec)) {
        if (vm.count("api"))
            usage_error("--api goes with one nsys stats cuda_gpu_trace report, not with several ranks");
        // A folder of one trace is that trace: there is no other rank to compare it with.
        auto files = rank_files(given);
        if (files.size() > 1) return ranks_command(vm, files, io);
        given = files;
    }
    const std::int64_t min_gap = duration_ns("--min-gap", vm["min-gap"].as<std::string>());
    std::optional<std::int64_t> step_time;
    if (vm.count("step-time")) {
        step_time = duration_ns("--step-time", vm["step-time"].as<std::string>());
        if (*step_time <= 0) usage_error("--step-time takes a step time above zero");
    }
    triage_options options;
    options.top = whole_number(vm, "top", 1, options.top);
    options.app = vm["app"].as<std::string>();
    const std::size_t width = io.where.width;
    const std::vector<printer<timeline::timeline_report>> printers = {
        {"markdown", timeline::timeline_markdown},
        {"json", timeline::timeline_json},
        {"terminal",
         [width](const timeline::timeline_report& report) { return timeline::timeline_terminal(report, width); }},
        {"html", timeline::timeline_html},
        {"svg", [](const timeline::timeline_report& report) { return timeline::timeline_svg(*report.model); }}};
    const std::string format = output_format(vm, printer_names(printers), io);
    const bool to_file = vm.count("output") != 0;
    std::vector<std::string> inputs = {given.front()};
    if (vm.count("api")) inputs.push_back(vm["api"].as<std::string>());
    const write_policy policy = output_policy(vm, inputs);
    if (to_file) check_output(vm["output"].as<std::string>(), policy);

    auto trace =
        timeline::read_trace_file(given.front(), vm.count("api") ? vm["api"].as<std::string>() : std::string());
    const auto model = timeline::model_timeline(trace, min_gap);
    if (step_time && model.steps.count == 0)
        usage_error("--step-time needs a trace that marks its steps (ProfilerStep#N, or NVTX step ranges), and " +
                    trace.file + " marks none: the time after each fix is per step only where the steps are known");
    timeline::timeline_report report;
    report.model = &model;
    report.findings = timeline::timeline_findings(model, step_time);
    report.kernel_summary = kernel_summary(model);
    if (!report.kernel_summary->kernels.empty())
        report.triage = make_triage(*report.kernel_summary, options,
                                    collection_of(diagnose::make_metric_plan_for(vm["gpu"].as<std::string>(), "")));
    emit_output(vm, print_as(printers, format, report), policy, io);
    return 0;
}

}  // namespace roofline::cli
