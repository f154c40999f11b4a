#include "analyzer/cli/commands.hpp"

#include "analyzer/pipeline/analysis.hpp"
#include "analyzer/base/atomic_file.hpp"
#include "analyzer/validate/calibrate.hpp"
#include "analyzer/report/chart_svg.hpp"
#include "analyzer/validate/lessons.hpp"
#include "analyzer/report/explain.hpp"
#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/validate/pairs_report.hpp"
#include "analyzer/base/format.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/diagnose/rule_tree.hpp"

#include <filesystem>
#include <functional>
#include <optional>

#include <boost/program_options.hpp>

#include <string>
#include <vector>

namespace roofline::cli {
namespace po = boost::program_options;

namespace {

constexpr const char* version = "roofline " ROOFLINE_VERSION;

constexpr const char* top_usage =
    "usage: roofline <command> [options]\n"
    "\n"
    "commands:\n"
    "  analyze FILE   place every kernel of an Nsight Compute CSV export on its GPU's roofline\n"
    "  gpus           list the GPU specs the engine knows\n"
    "  pairs DIR      the naive -> fixed validation table of kernels/ from a capture folder\n"
    "  lessons DIR    one lesson page (markdown + SVG chart) per pair, into DIR/lessons\n"
    "  calibrate DIR  fit the practical share of each roof to a capture folder's pairs (for hwspecs)\n"
    "  rules          list the diagnosis trees; --tree ID prints one with a mermaid diagram\n"
    "  explain NAME   what a finding, a metric, a stall reason, a derived value or an error code means\n"
    "\n"
    "Run `roofline <command> --help` for a command's options.\n";

[[noreturn]] void usage_error(const std::string& what) { throw input_error(error_code::usage, "roofline", 0, 0, what); }

po::variables_map parse(const po::options_description& visible, const po::positional_options_description& pos,
                        const std::vector<std::string>& args) {
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(visible).positional(pos).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        usage_error(e.what());
    }
    return vm;
}

int analyze_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const console& where) {
    po::options_description opts("roofline analyze FILE [options]\n\nFILE is an ncu --csv export (--page raw or details, --metrics, --print-summary per-kernel, or a live run's stdout); - reads stdin.\n\noptions");
    opts.add_options()
        ("help,h", "show this help")
        ("input", po::value<std::string>(), "the CSV export")
        ("output,o", po::value<std::string>(), "write the report here (written whole or not at all); stdout otherwise")
        ("format", po::value<std::string>()->default_value("auto"), "markdown, json or terminal (a compact table); auto: terminal when stdout is a terminal and no -o is given, markdown otherwise")
        ("no-chart", "with -o and markdown, do not write the SVG roofline chart beside the report")
        ("kernel-name,k", po::value<std::string>()->default_value(""), "analyse kernels whose name contains this text, or matches regex:EXPR")
        ("launch-skip", po::value<std::size_t>()->default_value(0), "skip this many matching launches first")
        ("launch-count", po::value<std::size_t>(), "analyse at most this many matching launches")
        ("gpu", po::value<std::string>()->default_value(""), "use this GPU spec (see `roofline gpus`) instead of detecting it")
        ("hwspecs", po::value<std::string>()->default_value(""), "a folder of extra or overriding GPU spec files (*.json)")
        ("rules", po::value<std::string>()->default_value(""), "a folder of extra or overriding rule trees (*.json, see rules/README.md)")
        ("numbers", po::value<std::string>()->default_value("auto"), "number style of the export: auto, point (1,234.5) or comma (1.234,5)");
    po::positional_options_description pos;
    pos.add("input", 1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) {
        out << opts << "\n";
        return 0;
    }
    if (!vm.count("input")) usage_error("analyze needs a CSV file (see roofline analyze --help)");
    analyze_options o;
    o.filter.kernel_name = vm["kernel-name"].as<std::string>();
    o.filter.launch_skip = vm["launch-skip"].as<std::size_t>();
    if (vm.count("launch-count")) o.filter.launch_count = vm["launch-count"].as<std::size_t>();
    o.gpu = vm["gpu"].as<std::string>();
    o.hwspecs_dir = vm["hwspecs"].as<std::string>();
    o.rules_dir = vm["rules"].as<std::string>();
    const std::string numbers = vm["numbers"].as<std::string>();
    if (numbers == "point") o.read.numbers = number_style::point;
    else if (numbers == "comma") o.read.numbers = number_style::comma;
    else if (numbers != "auto") usage_error("--numbers takes auto, point or comma, not \"" + numbers + "\"");
    std::string format = vm["format"].as<std::string>();
    if (format != "markdown" && format != "json" && format != "terminal" && format != "auto")
        usage_error("--format takes markdown, json, terminal or auto, not \"" + format + "\"");
    if (format == "auto") format = where.stdout_terminal && !vm.count("output") ? "terminal" : "markdown";

    // Progress on stderr for long inputs, only where a person watches it.
    bool progress_shown = false;
    if (where.stderr_terminal)
        o.progress = [&err, &progress_shown](std::size_t launches) {
            if (launches % 1000 != 0) return;
            err << "\rroofline: read " << launches << " launches" << std::flush;
            progress_shown = true;
        };
    analysis a = analyze_file(vm["input"].as<std::string>(), o);
    if (progress_shown) err << "\r\033[K" << std::flush;
    if (format == "terminal") {
        std::string text = render_terminal(a, where.colour && !vm.count("output"));  // no escape codes in a file
        if (vm.count("output")) write_file_atomically(vm["output"].as<std::string>(), text);
        else out << text;
        return 0;
    }
    if (vm.count("output") && format == "markdown" && !vm.count("no-chart")) {
        // The chart goes beside the report, named after it: report.md -> report.svg.
        const std::string path = vm["output"].as<std::string>();
        std::string svg = path.size() > 3 && path.compare(path.size() - 3, 3, ".md") == 0 ? path.substr(0, path.size() - 3) + ".svg" : path + ".svg";
        std::string text = render_markdown(a, svg.substr(svg.find_last_of('/') == std::string::npos ? 0 : svg.find_last_of('/') + 1));
        write_file_atomically(svg, render_chart_svg(a, build_chart(a)));
        write_file_atomically(path, text);
        err << "roofline: wrote " << path << " and " << svg << " (" << a.kernels.size() << (a.kernels.size() == 1 ? " kernel" : " kernels") << " on " << a.gpu.name << ")\n";
        return 0;
    }
    std::string text = format == "json" ? render_json(a) : render_markdown(a);
    if (vm.count("output")) {
        const std::string path = vm["output"].as<std::string>();
        write_file_atomically(path, text);
        err << "roofline: wrote " << path << " (" << a.kernels.size() << (a.kernels.size() == 1 ? " kernel" : " kernels") << " on " << a.gpu.name << ")\n";
    } else {
        out << text;
    }
    return 0;
}

