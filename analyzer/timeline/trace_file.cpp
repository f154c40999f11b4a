#include "analyzer/timeline/trace_file.hpp"

#include "analyzer/base/input_error.hpp"
#include "analyzer/timeline/byte_source.hpp"
#include "analyzer/timeline/kineto_reader.hpp"

#include <string_view>

namespace roofline::timeline {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
    throw input_error(error_code::unknown_format, path, 0, 0, what);
}

}  // namespace

trace read_trace_file(const std::string& path) {
    if (ends_with(path, ".nsys-rep") || ends_with(path, ".qdrep"))
        refuse(path,
               "an Nsight Systems report: export it first with `nsys export --type sqlite -o trace.sqlite " + path +
                   "`, or `nsys stats --report cuda_gpu_trace --format csv -o trace " + path +
                   "`; Nsight Systems exports are not read by this version yet: capture with the PyTorch profiler "
                   "(torch.profiler, export_chrome_trace) for now");
    byte_source source(path);
    const std::string_view head = source.peek();
    if (head.substr(0, 16) == std::string_view("SQLite format 3\0", 16))
        refuse(path, "an SQLite database (an Nsight Systems export?): not read by this version yet");
    std::size_t i = 0;
    while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n')) ++i;
    if (i < head.size() && (head[i] == '{' || head[i] == '[')) return read_kineto(source, path);
    if (head.empty()) throw input_error(error_code::empty_input, path, 0, 0, "the file is empty");
    if (head.find("\"ID\",\"Process ID\"") != std::string_view::npos || head.rfind("==PROF==", 0) == 0)
        refuse(path, "an Nsight Compute export (per-kernel counters, no timeline): `roofline analyze " + path + "`");
    if (head.find("Start (ns)") != std::string_view::npos || head.find("Time (%)") != std::string_view::npos)
        refuse(path,
               "an nsys stats CSV: this version reads PyTorch profiler traces only (a kernel summary, "
               "cuda_gpu_kern_sum, goes to `roofline triage " +
                   path + "`)");
    refuse(path,
           "not a trace roofline timeline reads: expected a PyTorch profiler Chrome trace (.json or .json.gz, "
           "written by torch.profiler's export_chrome_trace or tensorboard_trace_handler)");
}

}  // namespace roofline::timeline
