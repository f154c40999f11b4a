// roofline completion bash: a bash completion script made from the commands' own option tables (each
// command's --help, which prints them), so it never drifts from the options. cmake --install puts it
// where bash-completion finds it.
#include "analyzer/cli/command_list.hpp"

#include <regex>
#include <set>
#include <sstream>

namespace roofline::cli {
namespace {

// The long and short options a command's --help lists.
std::string options_of(const command& cmd) {
    std::ostringstream help, err;
    const console quiet;
    cmd.run({"--help"}, io{help, err, quiet});
    std::string text = help.str();
    text = text.substr(0, text.find("\nexample:"));
    // boost writes one option a line, at the line's start: "  -k [ --kernel-name ] arg" or "  --format arg";
    // options named inside the descriptions are not the command's.
    std::set<std::string> found;
    static const std::regex option(R"(^  (?:-([a-zA-Z]) \[ --([a-z][a-z0-9-]*) \]|--([a-z][a-z0-9-]*)))");
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::smatch match;
        if (!std::regex_search(line, match, option)) continue;
        if (match[1].matched) found.insert("-" + match[1].str());
        found.insert("--" + (match[2].matched ? match[2].str() : match[3].str()));
    }
    std::string out;
    for (const auto& option_name : found) out += (out.empty() ? "" : " ") + option_name;
    return out;
}

std::string bash_script() {
    std::ostringstream script;
    script << "# bash completion for roofline (made by `roofline completion bash` from the commands' option tables)\n"
              "_roofline() {\n"
              "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" cmd=\"${COMP_WORDS[1]}\" opts=\"\"\n"
              "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
              "        COMPREPLY=($(compgen -W \"";
    std::string names;
    for (const auto& cmd : commands()) names += (names.empty() ? "" : " ") + std::string(cmd.name);
    script << names
           << " --help --version\" -- \"$cur\"))\n"
              "        return\n"
              "    fi\n"
              "    case \"$cmd\" in\n";
    for (const auto& cmd : commands())
        script << "        " << cmd.name << ") opts=\"" << (std::string(cmd.name) == "completion" ? "bash " : "")
               << options_of(cmd) << "\" ;;\n";
    script << "    esac\n"
              "    if [[ $cur == -* || $cmd == completion ]]; then\n"
              "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
              "    else\n"
              "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
              "    fi\n"
              "}\n"
              "complete -o filenames -F _roofline roofline\n";
    return script.str();
}

}  // namespace

int completion_command(const std::vector<std::string>& args, const io& io) {
    po::options_description opts(
        "roofline completion bash [options]\n\nPrints a bash completion script: source it, or let "
        "cmake --install put it in share/bash-completion/completions.\n\noptions");
    opts.add_options()("help,h", "show this help")("shell", po::value<std::string>(), "bash (the one shell it knows)")(
        "output,o", po::value<std::string>(), "write it here (written whole or not at all); stdout otherwise");
    po::positional_options_description pos;
    pos.add("shell", 1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) return help(io, opts, "completion");
    const std::string shell = vm.count("shell") ? vm["shell"].as<std::string>() : "";
    if (shell != "bash") usage_error("completion takes bash, not \"" + shell + "\"" + did_you_mean(shell, {"bash"}));
    const std::string script = bash_script();
    if (!vm.count("output")) {
        io.out << script;
        return 0;
    }
    write_file_atomically(vm["output"].as<std::string>(), script, output_policy(vm, {}));
    return 0;
}

}  // namespace roofline::cli