// pairs, lessons and calibrate read a capture folder made by kernels/profile.sh and the pair
// definitions: the same options and the same first steps.
po::options_description folder_options(const std::string& usage, const char* output_help) {
    po::options_description opts(usage + "\n\noptions");
    opts.add_options()
        ("help,h", "show this help")
        ("dir", po::value<std::string>(), "the capture folder, e.g. examples/h100")
        ("pairs", po::value<std::string>()->default_value("kernels/pairs.json"), "the pair definitions")
        ("output,o", po::value<std::string>(), output_help);
    return opts;
}

// nullopt: --help was asked for and printed.
std::optional<po::variables_map> parse_folder(const po::options_description& opts, const std::vector<std::string>& args,
                                              std::ostream& out, const char* command) {
    po::positional_options_description pos;
    pos.add("dir", 1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) {
        out << opts << "\n";
        return std::nullopt;
    }
    if (!vm.count("dir")) usage_error(std::string(command) + " needs a capture folder (see roofline " + command + " --help)");
    return vm;
}

int pairs_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    auto opts = folder_options("roofline pairs DIR [options]\n\nDIR holds pairs_raw.csv and runner_timing.txt from kernels/profile.sh.",
                               "write the table here (e.g. DIR/PAIRS.md); stdout otherwise");
    opts.add_options()("check", "exit 1 when a verdict differs from pairs.json without a listed reason");
    auto parsed = parse_folder(opts, args, out, "pairs");
    if (!parsed) return 0;
    const auto& vm = *parsed;
    pairs_report r = build_pairs_report(vm["dir"].as<std::string>(), vm["pairs"].as<std::string>());
    std::string text = render_pairs_markdown(r);
    if (vm.count("output")) write_file_atomically(vm["output"].as<std::string>(), text);
    else out << text;
    for (const auto& p : r.problems) err << "roofline: " << p << "\n";
    return vm.count("check") && !r.problems.empty() ? 1 : 0;
}

