// `roofline triage`: an Nsight Systems kernel summary ranked by share of GPU time, and for the top
// kernels the ncu commands that profile just them with what the engine reads (an ncu_collection: the
// command line makes it from the rule trees' metric plan, analyzer/diagnose/metric_plan.hpp, which the
// timeline does not reach), then export and analyse each capture.
#pragma once

#include "analyzer/read/nsys_kernsum.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct triage_options {
    std::size_t top = 5;                     // profile this many kernels...
    std::optional<double> cover;             // ...or the fewest whose shares reach this fraction (0..1]
    std::optional<std::size_t> launch_skip;  // default: 1 where the kernel ran more than once, else 0
    std::size_t launch_count = 1;
    std::string app = "./app";   // the application's command line, as typed in a shell
    std::string section_folder;  // "": collect with --metrics; else --section-folder DIR --section roofline
};

// What the ncu commands collect: the --metrics list and the stock sections beside it.
struct ncu_collection {
    std::string metrics;  // comma-separated
    std::size_t metric_count = 0, required_count = 0;
    std::vector<std::string> section_only;  // derived__ metrics no --metrics can collect
    std::vector<std::string> sections;      // the stock sections that define them
};

struct triage_kernel {
    const nsys_kernel* kernel = nullptr;
    double share = 0.0;       // of the summed GPU time of every kernel
    double cumulative = 0.0;  // this one's and every larger one's
    std::string function;     // as ncu's --kernel-name-base function sees it
};

struct triage_command {
    std::size_t rank = 0;       // 1-based, in the ranking
    std::string kernel;         // the full name
    std::string name_base;      // "function", or "demangled" where another kernel has the same function name
    std::string kernel_filter;  // regex:^...$ (unquoted)
    std::size_t launch_skip = 0, launch_count = 1;
    std::string stem;                  // the capture's file name without extension
    std::vector<std::string> profile;  // ncu's arguments, unquoted, the application's command line last
    std::string profile_shell;         // the same, quoted for a POSIX shell ($METRICS for the metric list)
    std::string export_shell;          // ncu -i STEM.ncu-rep --csv --page raw > STEM.csv
    std::string analyze_shell;         // roofline analyze STEM.csv -o STEM.md
};

struct triage_plan {
    const nsys_kernsum* summary = nullptr;
    double total_ns = 0.0;
    std::vector<triage_kernel> ranked;  // by total time, largest first (ties: by name)
    std::size_t selected = 0;           // the first `selected` of ranked are profiled
    std::optional<double> cover;
    std::string metrics;  // the --metrics list (comma-separated)
    std::size_t metric_count = 0, required_count = 0;
    std::vector<std::string> section_only;  // derived__ metrics no --metrics can collect
    std::vector<std::string> sections;      // the stock sections that define them, added beside --metrics
    std::string section_folder;
    std::vector<triage_command> commands;
};

triage_plan make_triage(const nsys_kernsum& summary, const triage_options& options, const ncu_collection& collect);

std::string triage_markdown(const triage_plan& plan);
// The same document as one self-contained HTML page (render/document.hpp: no markdown is converted).
std::string triage_html(const triage_plan& plan);
std::string triage_terminal(const triage_plan& plan);
std::string triage_json(const triage_plan& plan);
// The shell script that profiles the selected kernels, exports and analyses each capture.
std::string triage_script(const triage_plan& plan);

// A word for a POSIX shell: as it is where it holds only characters no shell treats specially, else
// in single quotes, a single quote inside written '\''.
std::string shell_quote(const std::string& word);
// The text with every character an ECMAScript or POSIX extended regex treats specially escaped by a
// backslash, so the pattern matches it literally.
std::string regex_escape(const std::string& text);

}  // namespace roofline
