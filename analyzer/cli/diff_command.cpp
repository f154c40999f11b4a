// roofline diff: two captures of one program, before and after a change -> what moved, and the
// regression gate for CI (exit 1 when --fail-if-slower is exceeded). docs/diff.md.
#include "analyzer/cli/cli_support.hpp"
#include "analyzer/cli/command_list.hpp"

#include "analyzer/base/atomic_file.hpp"
#include "analyzer/base/format.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/pipeline/analysis.hpp"
#include "analyzer/render/html_page.hpp"
#include "analyzer/compare/diff.hpp"
#include "analyzer/compare/ranks_diff.hpp"
#include "analyzer/compare/timeline_diff.hpp"
#include "analyzer/timeline/trace_file.hpp"

#include <charconv>
#include <cmath>
#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace roofline::cli {

namespace {

// A number of 0 or more for `option`, or a usage error naming it; a percentage ("5", "2.5", "5%") may
// end in "%".
double non_negative(const po::variables_map& vm, const char* option, bool percent) {
    std::string text = vm[option].as<std::string>();
    const std::string given = text;
    if (percent && !text.empty() && text.back() == '%') text.pop_back();
    double value = -1;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0)
        usage_error(std::string("--") + option +
                    (percent ? " takes a percentage of 0 or more (5 or 5%)" : " takes a number of 0 or more") +
                    ", not \"" + given + "\"");
    return value;
}