int lessons_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    auto parsed = parse_folder(folder_options("roofline lessons DIR [options]\n\nDIR holds pairs_raw.csv and runner_timing.txt from kernels/profile.sh.",
                                              "the folder to write into (created if missing); DIR/lessons by default"),
                               args, out, "lessons");
    if (!parsed) return 0;
    const auto& vm = *parsed;
    const std::string dir = vm["dir"].as<std::string>();
    const std::string into = vm.count("output") ? vm["output"].as<std::string>() : dir + "/lessons";
    pairs_report r = build_pairs_report(dir, vm["pairs"].as<std::string>());
    auto files = render_lessons(r, dir);  // everything rendered before anything is written
    std::error_code ec;
    std::filesystem::create_directories(into, ec);
    if (ec) throw input_error(error_code::io, into, 0, 0, "cannot create the folder: " + ec.message());
    for (const auto& [name, text] : files) write_file_atomically(into + "/" + name, text);
    err << "roofline: wrote " << files.size() << " files into " << into << "\n";
    return 0;
}

int calibrate_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    auto parsed = parse_folder(folder_options("roofline calibrate DIR [options]\n\nDIR holds pairs_raw.csv from kernels/profile.sh.",
                                              "write the fit here; stdout otherwise"),
                               args, out, "calibrate");
    if (!parsed) return 0;
    const auto& vm = *parsed;
    const std::string dir = vm["dir"].as<std::string>();
    pairs_report r = build_pairs_report(dir, vm["pairs"].as<std::string>());
    std::string text = render_calibration(r, fit_practical_shares(calibration_samples(r)), dir);
    if (vm.count("output")) {
        write_file_atomically(vm["output"].as<std::string>(), text);
        err << "roofline: wrote " << vm["output"].as<std::string>() << "\n";
    } else {
        out << text;
    }
    return 0;
}

// Mermaid ids cannot hold '-'.
std::string mermaid_id(std::string s) {
    for (auto& c : s)
        if (c == '-') c = '_';
    return s;
}

void tree_markdown(std::ostream& out, const rules::rule_tree& t) {
    out << "# " << t.title << " (`" << t.id << "`, " << t.file << ")\n\n" << t.description << "\n\n```mermaid\nflowchart TD\n";
    std::function<void(const rules::rule_node&, const std::string&)> edges = [&](const rules::rule_node& n, const std::string& parent) {
        out << "  " << mermaid_id(n.id) << "[\"" << n.title << (n.finding.empty() ? "" : " (" + n.finding + ")") << "\"]\n";
        if (!parent.empty()) out << "  " << mermaid_id(parent) << " --> " << mermaid_id(n.id) << "\n";
        for (const auto& c : n.children) edges(c, n.id);
    };
    for (const auto& r : t.roots) edges(r, "");
    out << "```\n";
    std::function<void(const rules::rule_node&, int)> nodes = [&](const rules::rule_node& n, int depth) {
        out << "\n" << std::string(std::size_t(depth) + 2, '#') << " " << n.title << " (`" << n.id << "`)\n\n";
        out << "- When: `" << n.when.text() << "`\n";
        if (!n.finding.empty()) out << "- Finding: `" << n.finding << "`\n";
        for (const auto& e : n.evidence) out << "- Evidence: `" << e.text() << "`\n";
        out << "- Why: " << n.explain << "\n";
        for (const auto& f : n.fixes) out << "- Fix" << (f.when ? " (when `" + f.when->text() + "`)" : std::string()) << ": " << f.text << "\n";
        for (const auto& c : n.children) nodes(c, depth + 1);
    };
    for (const auto& r : t.roots) nodes(r, 0);
}

