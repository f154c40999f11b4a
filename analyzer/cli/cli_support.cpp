#include "analyzer/cli/cli_support.hpp"

#include "analyzer/base/input_error.hpp"

#include <algorithm>
#include <charconv>

namespace roofline::cli {

const char* const version = "roofline " ROOFLINE_VERSION;

const char* const exit_codes =
    "exit codes:\n"
    "  0  done\n"
    "  1  a regression gate failed: pairs --check found a verdict that differs from kernels/pairs.json\n"
    "  2  bad input or a bad command line: the message names the file, line and column; nothing is written\n"
    "  3  an internal error (a bug: please report it with the input)\n";

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

std::size_t whole_number(const po::variables_map& vm, const char* option, std::size_t least, std::size_t fallback) {
    if (!vm.count(option)) return fallback;
    const std::string text = vm[option].as<std::string>();
    std::size_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < least)
        usage_error(std::string("--") + option + " takes a whole number of " + std::to_string(least) + " or more, not \"" + text + "\"");
    return value;
}

}  // namespace roofline::cli
