#include "analyzer/cli/commands.hpp"

#include "analyzer/base/atomic_file.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/diagnose/rule_tree.hpp"
#include "analyzer/pipeline/analysis.hpp"
#include "analyzer/report/chart_svg.hpp"
#include "analyzer/report/explain.hpp"
#include "analyzer/report/reference.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/validate/calibrate.hpp"
#include "analyzer/validate/lessons.hpp"
#include "analyzer/validate/pairs_report.hpp"

#include "models/gpu_spec.hpp"

#include <algorithm>
#include <charconv>
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

// What a command reads and writes, for its --help and the top-level usage.
struct io {
    std::ostream& out;
    std::ostream& err;
    const console& where;
};

struct command {
    const char* name;
    const char* args;     // "FILE"
    const char* summary;  // one line
    const char* example;  // one command line a user can copy
    int (*run)(const std::vector<std::string>& args, const io& io);
};

const std::vector<command>& commands();

constexpr const char* exit_codes =
    "exit codes:\n"
    "  0  done\n"
    "  1  a regression gate failed: pairs --check found a verdict that differs from kernels/pairs.json\n"
    "  2  bad input or a bad command line: the message names the file, line and column; nothing is written\n"
    "  3  an internal error (a bug: please report it with the input)\n";

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// " (did you mean \"x\"?)" for the closest of `known` when it is close enough to be a typo (at most a
// third of the word's letters, at least 2) or the word is a prefix of it; "" otherwise.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& known) {
    std::string best;
    std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
    for (const auto& k : known) {
        const std::size_t d = k.rfind(word, 0) == 0 && !word.empty() ? 1 : edit_distance(word, k);
        if (d < best_distance) best_distance = d, best = k;
    }
    return best.empty() ? "" : "; did you mean \"" + best + "\"?";
}

std::string top_usage() {
    std::string s = "usage: roofline <command> [options]\n       roofline --help | --version\n\ncommands:\n";
    for (const auto& c : commands()) {
        std::string head = std::string(c.name) + (*c.args ? std::string(" ") + c.args : "");
        s += "  " + head + std::string(head.size() < 15 ? 15 - head.size() : 1, ' ') + c.summary + "\n";
    }
    s += "\nexamples:\n";
    for (const auto& c : commands()) s += "  " + std::string(c.example) + "\n";
    s += "\noptions:\n  -h, --help     this help (`roofline <command> --help` for a command's options)\n"
         "  --version      print the version (" +
         std::string(version) + ")\n";
    return s + "\n" + exit_codes;
}

// A command's --help: its options, an example and the exit codes.
int help(const io& io, const po::options_description& opts, const char* name) {
    io.out << opts << "\n";
    for (const auto& c : commands())
        if (std::string(c.name) == name) io.out << "example:\n  " << c.example << "\n\n";
    io.out << exit_codes;
    return 0;
}

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

// A whole number of at least `least` for `option`, or a usage error naming it: boost would take
// "-1" for a size_t as 2^64-1.
std::size_t whole_number(const po::variables_map& vm, const char* option, std::size_t least, std::size_t fallback) {
    if (!vm.count(option)) return fallback;
    const std::string text = vm[option].as<std::string>();
    std::size_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < least)
        usage_error(std::string("--") + option + " takes a whole number of " + std::to_string(least) + " or more, not \"" + text + "\"");
    return value;
}

// The format an output file's extension asks for (report.json -> json), or nullptr when it names none.
const report_format* format_of_extension(const std::string& path) {
    const std::string file = std::filesystem::path(path).filename().string();
    for (const auto& f : report_formats()) {
        const std::string ext = f.extension;
        if (file.size() > ext.size() && file.compare(file.size() - ext.size(), ext.size(), ext) == 0) return &f;
    }
    return nullptr;
}

std::string kernels_on(const analysis& a) {
    return std::to_string(a.kernels.size()) + (a.kernels.size() == 1 ? " kernel" : " kernels") + " on " + a.gpu.name;
}