bool ends_with(const std::string& text, const std::string& tail) {
    return text.size() > tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

int diff_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts(
        "roofline diff BASE NEW [options]\n\nCompares two ncu --csv exports of one program, before (BASE) and "
        "after (NEW) a "
        "change: "
        "kernels matched by name and launch shape, each one's time and roofline movement, the findings that appeared "
        "or went away, and "
        "the workload's total. Both files are read as analyze reads them, with the same options. docs/diff.md has the "
        "details. Given two whole-run traces (what roofline timeline reads), it compares their time per step, GPU "
        "utilisation, idle time by cause and kernels instead; --fail-if-slower then gates the time per "
        "step. Given two folders of traces (one per rank, as roofline timeline DIR reads them), it compares the "
        "two runs of the job rank by rank, and the gate is on the job's step.\n\noptions");
    const std::string noise_help =
        "the noise floor in percent of a kernel's time (default " + significant(default_noise_pct, 6) +
        "): a change within it, or within --noise-ns, whichever is larger, is \"within noise\" (ncu's "
        "run-to-run spread, see docs/diff.md)";
    const std::string noise_ns_help = "the noise floor in ns per launch (default " + significant(default_noise_ns, 6) +
                                      "): short kernels' spread is a few hundred ns";
    opts.add_options()("help,h", "show this help")("base", po::value<std::string>(), "the capture before the change")(
        "new", po::value<std::string>(), "the capture after it")(
        "output,o", po::value<std::string>(), "write the diff here (written whole or not at all); stdout otherwise")(
        "format", po::value<std::string>()->default_value("auto"),
        "markdown, json, terminal or html (one page); auto: what -o's extension says (.md, .json, .txt, .html), else "
        "terminal when stdout is a terminal, "
        "markdown otherwise")("no-chart", "with -o and markdown, do not write the SVG chart beside the diff")(
        "noise", po::value<std::string>(), noise_help.c_str())("noise-ns", po::value<std::string>(),
                                                               noise_ns_help.c_str())(
        "fail-if-slower", po::value<std::string>(),
        "exit 1 when the workload total or any matched kernel got slower by more than PCT percent (and beyond the "
        "noise floor)");
    add_capture_options(opts);
    po::positional_options_description pos;
    pos.add("base", 1).add("new", 1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) return help(io, opts, "diff");
    if (!vm.count("base") || !vm.count("new"))
        usage_error("diff needs two CSV files, BASE and NEW (see roofline diff --help)");
    const analyze_options options = capture_options(vm);
    diff_options diff_settings;
    if (vm.count("noise")) diff_settings.noise_pct = non_negative(vm, "noise", true);
    if (vm.count("noise-ns")) diff_settings.noise_ns = non_negative(vm, "noise-ns", false);
    if (vm.count("fail-if-slower")) diff_settings.fail_if_slower_pct = non_negative(vm, "fail-if-slower", true);

    const bool to_file = vm.count("output") != 0;
    const std::string path = to_file ? vm["output"].as<std::string>() : "";
    // Three kinds of input, one --format: each kind's table has every name of the first (capture_diff's).
    const bool colour = io.where.colour && !to_file;
    const std::size_t width = io.where.width;
    std::string chart_link;  // markdown: the chart file to link, where one is written beside the diff
    const std::vector<printer<capture_diff>> capture_printers = {
        {"markdown", [&chart_link](const capture_diff& diff) { return render_diff_markdown(diff, chart_link); }},
        {"json", render_diff_json},
        {"terminal", [colour, width](const capture_diff& diff) { return render_diff_terminal(diff, colour, width); }},
        {"html", render_diff_html}};  // one page, the chart inline
    // A terminal gets the markdown of a ranks diff, as `timeline` does for ranks.
    const std::vector<printer<timeline::ranks_diff>> ranks_printers = {{"markdown", timeline::ranks_diff_markdown},
                                                                       {"json", timeline::ranks_diff_json},
                                                                       {"terminal", timeline::ranks_diff_markdown},
                                                                       {"html", timeline::ranks_diff_html}};
    const std::vector<printer<timeline::timeline_diff>> trace_printers = {
        {"markdown", timeline::timeline_diff_markdown},
        {"json", timeline::timeline_diff_json},
        {"terminal", timeline::timeline_diff_terminal},
        {"html", timeline::timeline_diff_html}};
    const std::string format = output_format(vm, printer_names(capture_printers), io);
    const write_policy policy = output_policy(vm, {vm["base"].as<std::string>(), vm["new"].as<std::string>()});
    const bool with_chart = to_file && format == "markdown" && !vm.count("no-chart");
    // The chart beside the diff, named after it (diff.md -> diff.svg).
    const std::string svg = !with_chart              ? std::string()
                            : ends_with(path, ".md") ? path.substr(0, path.size() - 3) + ".svg"
                                                     : path + ".svg";
    if (to_file) check_output(path, policy);
    if (with_chart) check_output(svg, policy);

    // Two whole-run traces: the timeline's diff (time per step, utilisation, idle time by cause, kernels).
    const std::string base_path = vm["base"].as<std::string>(), new_path = vm["new"].as<std::string>();
    // A missing file is missing, whatever kind it was meant to be (not "cannot open the trace" for a CSV).
    for (const auto& input_path : {base_path, new_path}) {
        std::error_code missing;
        if (!std::filesystem::exists(input_path, missing))
            throw input_error(error_code::io, input_path, 0, 0, "cannot open the file: no such file or folder");
    }
    // Two folders of traces: two runs of a job, rank by rank.
    std::error_code ec;
    const bool base_dir = std::filesystem::is_directory(base_path, ec),
               new_dir = std::filesystem::is_directory(new_path, ec);
    if (base_dir != new_dir)
        usage_error("diff compares two captures of one kind: " + (base_dir ? base_path : new_path) +
                    " is a folder (the ranks of a job) and " + (base_dir ? new_path : base_path) + " is not");
    if (base_dir) {
        const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
        const auto rd =
            timeline::diff_ranks(timeline::model_ranks(timeline::trace_files_in(base_path), 10'000, threads),
                                 timeline::model_ranks(timeline::trace_files_in(new_path), 10'000, threads),
                                 diff_settings.fail_if_slower_pct, diff_settings.noise_pct);
        emit_output(vm, print_as(ranks_printers, format, rd), policy, io);
        if (rd.gate_failed()) {
            io.err << "roofline: --fail-if-slower " << vm["fail-if-slower"].as<std::string>() << " failed\n";
            return 1;
        }
        return 0;
    }
    const bool base_trace = timeline::looks_like_trace(base_path), new_trace = timeline::looks_like_trace(new_path);
    if (base_trace != new_trace)
        usage_error("diff compares two captures of one kind: " + (base_trace ? base_path : new_path) +
                    " is a whole-run trace and " + (base_trace ? new_path : base_path) + " is not");
    if (base_trace) {
        const auto td = timeline::diff_traces(base_path, new_path, 10'000, diff_settings.fail_if_slower_pct,
                                              diff_settings.noise_pct);
        emit_output(vm, print_as(trace_printers, format, td), policy, io);
        if (td.gate_failed()) {
            io.err << "roofline: --fail-if-slower " << vm["fail-if-slower"].as<std::string>() << " failed\n";
            return 1;
        }
        return 0;
    }
    capture_diff result = diff_analyses(analyze_file(vm["base"].as<std::string>(), options),
                                        analyze_file(vm["new"].as<std::string>(), options), diff_settings);
    auto render = [&](const std::string& chart_file) {
        chart_link = chart_file;
        return print_as(capture_printers, format, result);
    };
    if (!to_file) {
        io.out << render("");
    } else if (with_chart) {
        // Both rendered before either is written.
        const std::string md =
            render(svg.substr(svg.find_last_of('/') == std::string::npos ? 0 : svg.find_last_of('/') + 1));
        const std::string chart = render_diff_chart(result);
        write_files_atomically(
            std::vector<std::pair<std::string, file_writer>>{{path, [&](std::ostream& out) { out << md; }},
                                                             {svg, [&](std::ostream& out) { out << chart; }}},
            policy);
        io.err << "roofline: wrote " << path << " and " << svg << "\n";
    } else {
        const std::string text = render("");
        write_files_atomically(
            std::vector<std::pair<std::string, file_writer>>{{path, [&](std::ostream& out) { out << text; }}}, policy);
        io.err << "roofline: wrote " << path << "\n";
    }
    // The warning and the gate's failures go to stderr too, unless the report that holds them is on stdout
    // for a person to read (JSON for a script, or a file, leaves stderr to say it).
    const bool said = !to_file && format != "json";
    if (!result.same_gpu && !said)
        io.err << "roofline: warning: the captures ran on different GPUs (" << result.base.gpu.name << ", "
               << result.next.gpu.name << "): a diff across GPUs is a projection, not a regression check\n";
    if (!said)
        for (const auto& warning : result.comparability) io.err << "roofline: warning: " << warning << "\n";
    if (result.gate_failed()) {
        io.err << "roofline: --fail-if-slower " << vm["fail-if-slower"].as<std::string>() << " failed"
               << (said ? "" : ":") << "\n";
        if (!said)
            for (const auto& failure : result.gate_failures) io.err << "  " << failure << "\n";
        return 1;
    }
    return 0;
}

}  // namespace roofline::cli
