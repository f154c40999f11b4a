#include "analyzer/pipeline/analysis.hpp"

#include "analyzer/base/external_tool.hpp"
#include "analyzer/base/gzip_stream.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/base/did_you_mean.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/diagnose/fusion.hpp"
#include "models/capture_spec.hpp"
#include "models/gpu_match.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

namespace roofline {
void attach_workload_findings(std::vector<analysed_kernel>& kernels, const gpu_spec& gpu) {
    std::vector<const kernel_result*> in_order;
    for (const auto& kernel : kernels) in_order.push_back(&kernel);
    for (auto& workload : diagnose::fusion_candidates(in_order, gpu)) {
        analysed_kernel& first = kernels[workload.kernel];
        first.diagnosis.path.push_back(std::move(workload.path));
        first.diagnosis.findings.push_back(std::move(workload.what));
        diagnose::settle_findings(first.diagnosis, first, gpu);
    }
}

namespace {

// The details page holds the sections of --set full that --set basic and --set roofline leave out.
bool has_full_sections(const kernel_result& kernel) {
    const auto& metrics = kernel.group.metrics;
    return metrics.find("smsp__average_warp_latency_per_inst_issued.ratio") &&
           metrics.find("lts__t_sector_hit_rate.pct");
}

// The most SMs a count from a file may give: far above any GPU (the B200 has 148), far below where a
// conversion to an integer overflows. A larger one is a damaged file, said so before any conversion.
constexpr double most_sms = 65536;

gpu_identity identity_of(const kernel_group& group, const std::string& cc, const std::string& file) {
    gpu_identity id;
    auto name = group.texts.find("device__attribute_display_name");
    if (name != group.texts.end()) id.display_name = name->second;
    id.cc = cc;
    metric_view view{group.metrics, group.launches};
    id.sm_count = view.first_of({"device__attribute_multiprocessor_count", "launch__sm_count"});
    if (id.sm_count && !(*id.sm_count >= 1 && *id.sm_count <= most_sms))
        throw input_error(error_code::bad_number, file, group.first_line, 0,
                          "the SM count (device__attribute_multiprocessor_count or launch__sm_count) is " +
                              significant(*id.sm_count, 6) +
                              ", not a number of SMs (1 to 65,536): the export is damaged");
    if (auto clk = view.find("dram__cycles_elapsed.avg.per_second"))
        id.dram_clock_mhz = *clk / 1e6;
    else if (auto khz = view.find("device__attribute_memory_clock_rate"))
        id.dram_clock_mhz = *khz / 1e3;
    return id;
}

struct device_seen {
    std::string name, cc;
    std::size_t launches = 0;
    bool mixed = false;  // launches of this device id named two models (two captures concatenated)
};

void note_device(std::map<std::string, device_seen>& devices, const launch_record& launch) {
    auto it = launch.texts.find("device__attribute_display_name");
    const std::string name = it == launch.texts.end() ? "" : it->second;
    auto [entry, fresh] = devices.try_emplace(launch.device, device_seen{name, launch.cc, 0, false});
    if (!fresh && (entry->second.name != name || entry->second.cc != launch.cc)) entry->second.mixed = true;
    entry->second.launches += launch.invocations;
}

// Launches of two GPU models analysed as one GPU would put half of them under the wrong roofs and
// fold their kernels together: an error that names --device, unless every device is one model.
void check_one_gpu_model(const std::map<std::string, device_seen>& devices, const analyze_options& options,
                         const std::string& file) {
    std::set<std::pair<std::string, std::string>> models;
    bool mixed = false;
    for (const auto& [id, seen] : devices) {
        models.emplace(seen.name, seen.cc);
        mixed = mixed || seen.mixed;
    }
    if (models.size() <= 1 && !mixed) return;
    std::string list;
    for (const auto& [id, seen] : devices)
        list += (list.empty() ? "" : ", ") + std::string("device ") + (id.empty() ? "\"\"" : id) + " \"" + seen.name +
                "\" (CC " + seen.cc + ", " + std::to_string(seen.launches) +
                (seen.launches == 1 ? " launch)" : " launches)");
    if (!options.device.empty())  // one device id, two models
        throw input_error(error_code::unknown_gpu, file, 0, 0,
                          "the launches of --device " + options.device + " name more than one GPU model (" + list +
                              "): is the file two captures joined together? Split it and analyse each");
    throw input_error(error_code::unknown_gpu, file, 0, 0,
                      "the capture holds launches of more than one GPU model (" + list +
                          "); kernels of different GPUs are never analysed as one: pass --device with one of them" +
                          (mixed ? " (or split the file: one device id names two models)" : ""));
}

}  // namespace

analysis analyze(std::istream& in, const std::string& input_name, const analyze_options& options) {
    analysis analysed;
    analysed.input = input_name;
    analysed.options = options;
    analysed.options.progress = nullptr;
    kernel_table table;
    launch_filter filter(options.filter);
    std::string first_cc;
    // Which GPUs the launches ran on: kernels of two GPU models are never folded together.
    std::map<std::string, device_seen> devices;  // by ncu's Device column
    std::set<std::string> seen_names;
    analysed.read = read_ncu_csv(in, input_name, options.read, [&](launch_record&& launch) {
        analysed.launches_read += launch.invocations;
        if (options.progress) options.progress(analysed.launches_read);
        if (!options.device.empty() && launch.device != options.device) return;
        note_device(devices, launch);
        // The kernels' function names, for a filter that matches nothing (a few are enough to name).
        if (!options.filter.kernel_name.empty() && seen_names.size() < 64)
            seen_names.insert(function_name(launch.kernel_name));
        if (!filter.accept(launch, input_name)) return;
        analysed.launches_kept += launch.invocations;
        if (first_cc.empty()) first_cc = launch.cc;
        table.add(std::move(launch));
    });
    check_one_gpu_model(devices, options, input_name);
    std::vector<kernel_group> groups = table.finish();
    if (groups.empty()) {
        std::string names;
        if (!options.filter.kernel_name.empty()) {
            const std::vector<std::string> all(seen_names.begin(), seen_names.end());
            names = did_you_mean(options.filter.kernel_name, all);
            std::string some;
            for (std::size_t i = 0; i < std::min<std::size_t>(all.size(), 8); ++i)
                some += (some.empty() ? "" : ", ") + all[i];
            if (!all.empty()) names += " (its kernels include " + some + (all.size() > 8 ? ", ..." : "") + ")";
        }
        throw input_error(error_code::no_kernels, input_name, 0, 0,
                          "none of the " + std::to_string(analysed.launches_read) +
                              " launches passes the filters (--kernel-name, --launch-skip, --launch-count)" + names);
    }
    std::vector<gpu_spec> specs = load_gpu_specs(options.hwspecs_dir);
    const gpu_identity identity = identity_of(groups.front(), first_cc, input_name);
    try {
        gpu_choice choice = match_gpu(specs, identity, options.gpu, input_name);
        if (!options.gpu.empty() && !options.gpu_override) check_forced_gpu(specs, *choice.spec, identity, input_name);
        analysed.gpu = *choice.spec;
        analysed.gpu_how = choice.how;
    } catch (const input_error& error) {
        // No spec file describes this GPU: the capture's own peaks place its kernels, where it has them.
        if (!options.gpu.empty() || error.code() != error_code::unknown_gpu) throw;
        auto made = spec_from_capture(groups.front().metrics, identity);
        if (made) {
            analysed.gpu = made->spec;
            analysed.gpu_how = {gpu_match_reason::kind::from_capture, identity, made->unknown};
        } else {
            // Neither a spec nor the capture's peaks: what was measured is reported without roofs.
            analysed.gpu = spec_without_peaks(groups.front().metrics, identity).spec;
            analysed.gpu_how = {gpu_match_reason::kind::not_identified, identity, error.detail()};
        }
    }
    analysed.default_practical = default_practical_resources(analysed.gpu);
    for (auto& group : groups) {
        analysed_kernel kernel;
        static_cast<kernel_result&>(kernel) = model_kernel(std::move(group), analysed.gpu);
        analysed.total_ns += kernel.roof.duration_ns;
        analysed.kernels.push_back(std::move(kernel));
    }
    const auto trees = diagnose::load_rule_trees(options.rules_dir);
    for (auto& kernel : analysed.kernels) {
        kernel.share = analysed.total_ns > 0 ? kernel.roof.duration_ns / analysed.total_ns : 0.0;
        kernel.diagnosis = diagnose::diagnose(trees, kernel, analysed.gpu);
        // A details page shows a few values of each section it holds; where it holds the sections only
        // --set full collects (warp states, memory tables, source counters), the report's raw page has
        // every counter the engine reads (all are in --set full: analyzer/base/metrics.json).
        if (analysed.read.form == ncu_form::details && has_full_sections(kernel))
            for (auto& finding : kernel.diagnosis.findings)
                if (finding.engine == diagnose::engine_finding::missing_counters) finding.raw_page_holds = true;
        if (!options.keep_metrics) {  // nothing after the diagnosis reads a counter (analyze_options)
            kernel.group.metrics = metric_values{};
            kernel.group.texts.clear();
        }
    }
    attach_workload_findings(analysed.kernels, analysed.gpu);
    std::stable_sort(analysed.kernels.begin(), analysed.kernels.end(),
                     [](const analysed_kernel& left, const analysed_kernel& right) {
                         return left.roof.duration_ns > right.roof.duration_ns;
                     });
    return analysed;
}

namespace {

// What the first bytes say: an Nsight Compute report (its magic, "NVR\0", read off a report of ncu 2025.3.1),
// or another binary file (a NUL byte, which no CSV export holds), or text.
enum class head_kind { text, ncu_report, trace, binary };

head_kind kind_of(std::string_view seen) {
    if (seen.substr(0, 4) == std::string_view("NVR\0", 4)) return head_kind::ncu_report;
    // A trace: gzip (a .json.gz), an SQLite database (an nsys export), or JSON with trace events.
    if (seen.substr(0, 2) == std::string_view("\x1f\x8b", 2) || seen.rfind("SQLite format 3", 0) == 0)
        return head_kind::trace;
    const auto first = seen.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && (seen[first] == '{' || seen[first] == '[') &&
        seen.find("traceEvents") != std::string_view::npos)
        return head_kind::trace;
    return seen.find('\0') == std::string_view::npos ? head_kind::text : head_kind::binary;
}

// The first bytes of a stream, which is left where it was.
head_kind head_of(std::istream& in) {
    char head[4096];
    in.read(head, sizeof head);
    const std::string_view seen(head, std::size_t(in.gcount()));
    in.clear();
    in.seekg(0);
    return kind_of(seen);
}

}  // namespace