int analyze_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts(
        "roofline analyze FILE [options]\n\nFILE is an ncu --csv export (--page raw or details, --metrics, --print-summary per-kernel, or "
        "a live run's stdout); - reads stdin.\n\noptions");
    const std::string formats =
        report_format_names() +
        " (svg: the roofline chart alone); auto: what -o's extension says (.md, .json, .txt, .svg), else terminal when stdout is a "
        "terminal, markdown otherwise. A --format that contradicts -o's extension is an error";
    opts.add_options()("help,h", "show this help")("input", po::value<std::string>(), "the CSV export")(
        "output,o", po::value<std::string>(), "write the report here (written whole or not at all); stdout otherwise")(
        "format", po::value<std::string>()->default_value("auto"), formats.c_str())("top", po::value<std::string>(),
                                                                                    "terminal: show the N longest kernels (default 15)")(
        "no-chart", "with -o and markdown, do not write the SVG roofline chart beside the report")(
        "kernel-name,k", po::value<std::string>()->default_value(""),
        "analyse kernels whose name (the one --kernel-name-base picks) contains this text, or matches regex:EXPR; ncu "
        "matches a plain name exactly, roofline as a substring")(
        "kernel-name-base", po::value<std::string>()->default_value("function"),
        "what -k matches, as ncu's option: function (the function name: transpose_smem), demangled (the whole signature: "
        "void transpose_smem<1>(const float *, float *, int)) or mangled (_Z..., only in exports made with --print-kernel-base "
        "mangled)")("launch-skip", po::value<std::string>(), "skip this many matching launches first (default 0)")(
        "launch-count", po::value<std::string>(), "analyse at most this many matching launches (1 or more)")(
        "gpu", po::value<std::string>()->default_value(""), "use this GPU spec (see `roofline gpus`) instead of detecting it")(
        "gpu-override", "let --gpu name a GPU other than the one the capture says it ran on")(
        "device", po::value<std::string>()->default_value(""),
        "analyse only the launches of this device (ncu's Device column), for a capture of several GPUs")(
        "hwspecs", po::value<std::string>()->default_value(""), "a folder of extra or overriding GPU spec files (*.json)")(
        "rules", po::value<std::string>()->default_value(""), "a folder of extra or overriding rule trees (*.json, see rules/README.md)")(
        "numbers", po::value<std::string>()->default_value("auto"), "number style of the export: auto, point (1,234.5) or comma (1.234,5)");
    po::positional_options_description pos;
    pos.add("input", 1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) return help(io, opts, "analyze");
    if (!vm.count("input")) usage_error("analyze needs a CSV file (see roofline analyze --help)");
    analyze_options o;
    o.filter.kernel_name = vm["kernel-name"].as<std::string>();
    const std::string base = vm["kernel-name-base"].as<std::string>();
    if (base == "function")
        o.filter.base = kernel_name_base::function;
    else if (base == "demangled")
        o.filter.base = kernel_name_base::demangled;
    else if (base == "mangled")
        o.filter.base = kernel_name_base::mangled;
    else
        usage_error("--kernel-name-base takes function, demangled or mangled, not \"" + base + "\"" +
                    did_you_mean(base, {"function", "demangled", "mangled"}));
    o.filter.launch_skip = whole_number(vm, "launch-skip", 0, 0);
    if (vm.count("launch-count")) o.filter.launch_count = whole_number(vm, "launch-count", 1, 0);
    const std::size_t top = whole_number(vm, "top", 1, print_options{}.top);
    o.gpu = vm["gpu"].as<std::string>();
    o.gpu_override = vm.count("gpu-override") != 0;
    o.device = vm["device"].as<std::string>();
    o.hwspecs_dir = vm["hwspecs"].as<std::string>();
    if (!o.gpu.empty()) {  // a typo is caught before the input is read, with the nearest id
        std::vector<std::string> ids;
        for (const auto& g : load_gpu_specs(o.hwspecs_dir)) ids.push_back(g.id);
        if (std::find(ids.begin(), ids.end(), o.gpu) == ids.end()) {
            std::string known;
            for (const auto& id : ids) known += (known.empty() ? "" : ", ") + id;
            throw input_error(error_code::unknown_gpu, "--gpu", 0, 0,
                              "\"" + o.gpu + "\" names no known GPU" + did_you_mean(o.gpu, ids) + " (known: " + known + ")");
        }
    }
    o.rules_dir = vm["rules"].as<std::string>();
    const std::string numbers = vm["numbers"].as<std::string>();
    if (numbers == "point")
        o.read.numbers = number_style::point;
    else if (numbers == "comma")
        o.read.numbers = number_style::comma;
    else if (numbers != "auto")
        usage_error("--numbers takes auto, point or comma, not \"" + numbers + "\"");
    // The format: --format when given; else -o's extension (.md, .json, .txt, .svg); else the
    // terminal view on a terminal and markdown elsewhere. An explicit --format that contradicts a
    // known extension (-o r.json --format markdown) is an error: the file would lie about its contents.
    std::string format_name = vm["format"].as<std::string>();
    const bool to_file = vm.count("output") != 0;
    const report_format* by_extension = to_file ? format_of_extension(vm["output"].as<std::string>()) : nullptr;
    if (format_name != "auto" && !find_report_format(format_name))
        usage_error("--format takes " + report_format_names() + " or auto, not \"" + format_name + "\"");
    if (format_name != "auto" && by_extension && format_name != by_extension->name)
        usage_error("-o " + vm["output"].as<std::string>() + " asks for " + by_extension->name + " by its extension, but --format is " +
                    format_name + "; drop --format or give the file a " + find_report_format(format_name)->extension + " extension");
    if (format_name == "auto")
        format_name = by_extension ? by_extension->name : io.where.stdout_terminal && !to_file ? "terminal" : "markdown";
    const report_format* format = find_report_format(format_name);

    // Progress on stderr for long inputs, only where a person watches it.
    bool progress_shown = false;
    if (io.where.stderr_terminal)
        o.progress = [&io, &progress_shown](std::size_t launches) {
            if (launches % 1000 != 0) return;
            io.err << "\rroofline: read " << launches << " launches" << std::flush;
            progress_shown = true;
        };
    analysis a = analyze_file(vm["input"].as<std::string>(), o);
    if (progress_shown) io.err << "\r\033[K" << std::flush;
    print_options p;
    p.colour = io.where.colour && !to_file;  // no escape codes in a file
    p.top = top;
    p.width = io.where.width;
    if (!to_file) {
        format->write(a, p, io.out);
        return 0;
    }
    const std::string path = vm["output"].as<std::string>();
    if (format_name == "markdown" && !vm.count("no-chart")) {
        // The chart goes beside the report, named after it: report.md -> report.svg. Everything is
        // rendered before anything is written.
        std::string svg =
            path.size() > 3 && path.compare(path.size() - 3, 3, ".md") == 0 ? path.substr(0, path.size() - 3) + ".svg" : path + ".svg";
        p.chart_file = svg.substr(svg.find_last_of('/') == std::string::npos ? 0 : svg.find_last_of('/') + 1);
        write_files_atomically(std::vector<std::pair<std::string, file_writer>>{
            {path, [&](std::ostream& out) { format->write(a, p, out); }}, {svg, [&](std::ostream& out) { out << render_chart(a, p); }}});
        io.err << "roofline: wrote " << path << " and " << svg << " (" << kernels_on(a) << ")\n";
        return 0;
    }
    write_files_atomically(std::vector<std::pair<std::string, file_writer>>{{path, [&](std::ostream& out) { format->write(a, p, out); }}});
    if (format_name != "terminal") io.err << "roofline: wrote " << path << " (" << kernels_on(a) << ")\n";
    return 0;
}

