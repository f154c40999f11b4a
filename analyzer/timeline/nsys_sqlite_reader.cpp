#include "analyzer/timeline/nsys_sqlite_reader.hpp"

#include "analyzer/base/input_error.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace roofline::timeline {
namespace {

constexpr std::int64_t max_time_ns = 4'000'000'000'000'000'000;

using database = std::unique_ptr<sqlite3, decltype(&sqlite3_close)>;
using statement = std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)>;

class reader {
public:
    explicit reader(const std::string& path) : path_(path), db_(nullptr, &sqlite3_close) {
        sqlite3* raw = nullptr;
        const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
        db_.reset(raw);
        if (rc != SQLITE_OK)
            throw input_error(
                error_code::io, path, 0, 0,
                std::string("cannot open the SQLite export: ") + (raw ? sqlite3_errmsg(raw) : "out of memory"));
        // The file is data, not code: no function of its schema runs with any trust, and no value longer
        // than a kernel name could be (an export's longest names are a few KiB) is made or read.
        sqlite3_db_config(raw, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
        sqlite3_db_config(raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
        sqlite3_limit(raw, SQLITE_LIMIT_LENGTH, max_value_bytes);
    }
    static constexpr int max_value_bytes = 1 << 20;

    // The stored columns of a table: table_xinfo lists the generated ones too (hidden 2 and 3), which an
    // export never has and which would run the file's expressions on every read: they are left out.
    std::set<std::string> columns(const std::string& table) {
        std::set<std::string> out;
        each("PRAGMA table_xinfo(" + table + ")", [&](sqlite3_stmt* stmt) {
            if (sqlite3_column_int(stmt, 6) == 0) out.insert(text(stmt, 1));
        });
        return out;
    }
    // An ordinary table of that name: a view, a virtual table or a trigger is not read as one.
    bool has_table(const std::string& table) {
        bool found = false;
        each("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '" + table +
                 "' AND upper(sql) NOT LIKE 'CREATE VIRTUAL%'",
             [&](sqlite3_stmt*) { found = true; });
        return found;
    }
    // Every row of the query, one at a time: the export is never held whole.
    void each(const std::string& sql, const std::function<void(sqlite3_stmt*)>& row) {
        sqlite3_stmt* raw = nullptr;
        if (sqlite3_prepare_v2(db_.get(), sql.c_str(), -1, &raw, nullptr) != SQLITE_OK)
            fail(std::string("cannot read it (") + sqlite3_errmsg(db_.get()) + ") in: " + sql);
        statement prepared(raw, &sqlite3_finalize);
        for (;;) {
            const int rc = sqlite3_step(prepared.get());
            if (rc == SQLITE_DONE) break;
            if (rc != SQLITE_ROW) fail(std::string("cannot read a row (") + sqlite3_errmsg(db_.get()) + ") of: " + sql);
            row(prepared.get());
        }
    }
    // A table's column the reader needs, or an error that names both.
    void require(const std::string& table, std::initializer_list<const char*> needed) {
        const auto have = columns(table);
        for (const char* column_name : needed)
            if (!have.count(column_name))
                throw input_error(error_code::bad_trace, path_, 0, 0,
                                  "table " + table + " has no column " + column_name +
                                      " (a generated column is not read): an export of another layout (export it again "
                                      "with a recent nsys: "
                                      "`nsys export --type sqlite --force-overwrite true REPORT.nsys-rep`)");
    }
    [[noreturn]] void fail(const std::string& what) const { throw input_error(error_code::io, path_, 0, 0, what); }
    static std::string text(sqlite3_stmt* stmt, int column) {
        const auto* chars = sqlite3_column_text(stmt, column);
        return chars ? reinterpret_cast<const char*>(chars) : "";
    }

private:
    std::string path_;
    database db_;
};

// ENUM_CUDA_MEM_KIND's id of "Pageable" (0 in the exports of FORMATS.md section 3; the table says).
std::int64_t pageable_kind(reader& db_reader) {
    std::int64_t id = 0;
    if (db_reader.has_table("ENUM_CUDA_MEM_KIND"))
        db_reader.each("SELECT id, label FROM ENUM_CUDA_MEM_KIND", [&](sqlite3_stmt* stmt) {
            if (reader::text(stmt, 1) == "Pageable") id = sqlite3_column_int64(stmt, 0);
        });
    return id;
}

copy_direction direction_of(std::int64_t copy_kind) {
    switch (copy_kind) {  // ENUM_CUDA_MEMCPY_OPER
        case 1:
        case 11:
            return copy_direction::host_to_device;
        case 2:
        case 12:
            return copy_direction::device_to_host;
        case 8:
        case 13:
            return copy_direction::device_to_device;
        case 10:
            return copy_direction::peer;
        default:
            return copy_direction::other;
    }
}

}  // namespace

trace read_nsys_sqlite(const std::string& path) {
    reader db_reader(path);
    trace nsys_trace;
    nsys_trace.file = path;
    nsys_trace.form = "Nsight Systems SQLite export";
    if (!db_reader.has_table("StringIds"))
        throw input_error(error_code::bad_trace, path, 0, 0,
                          "no StringIds table: not an Nsight Systems export (`nsys export --type sqlite`)");
    // The shape of every table is checked before it is read.
    db_reader.require("StringIds", {"id", "value"});
    // Names by id, interned as the rows that use them come (only the names some row uses are kept).
    std::map<std::int64_t, name_id> names;
    std::map<std::int64_t, std::string> strings;
    db_reader.each("SELECT id, value FROM StringIds",
                   [&](sqlite3_stmt* stmt) { strings[sqlite3_column_int64(stmt, 0)] = reader::text(stmt, 1); });
    auto name_of = [&](std::int64_t id) {
        auto it = names.find(id);
        if (it != names.end()) return it->second;
        auto text = strings.find(id);
        return names[id] = nsys_trace.intern(text == strings.end() ? "(unnamed)" : text->second);
    };
    if (db_reader.has_table("TARGET_INFO_GPU")) {
        db_reader.require("TARGET_INFO_GPU", {"id", "name"});
        const bool sms = db_reader.columns("TARGET_INFO_GPU").count("smCount") != 0;
        db_reader.each(std::string("SELECT id, name") + (sms ? ", smCount" : "") + " FROM TARGET_INFO_GPU",
                       [&](sqlite3_stmt* stmt) {
                           device_info device;
                           device.id = static_cast<std::int32_t>(sqlite3_column_int64(stmt, 0));
                           device.name = reader::text(stmt, 1);
                           if (sms)
                               device.sm_count = static_cast<int>(
                                   std::clamp<std::int64_t>(sqlite3_column_int64(stmt, 2), 0, 1'000'000));
                           nsys_trace.devices.push_back(device);
                       });
    }
    // A kernel's grid, where the export has it (gridX/Y/Z).
    const bool grids = db_reader.has_table("CUPTI_ACTIVITY_KIND_KERNEL") && [&] {
        const auto kernel_columns = db_reader.columns("CUPTI_ACTIVITY_KIND_KERNEL");
        return kernel_columns.count("gridX") && kernel_columns.count("gridY") && kernel_columns.count("gridZ");
    }();
    auto gpu_rows = [&](const char* table, op_kind kind, const std::string& extra_columns,
                        const std::function<void(sqlite3_stmt*, gpu_op&)>& more) {
        if (!db_reader.has_table(table)) return;
        db_reader.require(table, {"start", "end", "deviceId", "streamId", "correlationId"});
        db_reader.each(
            std::string("SELECT start, end, deviceId, streamId, correlationId") + extra_columns + " FROM " + table,
            [&](sqlite3_stmt* stmt) {
                gpu_op op;
                op.start_ns = sqlite3_column_int64(stmt, 0);
                op.end_ns = sqlite3_column_int64(stmt, 1);
                op.device = static_cast<std::int32_t>(sqlite3_column_int64(stmt, 2));
                op.stream = sqlite3_column_int64(stmt, 3);
                op.correlation = sqlite3_column_int64(stmt, 4);
                op.kind = kind;
                more(stmt, op);
                // Times on the capture's clock, in ns: a row outside [0, 4e18] is no time (and its
                // length would not fit a 64-bit count).
                if (op.start_ns < 0 || op.end_ns > max_time_ns || op.end_ns < op.start_ns)
                    throw input_error(error_code::bad_trace, path, 0, 0,
                                      std::string("a row of ") + table + " with start " + std::to_string(op.start_ns) +
                                          " and end " + std::to_string(op.end_ns) +
                                          ": not an interval of the capture's clock");
                nsys_trace.ops.push_back(op);
                ++nsys_trace.events_read;
            });
    };
    gpu_rows("CUPTI_ACTIVITY_KIND_KERNEL", op_kind::kernel,
             grids ? ", demangledName, gridX, gridY, gridZ" : ", demangledName", [&](sqlite3_stmt* stmt, gpu_op& op) {
                 op.name = name_of(sqlite3_column_int64(stmt, 5));
                 op.communication = is_communication_kernel(nsys_trace.name(op.name));
                 if (grids) {
                     // NULL (an export without launch configurations) or 0 is unknown.
                     double blocks = 1.0;
                     for (int column = 6; column <= 8; ++column)
                         blocks *= sqlite3_column_type(stmt, column) == SQLITE_NULL
                                       ? 0.0
                                       : double(sqlite3_column_int64(stmt, column));
                     if (blocks >= 1.0 && blocks < 4e9) op.grid_blocks = static_cast<std::uint32_t>(blocks);
                 }
             });
    const std::int64_t pageable = pageable_kind(db_reader);
    if (db_reader.has_table("CUPTI_ACTIVITY_KIND_MEMCPY"))
        db_reader.require("CUPTI_ACTIVITY_KIND_MEMCPY", {"bytes", "copyKind", "srcKind", "dstKind"});
    gpu_rows("CUPTI_ACTIVITY_KIND_MEMCPY", op_kind::memcpy, ", bytes, copyKind, srcKind, dstKind",
             [&](sqlite3_stmt* stmt, gpu_op& op) {
                 op.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, sqlite3_column_int64(stmt, 5)));
                 op.direction = direction_of(sqlite3_column_int64(stmt, 6));
                 op.pageable = sqlite3_column_int64(stmt, 7) == pageable || sqlite3_column_int64(stmt, 8) == pageable;
                 static const char* label[] = {"[CUDA memcpy other]",          "[CUDA memcpy Host-to-Device]",
                                               "[CUDA memcpy Device-to-Host]", "[CUDA memcpy Device-to-Device]",
                                               "[CUDA memcpy Peer-to-Peer]",   "[CUDA memcpy other]"};
                 const auto direction_index = static_cast<std::size_t>(op.direction);
                 op.name = nsys_trace.intern(std::string(label[direction_index]) + (op.pageable ? " (Pageable)" : ""));
             });
    if (db_reader.has_table("CUPTI_ACTIVITY_KIND_MEMSET")) db_reader.require("CUPTI_ACTIVITY_KIND_MEMSET", {"bytes"});
    gpu_rows("CUPTI_ACTIVITY_KIND_MEMSET", op_kind::memset, ", bytes", [&](sqlite3_stmt* stmt, gpu_op& op) {
        op.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, sqlite3_column_int64(stmt, 5)));
        op.name = nsys_trace.intern("[CUDA memset]");
    });
    if (nsys_trace.ops.empty())
        throw input_error(error_code::bad_trace, path, 0, 0,
                          "no kernel, memcpy or memset rows (tables CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET): "
                          "capture with `nsys profile --trace=cuda`");
    if (db_reader.has_table("CUPTI_ACTIVITY_KIND_RUNTIME")) {
        db_reader.require("CUPTI_ACTIVITY_KIND_RUNTIME", {"start", "end", "globalTid", "correlationId", "nameId"});
        db_reader.each("SELECT start, end, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME",
                       [&](sqlite3_stmt* stmt) {
                           api_call call;
                           call.start_ns = std::clamp<std::int64_t>(sqlite3_column_int64(stmt, 0), 0, max_time_ns);
                           call.end_ns =
                               std::clamp<std::int64_t>(sqlite3_column_int64(stmt, 1), call.start_ns, max_time_ns);
                           call.thread = sqlite3_column_int64(stmt, 2);
                           call.correlation = sqlite3_column_int64(stmt, 3);
                           call.name = name_of(sqlite3_column_int64(stmt, 4));
                           call.kind = classify_call(nsys_trace.name(call.name));
                           nsys_trace.calls.push_back(call);
                           ++nsys_trace.events_read;
                       });
    }
    // NVTX ranges (push/pop 59, start/end 60): "ProfilerStep#N" or "step..." ranges are steps, an
    // operator's range (aten::..., from emit_nvtx) the caller of the calls inside it, any other a range
    // the user named (trace.hpp, mark_of).
    if (db_reader.has_table("NVTX_EVENTS")) {
        const auto have = db_reader.columns("NVTX_EVENTS");
        if (have.count("start") && have.count("end") && have.count("globalTid") && have.count("text") &&
            have.count("eventType")) {
            const bool text_ids = have.count("textId") != 0;
            db_reader.each(
                std::string("SELECT start, end, globalTid, text") + (text_ids ? ", textId" : "") +
                    " FROM NVTX_EVENTS WHERE eventType IN (59, 60) AND end IS NOT NULL",
                [&](sqlite3_stmt* stmt) {
                    std::string label = reader::text(stmt, 3);
                    if (label.empty() && text_ids && sqlite3_column_type(stmt, 4) != SQLITE_NULL) {
                        auto it = strings.find(sqlite3_column_int64(stmt, 4));
                        if (it != strings.end()) label = it->second;
                    }
                    const auto start = std::clamp<std::int64_t>(sqlite3_column_int64(stmt, 0), 0, max_time_ns);
                    const cpu_range range{start,
                                          std::clamp<std::int64_t>(sqlite3_column_int64(stmt, 1), start, max_time_ns),
                                          sqlite3_column_int64(stmt, 2), nsys_trace.intern(label)};
                    // "ProfilerStep#3", "step 3", "Step_3", "step": a word "step" and what numbers it.
                    const bool step = label.rfind("ProfilerStep#", 0) == 0 ||
                                      ((label.rfind("step", 0) == 0 || label.rfind("Step", 0) == 0) &&
                                       (label.size() == 4 || !std::isalpha(static_cast<unsigned char>(label[4]))));
                    // A range the user named marks what the CPU was doing; an operator's (emit_nvtx's
                    // aten::...) is dispatch, and names the caller of a call inside it.
                    if (step) {
                        nsys_trace.steps.push_back(range);
                    } else if (auto mark = mark_of(label, false)) {
                        mark->range = range;
                        nsys_trace.marks.push_back(*mark);
                    } else {
                        nsys_trace.cpu_ops.push_back(range);
                    }
                    ++nsys_trace.events_read;
                });
        }
    }
    return nsys_trace;
}

}  // namespace roofline::timeline
