#include "analyzer/timeline/trace_file.hpp"

#include "analyzer/base/external_tool.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/timeline/byte_source.hpp"
#include "analyzer/timeline/kineto_reader.hpp"
#include "analyzer/timeline/nsys_sqlite_reader.hpp"
#include "analyzer/timeline/nsys_stats_reader.hpp"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace roofline::timeline {
namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool is_report_name(std::string_view path) { return ends_with(path, ".nsys-rep") || ends_with(path, ".qdrep"); }
bool is_sqlite(std::string_view head) { return head.substr(0, 16) == std::string_view("SQLite format 3\0", 16); }
// JSON: the first character after any whitespace opens an object or an array.
bool is_json(std::string_view head) {
    const auto first = head.find_first_not_of(" \t\r\n");
    return first != std::string_view::npos && (head[first] == '{' || head[first] == '[');
}

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
    throw input_error(error_code::unknown_format, path, 0, 0, what);
}

// `nsys export --type sqlite` of a report into `out`, where nsys is on PATH (false where it is not).
bool export_report(const std::string& path, private_temp_dir& dir, const std::string& out) {
    const auto nsys = find_on_path("nsys");
    if (!nsys) return false;
    // An absolute path: a report named "-x.nsys-rep" cannot reach nsys as an option.
    std::error_code ec;
    std::string report = std::filesystem::absolute(path, ec).string();
    if (ec) report = path[0] == '/' ? path : "./" + path;
    const tool_run run =
        run_tool(*nsys, {"export", "--type", "sqlite", "--output", out, report}, dir.file("nsys-stdout.txt"));
    if (!run.started) refuse(path, *nsys + " could not be started to export the report");
    if (run.exit_code != 0)
        refuse(path, "`nsys export --type sqlite` failed on the report (exit " + std::to_string(run.exit_code) +
                         "; its message is above)");
    return true;
}

}  // namespace

trace read_trace_file(const std::string& path, const std::string& api_path) {
    if (is_report_name(path)) {
        private_temp_dir dir("nsys-export");
        const std::string exported = dir.file("export.sqlite");
        if (!export_report(path, dir, exported))
            refuse(path,
                   "an Nsight Systems report, and nsys is not on PATH to export it: run `nsys export --type "
                   "sqlite -o trace.sqlite " +
                       path + "` where nsys is, then `roofline timeline trace.sqlite`");
        auto exported_trace = read_nsys_sqlite(exported);
        exported_trace.file = path;
        return exported_trace;
    }
    byte_source source(path);
    const std::string_view head = source.peek();
    if (is_sqlite(head)) return read_nsys_sqlite(path);
    if (is_json(head)) return read_kineto(source, path);
    if (head.empty()) throw input_error(error_code::empty_input, path, 0, 0, "the file is empty");
    if (head.find("\"ID\",\"Process ID\"") != std::string_view::npos || head.rfind("==PROF==", 0) == 0)
        refuse(path, "an Nsight Compute export (per-kernel counters, no timeline): `roofline analyze " + path + "`");
    if (is_nsys_gpu_trace(head)) return read_nsys_gpu_trace(path, api_path);
    if (head.find("Start (ns)") != std::string_view::npos || head.find("Time (%)") != std::string_view::npos)
        refuse(path,
               "an nsys stats CSV other than cuda_gpu_trace: roofline timeline reads `nsys stats --report "
               "cuda_gpu_trace --format csv` (with --api and its cuda_api_trace) or the SQLite export; a kernel "
               "summary, cuda_gpu_kern_sum, goes to `roofline triage " +
                   path + "`");
    refuse(path,
           "not a trace roofline timeline reads: expected a PyTorch profiler Chrome trace (.json or .json.gz, "
           "written by torch.profiler's export_chrome_trace or tensorboard_trace_handler), an Nsight Systems "
           "report (.nsys-rep) or its SQLite export");
}

bool looks_like_trace(const std::string& path) {
    if (is_report_name(path)) return true;
    byte_source source(path);
    const std::string_view head = source.peek();
    return is_sqlite(head) || is_json(head) || is_nsys_gpu_trace(head);
}

}  // namespace roofline::timeline