// pairs, lessons and calibrate read a capture folder made by kernels/profile.sh and the pair
// definitions: the same options and the same first steps.
po::options_description folder_options(const std::string& usage, const char* output_help) {
    po::options_description opts(usage + "\n\noptions");
    opts.add_options()("help,h", "show this help")("dir", po::value<std::string>(), "the capture folder, e.g. examples/h100")(
        "pairs", po::value<std::string>(),
        "the pair definitions (default: kernels/pairs.json of the source tree, wherever roofline runs from)")(
        "output,o", po::value<std::string>(), output_help);
    return opts;
}

// nullopt: --help was asked for and printed.
std::optional<po::variables_map> parse_folder(const po::options_description& opts, const std::vector<std::string>& args, const io& io,
                                              const char* command) {
    po::positional_options_description pos;
    pos.add("dir", 1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) {
        help(io, opts, command);
        return std::nullopt;
    }
    if (!vm.count("dir")) usage_error(std::string(command) + " needs a capture folder (see roofline " + command + " --help)");
    return vm;
}

std::string pairs_file(const po::variables_map& vm) {
    return vm.count("pairs") ? vm["pairs"].as<std::string>() : std::string(ROOFLINE_SOURCE_DIR) + "/kernels/pairs.json";
}

int pairs_command(const std::vector<std::string>& args, const io& io) {
    auto opts = folder_options("roofline pairs DIR [options]\n\nDIR holds pairs_raw.csv and runner_timing.txt from kernels/profile.sh.",
                               "write the table here (e.g. DIR/PAIRS.md); stdout otherwise");
    opts.add_options()("check", "exit 1 when a verdict differs from pairs.json without a listed reason");
    auto parsed = parse_folder(opts, args, io, "pairs");
    if (!parsed) return 0;
    const auto& vm = *parsed;
    pairs_report r = build_pairs_report(vm["dir"].as<std::string>(), pairs_file(vm));
    std::string text = render_pairs_markdown(r);
    if (vm.count("output"))
        write_file_atomically(vm["output"].as<std::string>(), text);
    else
        io.out << text;
    for (const auto& p : r.problems) io.err << "roofline: " << p << "\n";
    return vm.count("check") && !r.problems.empty() ? 1 : 0;
}

