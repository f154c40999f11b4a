// What every subcommand shares: its streams, the command table's row, option parsing, usage errors
// and "did you mean" (analyzer/base/did_you_mean.hpp). A command lives in a file of its own
// (analyzer/cli/*_command.cpp), is declared in command_list.hpp and has one row in commands()
// (commands.cpp).
#pragma once

#include "analyzer/diagnose/metric_plan.hpp"
#include "analyzer/timeline/triage.hpp"

#include "analyzer/base/atomic_file.hpp"
#include "analyzer/cli/commands.hpp"
#include "analyzer/pipeline/analysis.hpp"
#include "analyzer/render/format_table.hpp"

// did_you_mean and edit_distance: every command suggests with them.
#include "analyzer/base/did_you_mean.hpp"

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace roofline::cli {
namespace po = boost::program_options;

extern const char* const version;     // "roofline 0.1.0"
extern const char* const exit_codes;  // the exit-code table every --help ends with

// What a command reads and writes.
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

// The top-level usage: every command with its summary and example, then the exit codes.
std::string top_usage();

// A command's --help: its options, its example and the exit codes. Returns 0.
int help(const io& io, const po::options_description& opts, const char* name);

// The format an output file's extension names: markdown (.md), json (.json), terminal (.txt), svg
// (.svg), html (.html, .htm) or section (.section, an ncu section file); "" for any other.
std::string format_of_extension(const std::string& path);

// Where every command's output format is decided (one place): --format when it is not auto (one of
// `names`, else a usage error with the nearest); else -o's extension, where it names one of `names`;
// else the command's own default where --format has one (metrics: list), else the terminal view on a
// terminal and markdown elsewhere. A --format given that contradicts -o's extension is an error: the
// file would lie about its contents.
std::string output_format(const po::variables_map& vm, const std::vector<std::string>& names, const io& io);

// A command-line mistake: input_error(usage) located at "roofline".
[[noreturn]] void usage_error(const std::string& what);

// boost's parse, with its errors turned into usage errors, a misspelt option with the nearest one
// ("--formt": did you mean "--format"?). A command with -o also takes -f/--force (with_output_options).
po::variables_map parse(const po::options_description& visible, const po::positional_options_description& pos,
                        const std::vector<std::string>& args);

// The options as parse and help see them: `visible`, plus -f/--force where the command has -o.
po::options_description with_output_options(const po::options_description& visible);

// What the command's files may write over: the -o file only with -f, never one of `inputs` (the files
// the command reads). Commands call check_output(path, policy) before their work.
write_policy output_policy(const po::variables_map& vm, std::vector<std::string> inputs);

// A command's one text: to -o (written whole, by `policy`, and said on stderr) or to stdout.
void emit_output(const po::variables_map& vm, const std::string& text, const write_policy& policy, const io& io);

// A whole number of at least `least` for `option` (given as a string option), or a usage error naming
// it; `fallback` when the option is absent. boost would take "-1" for a size_t as 2^64-1.
std::size_t whole_number(const po::variables_map& vm, const char* option, std::size_t least, std::size_t fallback);

// The options that say how a capture is read and modelled, as analyze takes them (-k,
// --kernel-name-base, --launch-skip, --launch-count, --gpu, --gpu-override, --device, --hwspecs,
// --rules, --numbers): analyze and diff share them.
void add_capture_options(po::options_description& opts);
// Those options as analyze_options; usage errors for bad values, an unknown --gpu (with the nearest id).
analyze_options capture_options(const po::variables_map& vm);

// What triage's and the timeline's ncu commands collect: the metric plan of the rule trees, as the
// timeline (which does not reach the rule trees) takes it.
ncu_collection collection_of(const diagnose::metric_plan& plan);

}  // namespace roofline::cli
