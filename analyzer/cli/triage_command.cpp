// roofline triage: an Nsight Systems kernel summary -> the kernels worth profiling and the ncu
// commands that profile just them.
#include "analyzer/cli/cli_support.hpp"
#include "analyzer/cli/command_list.hpp"

#include "analyzer/base/atomic_file.hpp"
#include "analyzer/diagnose/metric_plan.hpp"
#include "analyzer/read/nsys_kernsum.hpp"
#include "analyzer/render/html_page.hpp"
#include "analyzer/timeline/triage.hpp"

#include <charconv>
#include <string>
#include <vector>

namespace roofline::cli {
namespace {

// "80", "80%" or "80.5%" -> 0.805; a usage error for anything outside (0, 100].
double cover_fraction(std::string text) {
    const std::string given = text;
    if (!text.empty() && text.back() == '%') text.pop_back();
    double percent = 0.0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), percent);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(percent > 0.0) || percent > 100.0)
        usage_error("--cover takes a share of GPU time above 0 and at most 100 (80 or 80%), not \"" + given + "\"");
    return percent / 100.0;
}

}  // namespace

int triage_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts(
        "roofline triage FILE [options]\n\nFILE is Nsight Systems' kernel summary as CSV: `nsys stats --report "
        "cuda_gpu_kern_sum "
        "--format csv rep.nsys-rep` (its stdout, with or without other reports, or the file -o writes), or the older "
        "gpukernsum report; - reads stdin.\n\noptions");
    opts.add_options()("help,h", "show this help")("input", po::value<std::string>(), "the kernel summary")(
        "top", po::value<std::string>(), "profile the N kernels with the most GPU time (default 5)")(
        "cover", po::value<std::string>(), "profile the fewest kernels whose GPU time reaches this share (80 or 80%)")(
        "format", po::value<std::string>()->default_value("auto"),
        "markdown, json, terminal or html (one page); auto: what -o's extension says (.md, .json, .txt, .html), else "
        "terminal on a terminal, markdown otherwise")("output,o", po::value<std::string>(),
                                                      "write it here (written whole or not at all); stdout otherwise")(
        "app", po::value<std::string>()->default_value("./app"),
        "the application's command line, as ncu should run it")(
        "launch-skip", po::value<std::string>(),
        "launches of each kernel to skip before profiling (default 1 where it ran more than once: warm-up; else 0)")(
        "launch-count", po::value<std::string>(), "launches of each kernel to profile (default 1)")(
        "section-folder", po::value<std::string>(),
        "collect with --section-folder DIR --section roofline (the file `roofline metrics --format section` writes) "
        "instead of "
        "--metrics")(
        "gpu", po::value<std::string>()->default_value("h100-sxm"),
        "the GPU the application runs on (an id or name of roofline gpus): its chip's counter names go in --metrics")(
        "rules", po::value<std::string>()->default_value(""), "a folder of extra or overriding rule trees (*.json)");
    po::positional_options_description pos;
    pos.add("input", 1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) return help(io, opts, "triage");
    if (!vm.count("input")) usage_error("triage needs a kernel summary CSV (see roofline triage --help)");
    if (vm.count("top") && vm.count("cover")) usage_error("--top and --cover each choose the kernels: give one");
    triage_options options;
    options.top = whole_number(vm, "top", 1, options.top);
    if (vm.count("cover")) options.cover = cover_fraction(vm["cover"].as<std::string>());
    if (vm.count("launch-skip")) options.launch_skip = whole_number(vm, "launch-skip", 0, 0);
    options.launch_count = whole_number(vm, "launch-count", 1, options.launch_count);
    options.app = vm["app"].as<std::string>();
    if (vm.count("section-folder")) options.section_folder = vm["section-folder"].as<std::string>();
    const std::vector<printer<triage_plan>> printers = {
        {"markdown", triage_markdown}, {"json", triage_json}, {"terminal", triage_terminal}, {"html", triage_html}};
    const std::string format = output_format(vm, printer_names(printers), io);
    const bool to_file = vm.count("output") != 0;

    const write_policy policy = output_policy(vm, {vm["input"].as<std::string>()});
    if (to_file) check_output(vm["output"].as<std::string>(), policy);
    const auto summary = read_nsys_kernsum_file(vm["input"].as<std::string>());
    const auto plan = diagnose::make_metric_plan_for(vm["gpu"].as<std::string>(), vm["rules"].as<std::string>());
    const auto triaged = make_triage(summary, options, collection_of(plan));
    const std::string text = print_as(printers, format, triaged);
    if (!to_file) {
        io.out << text;
        return 0;
    }
    write_file_atomically(vm["output"].as<std::string>(), text, policy);
    io.err << "roofline: wrote " << vm["output"].as<std::string>() << " (" << triaged.selected << " of "
           << triaged.ranked.size() << " kernels to profile)\n";
    return 0;
}

}  // namespace roofline::cli