int lessons_command(const std::vector<std::string>& args, const io& io) {
    auto parsed = parse_folder(
        folder_options("roofline lessons DIR [options]\n\nDIR holds pairs_raw.csv and runner_timing.txt from kernels/profile.sh.",
                       "the folder to write into (created if missing); DIR/lessons by default"),
        args, io, "lessons");
    if (!parsed) return 0;
    const auto& vm = *parsed;
    const std::string dir = vm["dir"].as<std::string>();
    const std::string into = vm.count("output") ? vm["output"].as<std::string>() : dir + "/lessons";
    pairs_report r = build_pairs_report(dir, pairs_file(vm));
    auto files = render_lessons(r, dir);  // everything rendered before anything is written
    std::error_code ec;
    std::filesystem::create_directories(into, ec);
    if (ec) throw input_error(error_code::io, into, 0, 0, "cannot create the folder: " + ec.message());
    for (auto& [name, text] : files) name = into + "/" + name;
    write_files_atomically(files);
    io.err << "roofline: wrote " << files.size() << " files into " << into << "\n";
    return 0;
}

int calibrate_command(const std::vector<std::string>& args, const io& io) {
    auto parsed = parse_folder(folder_options("roofline calibrate DIR [options]\n\nDIR holds pairs_raw.csv from kernels/profile.sh.",
                                              "write the fit here; stdout otherwise"),
                               args, io, "calibrate");
    if (!parsed) return 0;
    const auto& vm = *parsed;
    const std::string dir = vm["dir"].as<std::string>();
    pairs_report r = build_pairs_report(dir, pairs_file(vm));
    std::string text = render_calibration(r, fit_practical_shares(calibration_samples(r)), dir);
    if (vm.count("output")) {
        write_file_atomically(vm["output"].as<std::string>(), text);
        io.err << "roofline: wrote " << vm["output"].as<std::string>() << "\n";
    } else {
        io.out << text;
    }
    return 0;
}

int rules_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts("roofline rules [--tree ID] [options]\n\noptions");
    opts.add_options()("help,h", "show this help")("tree", po::value<std::string>(), "print one tree as markdown with a mermaid diagram")(
        "rules", po::value<std::string>()->default_value(""), "a folder of extra or overriding rule trees");
    auto vm = parse(opts, {}, args);
    if (vm.count("help")) return help(io, opts, "rules");
    auto trees = rules::load_rule_trees(vm["rules"].as<std::string>());
    if (!vm.count("tree")) {
        io.out << rule_trees_markdown(trees);
        return 0;
    }
    std::vector<std::string> ids;
    for (const auto& t : trees) {
        if (t.id == vm["tree"].as<std::string>()) {
            io.out << rule_tree_markdown(t);
            return 0;
        }
        ids.push_back(t.id);
    }
    usage_error("no rule tree \"" + vm["tree"].as<std::string>() + "\"" + did_you_mean(vm["tree"].as<std::string>(), ids) +
                " (see roofline rules)");
}

