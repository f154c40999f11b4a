// The command table (one row per subcommand, in the order the usage lists them), the console and
// dispatch. Each command lives in its own file and is declared in command_list.hpp.
#include "analyzer/cli/commands.hpp"

#include "analyzer/cli/cli_support.hpp"
#include "analyzer/cli/command_list.hpp"

#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::cli {

const std::vector<command>& commands() {
    static const std::vector<command> table = {
        {"analyze", "FILE", "place every kernel of an Nsight Compute CSV export on its GPU's roofline",
         "roofline analyze report.csv -o report.md", analyze_command},
        {"diff", "BASE NEW",
         "compare two captures of one program (before, after): time, roofline movement, findings; a CI gate",
         "roofline diff before.csv after.csv --fail-if-slower 5 -o diff.md", diff_command},
        {"triage", "FILE",
         "rank an Nsight Systems kernel summary by GPU time; the ncu commands that profile the top kernels",
         "roofline triage tests/data/nsys/training_step_kern_sum.csv --cover 80%", triage_command},
        {"timeline", "FILE",
         "a whole-run trace (PyTorch profiler): GPU busy time, idle gaps by cause, what fixing each would gain",
         "roofline timeline tests/data/timeline/planted.json", timeline_command},
        {"metrics", "", "the metrics the model and rule trees read: a list for ncu --metrics, or a section file",
         "roofline metrics --format section -o sections/roofline.section", metrics_command},
        {"gpus", "", "list the GPU specs the engine knows", "roofline gpus", gpus_command},
        {"pairs", "DIR", "the naive -> fixed validation table of kernels/ from a capture folder",
         "roofline pairs examples/h100 --check", pairs_command},
        {"lessons", "DIR", "one lesson page (markdown + SVG chart) per pair, into DIR/lessons",
         "roofline lessons examples/h100", lessons_command},
        {"calibrate", "DIR", "fit the practical share of each roof to a capture folder's pairs (for hwspecs)",
         "roofline calibrate examples/h200", calibrate_command},
        {"project", "FILE --to GPU",
         "each kernel's time on another GPU: same code, same traffic, same share of the practical peak",
         "roofline project examples/h100/kernels_raw.csv --to h200", project_command},
        {"rules", "", "list the diagnosis trees; --tree ID prints one with a mermaid diagram",
         "roofline rules --tree memory-access", rules_command},
        {"predict", "OP",
         "the floor time of an operation (gemm M=.. N=.. K=.., attention, softmax, ...) on a GPU, before it is written",
         "roofline predict gemm M=8192 N=8192 K=8192 dtype=fp16 --gpu h100-sxm", predict_command},
        {"explain", "NAME", "what a finding, a metric, a stall reason, a derived value or an error code means",
         "roofline explain uncoalesced-global", explain_command},
        {"completion", "bash",
         "a bash completion script from the commands' own option tables (cmake --install installs it)",
         "roofline completion bash", completion_command},
    };
    return table;
}

console make_console(bool stdout_terminal, bool stderr_terminal, std::size_t tty_columns, const char* term,
                     const char* no_color, const char* columns) {
    console result;
    result.stdout_terminal = stdout_terminal;
    result.stderr_terminal = stderr_terminal;
    result.colour = stdout_terminal && no_color == nullptr && !(term && std::string_view(term) == "dumb");
    std::size_t parsed_columns = 0;
    const std::string_view text = columns ? columns : "";
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed_columns);
    result.width = !text.empty() && ec == std::errc() && end == text.data() + text.size() && parsed_columns > 0
                       ? parsed_columns
                       : tty_columns;
    // Without a terminal or COLUMNS (a pipe, a log, a file), the terminal view keeps to 100 columns.
    if (result.width == 0) result.width = default_columns;
    return result;
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
    for (const auto& entry : commands())
        if (name == entry.name) return entry.run(args, io{out, err, where});
    std::vector<std::string> names;
    for (const auto& entry : commands()) names.push_back(entry.name);
    // With a near name, the suggestion is the answer; without one, the list of commands.
    const std::string near = did_you_mean(name, names);
    err << "roofline: unknown command \"" << name << "\"" << near
        << (near.empty() ? "\n\n" + top_usage() : std::string("\n(roofline --help lists the commands)\n"));
    return 2;
}

}  // namespace roofline::cli
