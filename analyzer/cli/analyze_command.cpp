// roofline analyze: one capture -> the report in the format asked for.
#include "analyzer/cli/cli_support.hpp"
#include "analyzer/cli/command_list.hpp"

#include "analyzer/base/atomic_file.hpp"
#include "analyzer/pipeline/analysis.hpp"
#include "analyzer/report/chart_svg.hpp"
#include "analyzer/report/report.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace roofline::cli {

namespace {

std::string kernels_on(const analysis& result) {
    return std::to_string(result.kernels.size()) + (result.kernels.size() == 1 ? " kernel" : " kernels") + " on " +
           result.gpu.name;
}

}  // namespace

int analyze_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts(
        "roofline analyze FILE [options]\n\nFILE is an ncu --csv export (--page raw or details, --metrics, "
        "--print-summary per-kernel, or "
        "a live run's stdout), or an .ncu-rep report (its raw page exported with ncu from PATH); - reads "
        "stdin.\n\noptions");
    const std::string formats = report_format_names() +
                                " (svg: the roofline chart alone); auto: what -o's extension says (.md, .json, .txt, "
                                ".html, .svg), else terminal when stdout is a "
                                "terminal, markdown otherwise. A --format that contradicts -o's extension is an error";
    opts.add_options()("help,h", "show this help")("input", po::value<std::string>(), "the CSV export")(
        "output,o", po::value<std::string>(), "write the report here (written whole or not at all); stdout otherwise")(
        "format", po::value<std::string>()->default_value("auto"), formats.c_str())(
        "top", po::value<std::string>(), "terminal: show the N longest kernels (default 15)")(
        "no-chart", "with -o and markdown, do not write the SVG roofline chart beside the report");
    add_capture_options(opts);
    po::positional_options_description pos;
    pos.add("input", 1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) return help(io, opts, "analyze");
    if (!vm.count("input")) usage_error("analyze needs a CSV file (see roofline analyze --help)");
    analyze_options options = capture_options(vm);
    const std::size_t top = whole_number(vm, "top", 1, print_options{}.top);
    // The format: --format when given; else -o's extension (.md, .json, .txt, .html, .svg); else the
    // terminal view on a terminal and markdown elsewhere. An explicit --format that contradicts a
    // known extension (-o r.json --format markdown) is an error: the file would lie about its contents.
    std::vector<std::string> names;
    for (const auto& entry : report_formats()) names.push_back(entry.name);
    const std::string format_name = output_format(vm, names, io);
    const bool to_file = vm.count("output") != 0;
    const report_format* format = find_report_format(format_name);
    // Where the output goes, checked before the work: never over the capture, never over a file without -f.
    const write_policy policy = output_policy(vm, {vm["input"].as<std::string>()});
    const bool with_chart = to_file && format_name == "markdown" && !vm.count("no-chart");
    const std::string path = to_file ? vm["output"].as<std::string>() : std::string();
    // The chart goes beside the report, named after it: report.md -> report.svg.
    const std::string svg = !with_chart ? std::string()
                            : path.size() > 3 && path.compare(path.size() - 3, 3, ".md") == 0
                                ? path.substr(0, path.size() - 3) + ".svg"
                                : path + ".svg";
    if (to_file) check_output(path, policy);
    if (with_chart) check_output(svg, policy);

    // Progress on stderr for long inputs, only where a person watches it.
    bool progress_shown = false;
    if (io.where.stderr_terminal)
        options.progress = [&io, &progress_shown](std::size_t launches) {
            if (launches % 1000 != 0) return;
            io.err << "\rroofline: read " << launches << " launches" << std::flush;
            progress_shown = true;
        };
    analysis result = analyze_file(vm["input"].as<std::string>(), options);
    if (progress_shown) io.err << "\r\033[K" << std::flush;
    print_options print_settings;
    print_settings.colour = io.where.colour && !to_file;  // no escape codes in a file
    print_settings.top = top;
    print_settings.width = io.where.width;
    if (!to_file) {
        format->write(result, print_settings, io.out);
        return 0;
    }
    if (with_chart) {
        // Everything is rendered before anything is written.
        print_settings.chart_file =
            svg.substr(svg.find_last_of('/') == std::string::npos ? 0 : svg.find_last_of('/') + 1);
        write_files_atomically(
            std::vector<std::pair<std::string, file_writer>>{
                {path, [&](std::ostream& out) { format->write(result, print_settings, out); }},
                {svg, [&](std::ostream& out) { out << render_chart(result, print_settings); }}},
            policy);
        io.err << "roofline: wrote " << path << " and " << svg << " (" << kernels_on(result) << ")\n";
        return 0;
    }
    write_files_atomically(
        std::vector<std::pair<std::string, file_writer>>{
            {path, [&](std::ostream& out) { format->write(result, print_settings, out); }}},
        policy);
    io.err << "roofline: wrote " << path << " (" << kernels_on(result) << ")\n";
    return 0;
}

}  // namespace roofline::cli