int explain_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts(
        "roofline explain NAME [options]\n\nNAME: a finding id (uncoalesced-global), an ncu metric the model reads, a stall "
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
    const auto trees = rules::load_rule_trees(vm["rules"].as<std::string>());
    auto text = explain(vm["name"].as<std::string>(), trees);
    if (!text) {
        // The names a typo most likely meant: finding ids and tree ids.
        std::vector<std::string> known;
        std::function<void(const rules::rule_node&)> add = [&](const rules::rule_node& n) {
            if (!n.finding.empty()) known.push_back(n.finding);
            for (const auto& c : n.children) add(c);
        };
        for (const auto& t : trees) {
            known.push_back(t.id);
            for (const auto& r : t.roots) add(r);
        }
        usage_error("nothing is known as \"" + vm["name"].as<std::string>() + "\"" + did_you_mean(vm["name"].as<std::string>(), known) +
                    ": try a finding id from `roofline rules`, a stall reason, or an ncu metric id");
    }
    io.out << *text;
    return 0;
}

int gpus_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts("roofline gpus [options]\n\noptions");
    opts.add_options()("help,h", "show this help")("hwspecs", po::value<std::string>()->default_value(""),
                                                   "a folder of extra or overriding GPU spec files (*.json)");
    auto vm = parse(opts, {}, args);
    if (vm.count("help")) return help(io, opts, "gpus");
    io.out << gpu_specs_markdown(load_gpu_specs(vm["hwspecs"].as<std::string>()));
    return 0;
}

const std::vector<command>& commands() {
    static const std::vector<command> table = {
        {"analyze", "FILE", "place every kernel of an Nsight Compute CSV export on its GPU's roofline",
         "roofline analyze report.csv -o report.md", analyze_command},
        {"gpus", "", "list the GPU specs the engine knows", "roofline gpus", gpus_command},
        {"pairs", "DIR", "the naive -> fixed validation table of kernels/ from a capture folder", "roofline pairs examples/h100 --check",
         pairs_command},
        {"lessons", "DIR", "one lesson page (markdown + SVG chart) per pair, into DIR/lessons", "roofline lessons examples/h100",
         lessons_command},
        {"calibrate", "DIR", "fit the practical share of each roof to a capture folder's pairs (for hwspecs)",
         "roofline calibrate examples/h200", calibrate_command},
        {"rules", "", "list the diagnosis trees; --tree ID prints one with a mermaid diagram", "roofline rules --tree memory-access",
         rules_command},
        {"explain", "NAME", "what a finding, a metric, a stall reason, a derived value or an error code means",
         "roofline explain uncoalesced-global", explain_command},
    };
    return table;
}

}  // namespace

console make_console(bool stdout_terminal, bool stderr_terminal, std::size_t tty_columns, const char* term, const char* no_color,
                     const char* columns) {
    console c;
    c.stdout_terminal = stdout_terminal;
    c.stderr_terminal = stderr_terminal;
    c.colour = stdout_terminal && no_color == nullptr && !(term && std::string_view(term) == "dumb");
    std::size_t n = 0;
    const std::string_view text = columns ? columns : "";
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    c.width = !text.empty() && ec == std::errc() && end == text.data() + text.size() && n > 0 ? n : tty_columns;
    return c;
}

int run(int argc, char** argv, std::ostream& out, std::ostream& err, const console& where) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        err << top_usage();
        return 2;
    }
    std::string name = args.front();
    args.erase(args.begin());
    if (name == "--help" || name == "-h" || name == "help") {
        out << top_usage();
        return 0;
    }
    if (name == "--version") {
        out << version << "\n";
        return 0;
    }
    for (const auto& c : commands())
        if (name == c.name) return c.run(args, io{out, err, where});
    std::vector<std::string> names;
    for (const auto& c : commands()) names.push_back(c.name);
    err << "roofline: unknown command \"" << name << "\"" << did_you_mean(name, names) << "\n\n" << top_usage();
    return 2;
}

}  // namespace roofline::cli