namespace {

bool is_ncu_report_name(const std::string& path) {
    const std::string suffix = ".ncu-rep";
    return path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A report file: its raw page holds every counter it collected. Exported with ncu where it is on
// PATH (no shell; into a private directory that is gone afterwards, also on failure or interruption),
// else the command is the message.
analysis analyze_ncu_report(const std::string& path, const analyze_options& options) {
    const std::string csv_name = is_ncu_report_name(path) ? path.substr(0, path.size() - 8) + ".csv" : "report.csv";
    const std::string command = "ncu -i " + path + " --csv --page raw > " + csv_name;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw input_error(error_code::io, path, 0, 0, "cannot open the file");
    const auto ncu = find_on_path("ncu");
    if (!ncu)
        throw input_error(error_code::unknown_format, path, 0, 0,
                          "an Nsight Compute report (.ncu-rep), not a CSV export, and ncu is not on PATH to export "
                          "it; export it with: " +
                              command);
    private_temp_dir dir("ncu-export");
    const std::string csv = dir.file("raw.csv");
    std::string report = std::filesystem::absolute(path, ec).string();
    if (ec) report = path[0] == '/' ? path : "./" + path;
    const tool_run run = run_tool(*ncu, {"-i", report, "--csv", "--page", "raw"}, csv);
    if (!run.started)
        throw input_error(error_code::io, path, 0, 0, *ncu + " could not be started to export the report");
    if (run.exit_code != 0)
        throw input_error(error_code::unknown_format, path, 0, 0,
                          "`ncu -i " + path + " --csv --page raw` failed (exit " + std::to_string(run.exit_code) +
                              "; ncu's message is above)");
    std::ifstream in(csv, std::ios::binary);
    if (!in) throw input_error(error_code::io, path, 0, 0, "ncu wrote no export of the report");
    analysis analysed = analyze(in, path, options);
    analysed.read.notes.push_back("read from the report's raw page, exported with `ncu -i " + path +
                                  " --csv --page raw`");
    return analysed;
}

}  // namespace

analysis analyze_file(const std::string& path, const analyze_options& options) {
    if (path == "-") return analyze(std::cin, "<stdin>", options);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        // A folder of captures (examples/h100, a profiling run's output): analyze takes one export.
        std::vector<std::string> names;  // sorted: the message is the same on every file system
        for (const auto& entry : std::filesystem::directory_iterator(path, ec))
            if (entry.path().extension() == ".csv") names.push_back(entry.path().filename().string());
        std::sort(names.begin(), names.end());
        const std::size_t csv_count = names.size();
        std::string csvs;
        for (std::size_t i = 0; i < csv_count && i < 3; ++i) csvs += (csvs.empty() ? "" : ", ") + names[i];
        throw input_error(error_code::io, path, 0, 0,
                          "is a folder; roofline analyze reads one CSV export" +
                              (csv_count ? " (this one holds " + std::to_string(csv_count) + ": " + csvs +
                                               (csv_count > 3 ? ", ..." : "") + "), e.g. roofline analyze " +
                                               (std::filesystem::path(path) / csvs.substr(0, csvs.find(','))).string()
                                         : std::string(" (it holds none)")) +
                              ". A folder of naive -> fixed pairs is what roofline pairs, lessons and calibrate read");
    }
    if (is_ncu_report_name(path)) return analyze_ncu_report(path, options);
    // An export kept compressed (report.csv.gz): read through gzip, one buffer at a time. A compressed trace
    // or report is told apart by what it expands to.
    if (is_gzip_file(path)) {
        head_kind inside = head_kind::text;
        {
            gzip_istream peek(path);
            char head[4096];
            peek.read(head, sizeof head);
            inside = kind_of(std::string_view(head, std::size_t(peek.gcount())));
        }
        if (inside == head_kind::trace)
            throw input_error(error_code::unknown_format, path, 0, 0,
                              "a compressed whole-run trace (a PyTorch profiler Chrome trace or an Nsight Systems "
                              "export), not an Nsight Compute export: `roofline timeline " +
                                  path + "` reads it");
        if (inside != head_kind::text)
            throw input_error(error_code::unknown_format, path, 0, 0,
                              "a compressed binary file, not a CSV export; decompress it (an .ncu-rep report: "
                              "`ncu -i REPORT.ncu-rep --csv --page raw > report.csv`)");
        gzip_istream in(path);
        return analyze(in, path, options);
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(error_code::io, path, 0, 0, "cannot open the file");
    // A report under another name is exported all the same; other binary input gets the command to look for.
    switch (head_of(in)) {
        case head_kind::ncu_report:
            return analyze_ncu_report(path, options);
        case head_kind::trace:
            throw input_error(error_code::unknown_format, path, 0, 0,
                              "a whole-run trace (a PyTorch profiler Chrome trace or an Nsight Systems export), not "
                              "an Nsight Compute export: `roofline timeline " +
                                  path + "` reads it");
        case head_kind::binary:
            throw input_error(error_code::unknown_format, path, 0, 0,
                              "binary, not text (an Nsight Compute .ncu-rep report?), not a CSV export; export it "
                              "with: ncu -i REPORT.ncu-rep --csv --page raw > report.csv");
        case head_kind::text:
            break;
    }
    return analyze(in, path, options);
}

}  // namespace roofline
