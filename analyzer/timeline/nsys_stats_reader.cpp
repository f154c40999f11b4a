#include "analyzer/timeline/nsys_stats_reader.hpp"

#include "analyzer/base/input_error.hpp"
#include "analyzer/read/nsys_csv.hpp"
#include "analyzer/read/units.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>

namespace roofline::timeline {
namespace {

// "Start (ns)" -> ("Start", 1.0); "Duration (us)" -> ("Duration", 1000.0); "Bytes (MB)" -> ("Bytes", 0):
// the scale of the two time columns, 0 for the others, -1 for a time unit not known.
std::pair<std::string, double> label_and_scale(const std::string& header) {
    const auto open = header.rfind(" (");
    if (open == std::string::npos || header.back() != ')') return {header, 0.0};
    const std::string label = header.substr(0, open);
    if (label != "Start" && label != "Duration") return {label, 0.0};
    const auto unit = to_base_unit(header.substr(open + 2, header.size() - open - 3));
    const double scale = unit && unit->base == "ns" ? unit->factor : -1.0;
    return {label, scale};
}

class csv_reader {
public:
    csv_reader(const std::string& path, std::initializer_list<const char*> needed) : path_(path), in_(path) {
        if (!in_) throw input_error(error_code::io, path, 0, 0, "cannot open the report");
        std::string text;
        while (std::getline(in_, text)) {
            ++line_;
            if (!text.empty() && text.back() == '\r') text.pop_back();
            const auto header_row = nsys_split_line(text);
            std::map<std::string, std::size_t> column;
            for (std::size_t i = 0; i < header_row.fields.size(); ++i) {
                auto [label, scale] = label_and_scale(header_row.fields[i].text);
                if (scale < 0)
                    throw input_error(error_code::bad_unit, path, line_, header_row.fields[i].column,
                                      "the time unit of \"" + header_row.fields[i].text + "\" is not ns, us, ms or s");
                column[label] = i;
                if (scale > 0) scales_[label] = scale;
            }
            bool all = true;
            for (const char* needed_label : needed) all = all && column.count(needed_label);
            if (all) {
                columns_ = column;
                width_ = header_row.fields.size();
                return;
            }
        }
        throw input_error(error_code::unknown_format, path, 0, 0,
                          std::string("no header with the columns ") + join(needed) +
                              ": not the nsys stats report "
                              "this reads");
    }
    // The next row's fields, or false at the end (a blank line or another report ends the table).
    bool next(nsys_split& row) {
        std::string text;
        while (std::getline(in_, text)) {
            ++line_;
            if (!text.empty() && text.back() == '\r') text.pop_back();
            if (text.empty()) return false;
            row = nsys_split_line(text);
            if (row.bad_quote_column)
                throw input_error(error_code::bad_quote, path_, line_, row.bad_quote_column, row.bad_quote_what);
            if (row.fields.size() != width_)
                throw input_error(error_code::column_count, path_, line_, 0,
                                  "a row of " + std::to_string(row.fields.size()) + " fields under a header of " +
                                      std::to_string(width_));
            return true;
        }
        return false;
    }
    const nsys_field& field(const nsys_split& row, const char* label) const { return row.fields[columns_.at(label)]; }
    bool has(const char* label) const { return columns_.count(label) != 0; }
    // A number of the field (a time in ns where its column has a unit); empty: nullopt.
    std::optional<double> number(const nsys_split& row, const char* label) const {
        const auto& cell = field(row, label);
        if (cell.text.empty()) return std::nullopt;
        double value = 0;
        auto [end, ec] = std::from_chars(cell.text.data(), cell.text.data() + cell.text.size(), value);
        if (ec != std::errc() || end != cell.text.data() + cell.text.size() || !std::isfinite(value) ||
            std::fabs(value) > 4e18)
            throw input_error(error_code::bad_number, path_, line_, cell.column,
                              "\"" + cell.text + "\" in column " + label + " is not a number");
        auto scale_it = scales_.find(label);
        return scale_it == scales_.end() ? value : value * scale_it->second;
    }
    std::size_t line() const { return line_; }

private:
    static std::string join(std::initializer_list<const char*> labels) {
        std::string joined;
        for (const char* label : labels) joined += (joined.empty() ? "" : ", ") + std::string(label);
        return joined;
    }
    std::string path_;
    std::ifstream in_;
    std::size_t line_ = 0, width_ = 0;
    std::map<std::string, std::size_t> columns_;
    std::map<std::string, double> scales_;
};

// "NVIDIA H100 80GB HBM3 (0)" -> (0, "NVIDIA H100 80GB HBM3").
std::pair<std::int32_t, std::string> device_of(const std::string& text) {
    const auto open = text.rfind(" (");
    std::int32_t id = 0;
    if (open != std::string::npos && text.back() == ')') {
        std::from_chars(text.data() + open + 2, text.data() + text.size() - 1, id);
        return {id, text.substr(0, open)};
    }
    return {0, text};
}

}  // namespace

bool is_nsys_gpu_trace(std::string_view head) {
    return head.find("Start (") != std::string_view::npos && head.find("CorrId") != std::string_view::npos &&
           head.find("Strm") != std::string_view::npos;
}

trace read_nsys_gpu_trace(const std::string& path, const std::string& api_path) {
    trace gpu_trace;
    gpu_trace.file = path;
    gpu_trace.form = "nsys stats cuda_gpu_trace report";
    csv_reader gpu(path, {"Start", "Duration", "CorrId", "Device", "Strm", "Name"});
    std::map<std::int32_t, std::string> names;
    nsys_split row;
    while (gpu.next(row)) {
        gpu_op op;
        const double start = gpu.number(row, "Start").value_or(0), dur = gpu.number(row, "Duration").value_or(0);
        if (start < 0 || dur < 0)
            throw input_error(error_code::bad_trace, path, gpu.line(), 0, "a negative start or duration");
        if (!(start < double(max_trace_ns)) || !(dur < double(max_trace_ns)))
            throw input_error(error_code::bad_trace, path, gpu.line(), 0,
                              "a start or duration beyond 2^62 ns (146 years): not a time of one run");
        op.start_ns = std::llround(start);
        op.end_ns = op.start_ns + std::llround(dur);
        op.correlation = std::llround(gpu.number(row, "CorrId").value_or(-1));
        op.stream = std::llround(gpu.number(row, "Strm").value_or(-1));
        auto [device, device_name] = device_of(gpu.field(row, "Device").text);
        op.device = device;
        names[device] = device_name;
        const std::string& name = gpu.field(row, "Name").text;
        op.kind = name.rfind("[CUDA memcpy", 0) == 0   ? op_kind::memcpy
                  : name.rfind("[CUDA memset", 0) == 0 ? op_kind::memset
                                                       : op_kind::kernel;
        if (op.kind != op_kind::kernel && gpu.has("Bytes"))
            op.bytes = static_cast<std::uint64_t>(std::llround(gpu.number(row, "Bytes").value_or(0) * 1e6));
        if (op.kind == op_kind::memcpy) {
            op.direction = name.find("Host-to-Device") != std::string::npos || name.find("HtoD") != std::string::npos
                               ? copy_direction::host_to_device
                           : name.find("Device-to-Host") != std::string::npos || name.find("DtoH") != std::string::npos
                               ? copy_direction::device_to_host
                               : copy_direction::other;
            op.pageable = (gpu.has("SrcMemKd") && gpu.field(row, "SrcMemKd").text == "Pageable") ||
                          (gpu.has("DstMemKd") && gpu.field(row, "DstMemKd").text == "Pageable");
        }
        op.communication = op.kind == op_kind::kernel && is_communication_kernel(name);
        op.name = gpu_trace.intern(name);
        gpu_trace.ops.push_back(op);
        ++gpu_trace.events_read;
    }
    if (gpu_trace.ops.empty())
        throw input_error(error_code::bad_trace, path, 0, 0, "the report has a header but no rows");
    for (const auto& [id, name] : names) gpu_trace.devices.push_back({id, name, 0, 0});
    if (!api_path.empty()) {
        csv_reader api(api_path, {"Start", "Duration", "Name", "CorrID", "Tid"});
        while (api.next(row)) {
            api_call call;
            const double start = api.number(row, "Start").value_or(0),
                         dur = std::max(0.0, api.number(row, "Duration").value_or(0));
            if (!(std::fabs(start) < double(max_trace_ns)) || !(dur < double(max_trace_ns)))
                throw input_error(error_code::bad_trace, api_path, api.line(), 0,
                                  "a start or duration beyond 2^62 ns (146 years): not a time of one run");
            call.start_ns = std::llround(start);
            call.end_ns = call.start_ns + std::llround(dur);
            call.correlation = std::llround(api.number(row, "CorrID").value_or(-1));
            call.thread = std::llround(api.number(row, "Tid").value_or(0));
            call.name = gpu_trace.intern(api.field(row, "Name").text);
            call.kind = classify_call(gpu_trace.name(call.name));
            gpu_trace.calls.push_back(call);
            ++gpu_trace.events_read;
        }
    }
    return gpu_trace;
}

}  // namespace roofline::timeline
