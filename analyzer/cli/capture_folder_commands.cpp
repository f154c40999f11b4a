// pairs, lessons and calibrate: the commands that read a capture folder made by kernels/profile.sh.
#include "analyzer/cli/cli_support.hpp"
#include "analyzer/cli/command_list.hpp"

#include "analyzer/base/atomic_file.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/pipeline/analysis.hpp"
#include "analyzer/validate/calibrate.hpp"
#include "analyzer/validate/lessons.hpp"
#include "analyzer/validate/pairs_report.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace roofline::cli {

namespace {

// pairs, lessons and calibrate read a capture folder made by kernels/profile.sh and the pair
// definitions: the same options and the same first steps.
po::options_description folder_options(const std::string& usage, const char* output_help) {
    po::options_description opts(usage + "\n\noptions");
    opts.add_options()("help,h", "show this help")("dir", po::value<std::string>(),
                                                   "the capture folder, e.g. examples/h100")(
        "pairs", po::value<std::string>(),
        "the pair definitions (default: kernels/pairs.json as it was when roofline was built, compiled in)")(
        "output,o", po::value<std::string>(), output_help);
    return opts;
}

// nullopt: --help was asked for and printed.
std::optional<po::variables_map> parse_folder(const po::options_description& opts, const std::vector<std::string>& args,
                                              const io& io, const char* command) {
    po::positional_options_description pos;
    pos.add("dir", 1);
    auto vm = parse(opts, pos, args);
    if (vm.count("help")) {
        help(io, opts, command);
        return std::nullopt;
    }
    if (!vm.count("dir"))
        usage_error(std::string(command) + " needs a capture folder (see roofline " + command + " --help)");
    return vm;
}

std::string pairs_file(const po::variables_map& vm) {
    return vm.count("pairs") ? vm["pairs"].as<std::string>() : std::string();
}

// The files a folder command reads: never written over.
std::vector<std::string> folder_inputs(const po::variables_map& vm) {
    const std::string dir = vm["dir"].as<std::string>();
    std::vector<std::string> inputs = {dir + "/pairs_raw.csv", dir + "/runner_timing.txt", dir + "/kernels_raw.csv"};
    if (vm.count("pairs")) inputs.push_back(pairs_file(vm));
    return inputs;
}

}  // namespace

int pairs_command(const std::vector<std::string>& args, const io& io) {
    auto opts = folder_options(
        "roofline pairs DIR [options]\n\nDIR holds pairs_raw.csv and runner_timing.txt from kernels/profile.sh.",
        "write the table here (e.g. DIR/PAIRS.md); stdout otherwise");
    opts.add_options()("check", "exit 1 when a verdict differs from pairs.json without a listed reason");
    auto parsed = parse_folder(opts, args, io, "pairs");
    if (!parsed) return 0;
    const auto& vm = *parsed;
    const write_policy policy = output_policy(vm, folder_inputs(vm));
    if (vm.count("output")) check_output(vm["output"].as<std::string>(), policy);
    pairs_report report = build_pairs_report(vm["dir"].as<std::string>(), pairs_file(vm));
    std::string text = render_pairs_markdown(report);
    if (vm.count("output"))
        write_file_atomically(vm["output"].as<std::string>(), text, policy);
    else
        io.out << text;
    for (const auto& problem : report.problems) io.err << "roofline: " << problem << "\n";
    return vm.count("check") && !report.problems.empty() ? 1 : 0;
}

int lessons_command(const std::vector<std::string>& args, const io& io) {
    auto parsed = parse_folder(
        folder_options(
            "roofline lessons DIR [options]\n\nDIR holds pairs_raw.csv and runner_timing.txt from kernels/profile.sh.",
            "the folder to write into (created if missing); DIR/lessons by default. The pages in it are this "
            "command's own: they are replaced without -f"),
        args, io, "lessons");
    if (!parsed) return 0;
    const auto& vm = *parsed;
    const std::string dir = vm["dir"].as<std::string>();
    const std::string into = vm.count("output") ? vm["output"].as<std::string>() : dir + "/lessons";
    pairs_report report = build_pairs_report(dir, pairs_file(vm));
    auto files = render_lessons(report, dir);  // everything rendered before anything is written
    std::error_code ec;
    std::filesystem::create_directories(into, ec);
    if (ec) throw input_error(error_code::io, into, 0, 0, "cannot create the folder: " + ec.message());
    for (auto& [name, text] : files) name = into + "/" + name;
    write_policy policy = output_policy(vm, folder_inputs(vm));
    policy.overwrite = true;  // the lesson pages are this command's own output, regenerated in place
    write_files_atomically(files, policy);
    io.err << "roofline: wrote " << files.size() << " files into " << into << "\n";
    return 0;
}

int calibrate_command(const std::vector<std::string>& args, const io& io) {
    auto opts = folder_options(
        "roofline calibrate DIR [options]\n\nDIR holds pairs_raw.csv from kernels/profile.sh (and kernels_raw.csv, "
        "whose streaming kernels join the bandwidth fit, where it is there).",
        "write the fit here; stdout otherwise");
    opts.add_options()(
        "spec-out", po::value<std::string>(),
        "also write the GPU's spec file with the fitted practical shares in place, for roofline analyze --hwspecs "
        "(name it after the GPU's id, e.g. calibrated/h200.json)");
    auto parsed = parse_folder(opts, args, io, "calibrate");
    if (!parsed) return 0;
    const auto& vm = *parsed;
    const std::string dir = vm["dir"].as<std::string>();
    const write_policy policy = output_policy(vm, folder_inputs(vm));
    for (const char* option : {"output", "spec-out"})
        if (vm.count(option)) check_output(vm[option].as<std::string>(), policy);
    pairs_report report = build_pairs_report(dir, pairs_file(vm));
    const auto samples = calibration_samples(report);
    const auto fit = fit_practical_shares(samples);
    std::vector<const analysis*> captures{report.capture_analysis.get()};
    std::optional<analysis> kernels;
    if (std::filesystem::exists(dir + "/kernels_raw.csv")) {
        kernels = analyze_file(dir + "/kernels_raw.csv", {});
        captures.push_back(&*kernels);
    }
    std::vector<std::pair<std::string, std::string>> files;
    files.emplace_back(vm.count("output") ? vm["output"].as<std::string>() : "",
                       render_calibration(report, fit, cross_validate_practical_shares(samples),
                                          fit_bandwidths(transfer_samples(captures)), dir));
    if (vm.count("spec-out")) files.emplace_back(vm["spec-out"].as<std::string>(), calibrated_spec(report, fit, dir));
    if (!vm.count("output")) io.out << files.front().second;
    std::erase_if(files, [](const auto& output_file) { return output_file.first.empty(); });
    if (!files.empty()) {
        write_files_atomically(files, policy);
        for (const auto& output_file : files) io.err << "roofline: wrote " << output_file.first << "\n";
    }
    return 0;
}

}  // namespace roofline::cli
