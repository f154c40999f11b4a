#include "analyzer/cli/cli_support.hpp"

#include "analyzer/render/table.hpp"

#include "analyzer/base/input_error.hpp"
#include "models/gpu_spec.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>

namespace roofline::cli {

const char* const version = "roofline " ROOFLINE_VERSION;

const char* const exit_codes =
    "exit codes:\n"
    "  0  done\n"
    "  1  a regression gate failed: pairs --check found a verdict that differs from kernels/pairs.json, or diff "
    "--fail-if-slower\n"
    "     found the workload or a kernel slower by more than its threshold (the report is written all the same)\n"
    "  2  bad input or a bad command line: the message names the file, line and column; nothing is written\n"
    "  3  an internal error (a bug: please report it with the input)\n";

void add_capture_options(po::options_description& opts) {
    opts.add_options()("kernel-name,k", po::value<std::string>()->default_value(""),
                       "analyse kernels whose name (the one --kernel-name-base picks) is exactly this, or matches "
                       "regex:EXPR (searched "
                       "anywhere in the name), as ncu's --kernel-name")(
        "kernel-name-base", po::value<std::string>()->default_value("function"),
        "what -k matches, as ncu's option: function (the function name: transpose_smem), demangled (the whole "
        "signature: "
        "void transpose_smem<1>(const float *, float *, int)) or mangled (_Z..., only in exports made with "
        "--print-kernel-base "
        "mangled)")("launch-skip,s", po::value<std::string>(),
                    "skip this many matching launches first (default 0; -s as ncu's)")(
        "launch-count,c", po::value<std::string>(),
        "analyse at most this many matching launches (1 or more; -c as ncu's)")(
        "gpu", po::value<std::string>()->default_value(""),
        "use this GPU spec (see `roofline gpus`) instead of detecting it")(
        "gpu-override", "let --gpu name a GPU other than the one the capture says it ran on")(
        "device", po::value<std::string>()->default_value(""),
        "analyse only the launches of this device (ncu's Device column), for a capture of several GPUs")(
        "hwspecs", po::value<std::string>()->default_value(""),
        "a folder of extra or overriding GPU spec files (*.json)")(
        "rules", po::value<std::string>()->default_value(""),
        "a folder of extra or overriding rule trees (*.json, see rules/README.md)")(
        "numbers", po::value<std::string>()->default_value("auto"),
        "number style of the export: auto, point (1,234.5) or comma (1.234,5)")(
        "threads", po::value<std::string>(),
        "threads that parse a raw page's rows (default: one per core, at most 4); the report is the same with any "
        "number");
}

analyze_options capture_options(const po::variables_map& vm) {
    analyze_options settings;
    settings.filter.kernel_name = vm["kernel-name"].as<std::string>();
    const std::string base = vm["kernel-name-base"].as<std::string>();
    if (base == "function")
        settings.filter.base = kernel_name_base::function;
    else if (base == "demangled")
        settings.filter.base = kernel_name_base::demangled;
    else if (base == "mangled")
        settings.filter.base = kernel_name_base::mangled;
    else
        usage_error("--kernel-name-base takes function, demangled or mangled, not \"" + base + "\"" +
                    did_you_mean(base, {"function", "demangled", "mangled"}));
    settings.filter.launch_skip = whole_number(vm, "launch-skip", 0, 0);
    if (vm.count("launch-count")) settings.filter.launch_count = whole_number(vm, "launch-count", 1, 0);
    settings.gpu = vm["gpu"].as<std::string>();
    settings.gpu_override = vm.count("gpu-override") != 0;
    settings.device = vm["device"].as<std::string>();
    settings.hwspecs_dir = vm["hwspecs"].as<std::string>();
    // A typo is caught before the input is read, with the nearest id; "H200" or "RTX 4090" name their GPU.
    if (!settings.gpu.empty()) settings.gpu = resolve_gpu(load_gpu_specs(settings.hwspecs_dir), settings.gpu, "--gpu");
    settings.rules_dir = vm["rules"].as<std::string>();
    const std::string numbers = vm["numbers"].as<std::string>();
    if (numbers == "point")
        settings.read.numbers = number_style::point;
    else if (numbers == "comma")
        settings.read.numbers = number_style::comma;
    else if (numbers != "auto")
        usage_error("--numbers takes auto, point or comma, not \"" + numbers + "\"");
    if (vm.count("threads")) {
        settings.read.threads = whole_number(vm, "threads", 1, 0);
        if (settings.read.threads > 64)
            usage_error("--threads takes at most 64, not " + std::to_string(settings.read.threads));
    }
    return settings;
}

std::string top_usage() {
    std::string usage = "usage: roofline <command> [options]\n       roofline --help | --version\n\ncommands:\n";
    table list({"command", "summary"});
    for (const auto& entry : commands())
        list.row({std::string(entry.name) + (*entry.args ? std::string(" ") + entry.args : ""), entry.summary});
    text_layout no_header;
    no_header.header = false;
    usage += list.text(no_header);
    usage += "\nexamples:\n";
    for (const auto& entry : commands()) usage += "  " + std::string(entry.example) + "\n";
    usage +=
        "\noptions:\n  -h, --help     this help (`roofline <command> --help` for a command's options)\n"
        "  --version      print the version (" +
        std::string(version) + ")\n";
    return usage + "\n" + exit_codes;
}

int help(const io& io, const po::options_description& opts, const char* name) {
    io.out << with_output_options(opts) << "\n";
    for (const auto& entry : commands())
        if (std::string(entry.name) == name) io.out << "example:\n  " << entry.example << "\n\n";
    io.out << exit_codes;
    return 0;
}

std::string format_of_extension(const std::string& path) {
    const std::string ext = std::filesystem::path(path).extension().string();
    if (ext == ".html" || ext == ".htm") return "html";
    if (ext == ".section") return "section";
    return ext == ".md"     ? "markdown"
           : ext == ".json" ? "json"
           : ext == ".txt"  ? "terminal"
           : ext == ".svg"  ? "svg"
                            : "";
}

std::string output_format(const po::variables_map& vm, const std::vector<std::string>& names, const io& io) {
    std::string format = vm["format"].as<std::string>();
    // A command's own default (metrics: list; rules, gpus: markdown) gives way to -o's extension as auto does.
    std::string fallback;
    if (vm["format"].defaulted() && format != "auto") {
        fallback = format;
        format = "auto";
    }
    const bool to_file = vm.count("output") != 0;
    const std::string path = to_file ? vm["output"].as<std::string>() : std::string();
    auto known = [&](const std::string& candidate) {
        return std::find(names.begin(), names.end(), candidate) != names.end();
    };
    std::string list;
    for (const auto& option_name : names) list += (list.empty() ? "" : ", ") + option_name;
    if (format != "auto" && !known(format))
        usage_error("--format takes " + list + " or auto, not \"" + format + "\"" + did_you_mean(format, names));
    std::string by_extension = to_file ? format_of_extension(path) : "";
    if (!known(by_extension)) by_extension.clear();  // an extension this command does not write says nothing
    if (format != "auto" && !by_extension.empty() && format != by_extension) {
        static const std::pair<const char*, const char*> extension_of[] = {
            {"markdown", ".md"}, {"json", ".json"}, {"terminal", ".txt"},
            {"svg", ".svg"},     {"html", ".html"}, {"section", ".section"}};
        std::string ext;
        for (const auto& [format_name, extension] : extension_of)
            if (format == format_name) ext = extension;
        usage_error("-o " + path + " asks for " + by_extension + " by its extension, but --format is " + format +
                    (ext.empty() ? std::string() : "; drop --format or give the file a " + ext + " extension"));
    }
    if (format == "auto")
        format = !by_extension.empty()                  ? by_extension
                 : !fallback.empty()                    ? fallback
                 : io.where.stdout_terminal && !to_file ? "terminal"
                                                        : "markdown";
    if (!known(format)) format = names.front();  // auto, for a command without a terminal view or markdown
    return format;
}

[[noreturn]] void usage_error(const std::string& what) { throw input_error(error_code::usage, "roofline", 0, 0, what); }

po::options_description with_output_options(const po::options_description& visible) {
    po::options_description all(visible);
    if (visible.find_nothrow("output", false) && !visible.find_nothrow("force", false))
        all.add_options()("force,f", "replace the -o file where it exists (never a file the command reads)");
    return all;
}

write_policy output_policy(const po::variables_map& vm, std::vector<std::string> inputs) {
    write_policy policy;
    policy.overwrite = vm.count("force") > 0;
    policy.inputs = std::move(inputs);
    return policy;
}

void emit_output(const po::variables_map& vm, const std::string& text, const write_policy& policy, const io& io) {
    if (!vm.count("output")) {
        io.out << text;
        return;
    }
    const std::string path = vm["output"].as<std::string>();
    write_file_atomically(path, text, policy);
    io.err << "roofline: wrote " << path << "\n";
}

po::variables_map parse(const po::options_description& visible, const po::positional_options_description& pos,
                        const std::vector<std::string>& args) {
    const po::options_description all = with_output_options(visible);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
        po::notify(vm);
    } catch (const po::unknown_option& failure) {
        // The nearest long option of this command: "--formt" -> "--format".
        std::string given = failure.get_option_name();
        std::vector<std::string> names;
        for (const auto& option : all.options()) names.push_back("--" + option->long_name());
        usage_error(std::string(failure.what()) + did_you_mean(given.substr(0, given.find('=')), names));
    } catch (const po::error& failure) {
        usage_error(failure.what());
    }
    return vm;
}

std::size_t whole_number(const po::variables_map& vm, const char* option, std::size_t least, std::size_t fallback) {
    if (!vm.count(option)) return fallback;
    const std::string text = vm[option].as<std::string>();
    std::size_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < least)
        usage_error(std::string("--") + option + " takes a whole number of " + std::to_string(least) +
                    " or more, not \"" + text + "\"");
    return value;
}

ncu_collection collection_of(const diagnose::metric_plan& plan) {
    ncu_collection collection;
    collection.metrics = diagnose::metrics_argument(plan);
    collection.metric_count = plan.ncu_names().size();
    collection.required_count = plan.required_count();
    for (const auto& entry : plan.section_only) collection.section_only.push_back(entry.id);
    collection.sections = plan.sections;
    return collection;
}

}  // namespace roofline::cli