int rules_command(const std::vector<std::string>& args, std::ostream& out) {
    po::options_description opts("roofline rules [--tree ID] [options]\n\noptions");
    opts.add_options()("help,h", "show this help")("tree", po::value<std::string>(), "print one tree as markdown with a mermaid diagram")(
        "rules", po::value<std::string>()->default_value(""), "a folder of extra or overriding rule trees");
    auto vm = parse(opts, {}, args);
    if (vm.count("help")) {
        out << opts << "\n";
        return 0;
    }
    auto trees = rules::load_rule_trees(vm["rules"].as<std::string>());
    if (vm.count("tree")) {
        for (const auto& t : trees)
            if (t.id == vm["tree"].as<std::string>()) {
                tree_markdown(out, t);
                return 0;
            }
        usage_error("no rule tree \"" + vm["tree"].as<std::string>() + "\" (see roofline rules)");
    }
    out << "| tree | title | findings | file |\n|---|---|---|---|\n";
    for (const auto& t : trees) {
        std::string findings;
        std::function<void(const rules::rule_node&)> collect = [&](const rules::rule_node& n) {
            if (!n.finding.empty()) findings += (findings.empty() ? "" : ", ") + n.finding;
            for (const auto& c : n.children) collect(c);
        };
        for (const auto& r : t.roots) collect(r);
        out << "| " << t.id << " | " << t.title << " | " << findings << " | " << t.file << " |\n";
    }
    return 0;
}

int explain_command(const std::vector<std::string>& args, std::ostream& out) {
    po::options_description opts("roofline explain NAME [options]\n\nNAME: a finding id (uncoalesced-global), an ncu metric the model reads, a stall reason\n(long_scoreboard), a derived value (util_dram) or an error code (bad_number).\n\noptions");
    opts.add_options()("help,h", "show this help")("name", po::value<std::string>(), "what to explain")(
        "rules", po::value<std::string>()->default_value(""), "a folder of extra or overriding rule trees")(
        "catalogue", "print the metric catalogue as markdown (docs/metrics.md)");
    po::positional_options_description pos;
    pos.add("name", 1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) {
        out << opts << "\n";
        return 0;
    }
    if (vm.count("catalogue")) {
        out << metric_catalogue_markdown();
        return 0;
    }
    if (!vm.count("name")) usage_error("explain needs a name (see roofline explain --help)");
    auto text = explain(vm["name"].as<std::string>(), rules::load_rule_trees(vm["rules"].as<std::string>()));
    if (!text) usage_error("nothing is known as \"" + vm["name"].as<std::string>() + "\": try a finding id from `roofline rules`, a stall reason, or an ncu metric id");
    out << *text;
    return 0;
}

int gpus_command(const std::vector<std::string>& args, std::ostream& out) {
    po::options_description opts("roofline gpus [options]\n\noptions");
    opts.add_options()("help,h", "show this help")(
        "hwspecs", po::value<std::string>()->default_value(""), "a folder of extra or overriding GPU spec files (*.json)");
    auto vm = parse(opts, {}, args);
    if (vm.count("help")) {
        out << opts << "\n";
        return 0;
    }
    auto specs = load_gpu_specs(vm["hwspecs"].as<std::string>());
    out << "| id | name | CC | SMs | FP32 TFLOP/s | dense FP16 tensor TFLOP/s | DRAM TB/s | spec file |\n|---|---|---|---|---|---|---|---|\n";
    auto v = [](const sourced_number& n) { return n.value ? format_number(*n.value) : std::string("-"); };
    for (const auto& s : specs)
        out << "| " << s.id << " | " << s.name << " | " << s.compute_capability << " | " << v(s.sm_count) << " | "
            << v(s.peaks_tflops.at("fp32")) << " | " << v(s.peaks_tflops.at("tensor_fp16")) << " | " << v(s.dram_bandwidth_tbs)
            << " | " << s.file << " |\n";
    return 0;
}

}  // namespace

int run(int argc, char** argv, std::ostream& out, std::ostream& err, const console& where) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        err << top_usage;
        return 2;
    }
    std::string command = args.front();
    args.erase(args.begin());
    if (command == "--help" || command == "-h" || command == "help") {
        out << top_usage;
        return 0;
    }
    if (command == "--version") {
        out << version << "\n";
        return 0;
    }
    if (command == "analyze") return analyze_command(args, out, err, where);
    if (command == "gpus") return gpus_command(args, out);
    if (command == "pairs") return pairs_command(args, out, err);
    if (command == "calibrate") return calibrate_command(args, out, err);
    if (command == "lessons") return lessons_command(args, out, err);
    if (command == "rules") return rules_command(args, out);
    if (command == "explain") return explain_command(args, out);
    err << "roofline: unknown command \"" << command << "\"\n\n" << top_usage;
    return 2;
}

}  // namespace roofline::cli
