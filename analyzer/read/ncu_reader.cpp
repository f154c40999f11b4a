#include "analyzer/read/ncu_reader.hpp"

#include "analyzer/base/input_error.hpp"
#include "analyzer/read/csv_records.hpp"
#include "analyzer/read/display_names.hpp"
#include "analyzer/read/ncu_rule_values.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/read/parallel_rows.hpp"
#include "analyzer/read/units.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <thread>

namespace roofline {

const char* ncu_form_name(ncu_form form) {
    switch (form) {
        case ncu_form::raw:
            return "raw page";
        case ncu_form::details:
            return "details page";
        case ncu_form::metrics:
            return "custom metric list (--metrics)";
        case ncu_form::summary:
            return "per-kernel summary (--print-summary per-kernel)";
    }
    return "?";
}

namespace {

// More launches than any capture holds, and few enough that a double counts them exactly.
constexpr double max_launches = 1e15;

// Positions of the columns a reader needs, found by name so that --nvtx columns and
// older layouts move nothing.
class header_index {
public:
    explicit header_index(const csv_record& header) {
        for (std::size_t i = 0; i < header.size(); ++i) pos_.emplace(std::string(header.text(i)), i);
    }
    std::optional<std::size_t> find(const std::string& name) const {
        auto it = pos_.find(name);
        if (it == pos_.end()) return std::nullopt;
        return it->second;
    }
    bool has(const std::string& name) const { return pos_.count(name) != 0; }

private:
    std::map<std::string, std::size_t> pos_;
};

std::string_view field(const csv_record& record, std::optional<std::size_t> index) {
    return index && *index < record.size() ? record.text(*index) : std::string_view();
}

// Where a field starts, for messages; 0 when the row is too short to have it.
std::size_t column_at(const csv_record& record, std::optional<std::size_t> index) {
    return index && *index < record.size() ? record.column(*index) : 0;
}

bool looks_like_metric_id(std::string_view name) {
    return name.find("__") != std::string_view::npos && name.find(' ') == std::string_view::npos;
}

// A "(x, y, z)" cell; an empty or absent one is unknown, anything else is an error at its column.
std::optional<launch_dims> dims(const csv_record& record, std::optional<std::size_t> index, const char* column,
                                const std::string& file) {
    if (!index || *index >= record.size() || record.text(*index).empty()) return std::nullopt;
    auto parsed = parse_launch_dims(record.text(*index));
    if (!parsed)
        throw input_error(error_code::bad_number, file, record.line, record.column(*index),
                          std::string(column) + " \"" + std::string(record.text(*index)) + "\" is not \"(x, y, z)\"");
    return parsed;
}

// Identity columns shared by every form.
struct identity_columns {
    std::optional<std::size_t> id, kernel, block, grid, device, cc, process;
    explicit identity_columns(const header_index& columns)
        : id(columns.find("ID")),
          kernel(columns.find("Kernel Name")),
          block(columns.find("Block Size")),
          grid(columns.find("Grid Size")),
          device(columns.find("Device")),
          cc(columns.find("CC")),
          process(columns.find("Process ID")) {}
    void fill(const csv_record& row, launch_record& out, const std::string& file) const {
        out.id = field(row, id);
        out.kernel_name = field(row, kernel);
        out.block_size = dims(row, block, "Block Size", file);
        out.grid_size = dims(row, grid, "Grid Size", file);
        out.device = field(row, device);
        out.cc = field(row, cc);
        out.line = row.line;
    }
};

// Where a metric's cells are and how to read them: resolved once per raw-page column (or per
// details-page row), so a cell costs a number parse and an array store. The views outlive the
// plan's use: a raw-page plan views the header and units the reader keeps, a details-page
// plan is used on the row it was made from.
struct column_plan {
    std::string_view metric;  // the id, for texts and messages
    metric_key key;
    std::string_view unit;
    const unit_scale* scale;  // nullptr: a unit the engine cannot convert (the value is skipped)
    std::string_view label;   // the header text or display name, for messages
    bool raw;                 // label is a raw-page column ("column \"X\"") or a display name ("\"X\"")
    bool may_be_negative;
};

// Built only when a message needs it.
std::string label_of(const column_plan& plan) {
    return plan.raw ? "column \"" + std::string(plan.label) + "\"" : "\"" + std::string(plan.label) + "\"";
}

// Stores one metric cell, `taken` as numbers.take read it; a cell in a column with a unit must be a number.
void store(launch_record& rec, const column_plan& plan, const cell_value& taken, std::string_view cell,
           std::size_t line, std::size_t column, number_reader& numbers, const std::string& file) {
    if (taken.what == cell_value::kind::missing) return;
    if (taken.what == cell_value::kind::text) {
        if (!plan.unit.empty())
            throw input_error(error_code::bad_number, file, line, column,
                              "expected a number in " + label_of(plan) + " (unit \"" + std::string(plan.unit) +
                                  "\"), got \"" + std::string(cell) + "\"");
        rec.texts[std::string(plan.metric)] = std::string(cell);
        return;
    }
    numbers.note_read_while_unknown(cell);
    const unit_scale* scale = plan.scale;
    if (!scale) return;
    const double value = taken.number * scale->factor;
    if (!std::isfinite(value))
        throw input_error(error_code::bad_number, file, line, column,
                          "the value in " + label_of(plan) + " is not a finite number: \"" + std::string(cell) + "\"");
    // A duration or a byte count cannot be negative. Other counters can: ncu derives some by
    // subtraction (lts__t_sectors_srcunit_tex_op_red_lookup_miss.sum reads -2 on real H100 captures).
    if (value < 0 && !plan.may_be_negative)
        throw input_error(error_code::bad_number, file, line, column,
                          std::string(scale->base == "ns" ? "a negative duration" : "a negative byte count") + " in " +
                              label_of(plan) + ": \"" + std::string(cell) + "\"");
    rec.set(plan.key, value == 0 ? 0.0 : value);  // -0 is 0
}

// Reads a raw page's data rows into launch records. The calling thread and the parallel reader's
// workers (parallel_rows.hpp) share one: each brings its own number_reader, and read() changes
// nothing else (it makes no metric key; the plans hold them).
struct raw_rows {
    const std::string& file;
    identity_columns ids;
    std::size_t fields = 0;
    std::vector<std::pair<std::size_t, column_plan>> plans;  // (field index, plan)

    void read(const csv_record& row, number_reader& numbers, launch_record& rec) const {
        if (row.size() != fields)
            throw input_error(
                error_code::column_count, file, row.line, 0,
                "expected " + std::to_string(fields) + " fields as in the header, found " + std::to_string(row.size()));
        // While no value has shown the number style, the whole row is looked at before any cell
        // is read, so a row's own grouped values can settle it ("1,056" alone cannot).
        if (numbers.style() == number_style::unknown)
            for (const auto& [field_index, plan] : plans)
                numbers.observe(row.text(field_index), file, row.line, row.column(field_index));
        ids.fill(row, rec, file);
        rec.values.reserve(plans.size());
        for (const auto& [field_index, plan] : plans) {
            const std::string_view cell = row.text(field_index);
            store(rec, plan, numbers.take(cell, file, row.line, row.column(field_index)), cell, row.line,
                  row.column(field_index), numbers, file);
        }
    }
};

class reader {
public:
    reader(std::istream& in, const std::string& file, const read_options& options, const launch_sink& sink)
        : records_(in, file),
          file_(file),
          numbers_(options.numbers),
          sink_(sink),
          threads_(options.threads ? options.threads
                                   : std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 4)),
          parallel_(options.parallel) {}

    read_summary run() {
        csv_record header;
        if (!records_.next(header)) {
            if (!records_.first_skipped().empty())
                throw input_error(error_code::unknown_format, file_, records_.first_skipped_line(), 1,
                                  unknown_format_hint(records_.first_skipped()));
            throw input_error(error_code::empty_input, file_, 0, 0, "the file holds no CSV rows (is it empty?)");
        }
        header_index columns(header);
        if (columns.has("Launch Attribute"))
            throw input_error(
                error_code::unknown_format, file_, header.line, 1,
                "this is a --page session export, which holds no kernel metrics; export --page raw or --page details");
        if (columns.has("Invocations") && columns.has("Average")) {
            summary_.form = ncu_form::summary;
            read_long(header, columns);
        } else if (columns.has("Metric Name") && columns.has("Metric Value")) {
            summary_.form =
                columns.has("Rule Name") || !columns.has("Block Size") ? ncu_form::details : ncu_form::metrics;
            read_long(header, columns);
        } else if (columns.has("ID") && columns.has("Kernel Name")) {
            summary_.form = ncu_form::raw;
            read_raw(header, columns);
        } else {
            throw input_error(error_code::unknown_format, file_, header.line, 1, unknown_format_hint(joined(header)));
        }
        if (summary_.launches == 0)
            throw input_error(
                error_code::header_only, file_, header.line, 0,
                std::string("the ") + ncu_form_name(summary_.form) + " export has a header but no kernel rows");
        summary_.style = numbers_.style();
        summary_.style_assumed = numbers_.assumed();
        summary_.skipped_lines = records_.skipped_lines() + parallel_skipped_;
        for (auto& unit : unknown_units_)
            summary_.notes.push_back("ignored values in unit \"" + unit + "\", which the engine cannot convert");
        return summary_;
    }

private:
    static std::string joined(const csv_record& record) {
        std::string text;
        for (std::size_t i = 0; i < record.size() && i < 4; ++i) {
            if (i) text += ',';
            text += record.text(i);
        }
        return text;
    }

    static std::string unknown_format_hint(const std::string& line) {
        if (line.find('\0') != std::string::npos)  // no CSV export holds a NUL byte
            return "binary input, not a CSV export (an Nsight Compute .ncu-rep report? export it with: ncu -i "
                   "REPORT.ncu-rep --csv "
                   "--page raw > report.csv)";
        std::string head = line.substr(0, 80);
        for (char& ch : head)  // binary input shows as '?', not as bytes sent to the user's terminal
            if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
        if (line.rfind("Time (%)", 0) == 0 || line.rfind("Time(%)", 0) == 0 ||
            line.find("Total Time (ns)") != std::string::npos || line.rfind("Start (ns)", 0) == 0)
            return "this looks like an Nsight Systems report (\"" + head +
                   "\"); roofline analyze reads Nsight Compute exports (ncu --csv --page raw|details). An nsys kernel "
                   "summary "
                   "(nsys stats --report cuda_gpu_kern_sum --format csv) is what roofline triage reads: roofline "
                   "triage FILE";
        return "not an Nsight Compute CSV export: the header starts \"" + head +
               "\"; expected ncu --csv output (--page raw, --page details, --metrics or --print-summary)";
    }

    const unit_scale* scale_for(std::string_view unit) {
        auto it = scales_.find(unit);
        if (it != scales_.end()) return it->second ? &*it->second : nullptr;
        auto scale = to_base_unit(std::string(unit));
        if (!scale) unknown_units_.emplace(unit);
        auto [pos, inserted] = scales_.emplace(std::string(unit), scale);
        return pos->second ? &*pos->second : nullptr;
    }

    // A unit that cannot be the metric's (a percentage for a duration): the units row is shifted
    // against the header, or the export was edited.
    void check_unit(std::string_view metric, std::string_view unit, std::size_t line, std::size_t column) {
        const unit_scale* scale = unit.empty() ? nullptr : scale_for(unit);  // derived metrics may have none
        if (!scale) return;
        if (auto expected = unit_mismatch(std::string(metric), *scale))
            throw input_error(error_code::bad_unit, file_, line, column,
                              "the unit \"" + std::string(unit) + "\" of \"" + std::string(metric) + "\" is not " +
                                  *expected + " (is the units row shifted against the header?)");
    }

    // One metric in units of another kind from one launch to the next (bytes, then sectors): each
    // value is converted from its own unit, and the report says so. A change of scale within one
    // kind (us, then ms) is how ncu's automatic units are written, and converts exactly.
    void note_unit_change(std::string_view metric, std::string_view unit, std::size_t line) {
        auto it = first_unit_.find(metric);
        if (it == first_unit_.end()) {
            first_unit_.emplace(std::string(metric), std::make_pair(std::string(unit), line));
            return;
        }
        if (it->second.first == unit) return;
        const unit_scale* was = scale_for(it->second.first);
        const unit_scale* now = scale_for(unit);
        if (was && now && was->base == now->base) return;
        if (!unit_changes_.emplace(metric).second) return;
        summary_.notes.push_back("\"" + std::string(metric) + "\" is in \"" + it->second.first + "\" at line " +
                                 std::to_string(it->second.second) + " and in \"" + std::string(unit) + "\" at line " +
                                 std::to_string(line) + "; each value was converted from its own unit");
    }

    column_plan plan_for(std::string_view metric, std::string_view unit, std::string_view label, bool raw) {
        const unit_scale* scale = scale_for(unit);
        const bool signed_kind =
            !scale || (scale->base != "ns" && scale->base != "byte") || metric.substr(0, 9) == "derived__";
        return {metric, intern_metric(metric), unit, scale, label, raw, signed_kind};
    }

    // --print-summary's "Invocations": a whole number of launches, read in the file's number style
    // ("1.234" is 1234 launches in a comma-style file, not 1), small enough to count exactly.
    std::size_t launch_count(const csv_record& row, std::size_t column) {
        const std::string_view text = field(row, column);
        const std::size_t at = column_at(row, column);
        numbers_.observe(text, file_, row.line, at);
        const cell_value count_cell = numbers_.read(text);
        if (count_cell.what != cell_value::kind::number ||
            !(count_cell.number >= 1 && count_cell.number <= max_launches) ||
            count_cell.number != std::floor(count_cell.number))
            throw input_error(
                error_code::bad_number, file_, row.line, at,
                "expected a launch count (a whole number from 1 to 1e15) in column \"Invocations\", got \"" +
                    std::string(text) + "\"");
        return std::size_t(count_cell.number);
    }

    void emit(launch_record& rec) {
        if (!name_note_ && !valid_utf8(rec.kernel_name)) {
            name_note_ = true;
            summary_.notes.push_back("the kernel name at line " + std::to_string(rec.line) +
                                     " (and maybe others) is not UTF-8; JSON shows its bad bytes as U+FFFD");
        }
        ++summary_.launches;
        sink_(std::move(rec));
        rec = launch_record{};
    }

    void read_raw(const csv_record& header_row, const header_index& columns) {
        identity_columns ids(columns);
        // The header and units rows are kept: the record's own texts change with the next row.
        std::vector<std::string> header;
        std::vector<std::size_t> header_columns;
        for (std::size_t i = 0; i < header_row.size(); ++i) {
            header.emplace_back(header_row.text(i));
            header_columns.push_back(header_row.column(i));
        }
        const std::size_t header_line = header_row.line;
        const std::size_t field_count = header.size();
        // Metric columns start after the identity block; the identity names are known.
        static const std::set<std::string, std::less<>> identity = {
            "ID",     "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
            "Stream", "Block Size", "Grid Size",    "Device",    "CC",          "Kernel Time"};
        std::vector<std::size_t> metric_cols;
        for (std::size_t i = 0; i < field_count; ++i)
            if (!identity.count(header[i]) && header[i].rfind("NVTX", 0) != 0 &&
                header[i].find("thread_domain") == std::string::npos)
                metric_cols.push_back(i);
        // One value per metric and launch: a metric named twice would leave one of them unread.
        std::map<std::string_view, std::size_t> seen;
        for (auto col : metric_cols) {
            auto [it, fresh] = seen.emplace(header[col], col);
            if (!fresh)
                throw input_error(error_code::unknown_format, file_, header_line, header_columns[col],
                                  "the column \"" + header[col] + "\" appears twice in the header (fields " +
                                      std::to_string(it->second + 1) + " and " + std::to_string(col + 1) + ")");
        }
        std::vector<std::string> units(field_count);
        // Only the columns some stage reads are parsed (metric_keys.hpp, engine_reads): a raw page
        // of --set full has ~2,200 metric columns and the engine reads ~150 of them. Every column's
        // unit is still checked against its metric, once, on the units row.
        raw_rows rows{file_, ids, field_count, {}};
        csv_record row;
        bool first = true;
        bool parallel_tried = false;
        while (records_.next(row)) {
            // The units row follows the header and has an empty ID. Without it every value would be
            // read in base units: milliseconds as nanoseconds.
            if (first) {
                if (row.size() != field_count)
                    throw input_error(error_code::column_count, file_, row.line, 0,
                                      "expected " + std::to_string(field_count) + " fields as in the header, found " +
                                          std::to_string(row.size()));
                if (!field(row, ids.id).empty())
                    throw input_error(
                        error_code::bad_unit, file_, row.line, 1,
                        "the raw page's units row is missing: the row after the header must give each column's unit "
                        "(ncu --csv --page raw writes it)");
                for (std::size_t i = 0; i < field_count; ++i) units[i] = row.text(i);
                for (auto col : metric_cols) check_unit(header[col], units[col], row.line, row.column(col));
                for (auto col : metric_cols) {
                    column_plan plan = plan_for(header[col], units[col], header[col], true);
                    if (metric_read_index(plan.key) >= 0) rows.plans.emplace_back(col, plan);
                }
                first = false;
                continue;
            }
            launch_record rec;
            rows.read(row, numbers_, rec);
            emit(rec);
            // Once a row has fixed the number style, the rest can be read on several threads:
            // workers then only check values against it, as this thread would.
            if (!parallel_tried && threads_ > 1 && numbers_.style() != number_style::unknown) {
                parallel_tried = true;
                std::vector<row_parser> parsers;
                for (std::size_t i = 0; i < threads_; ++i)
                    parsers.push_back(
                        [&rows, numbers = numbers_](const csv_record& record, launch_record& out) mutable {
                            rows.read(record, numbers, out);
                        });
                parallel_outcome done =
                    read_rows_in_parallel(records_.stream(), records_.unread(), records_.lines_read(),
                                          std::move(parsers), parallel_, [&](launch_record&& launch) {
                                              ++summary_.parallel_launches;
                                              emit(launch);
                                          });
                parallel_skipped_ += done.skipped;
                if (done.finished) break;
                records_.resume(done.rest, done.lines_before);  // one thread from the row the workers did not take
            }
        }
    }

    // Details, --metrics, summary and 2019-era exports: one row per metric.
    void read_long(const csv_record& header, const header_index& columns) {
        identity_columns ids(columns);
        const std::size_t field_count = header.size();
        auto section = columns.find("Section Name"), name = columns.find("Metric Name"),
             unit = columns.find("Metric Unit");
        auto value = summary_.form == ncu_form::summary ? columns.find("Average") : columns.find("Metric Value");
        auto rule_name = columns.find("Rule Name"), rule_type = columns.find("Rule Type"),
             rule_desc = columns.find("Rule Description");
        auto speedup_type = columns.find("Estimated Speedup Type"), speedup = columns.find("Estimated Speedup");
        auto invocations = columns.find("Invocations");
        std::size_t value_end = *value + 1;
        launch_record rec;
        std::string key;  // which launch the rows belong to
        std::string row_key;
        csv_record row;
        std::set<std::string, std::less<>> sections;  // the details page's sections seen for the launch
        // A details page's launch is whole once its rows end: what its silent rules say is added then.
        const auto finish = [&] {
            if (summary_.form == ncu_form::details)
                for (const auto& [metric, value] : metrics_of_silent_rules(sections, rec.rules))
                    if (!rec.has(metric)) rec.set(metric, value);
            sections.clear();
            emit(rec);
        };
        while (records_.next(row)) {
            std::size_t got = row.size();
            bool metric_row_short = got == value_end || (got == value_end + 1 && row.text(got - 1).empty());
            if (got != field_count && !metric_row_short)
                throw input_error(
                    error_code::column_count, file_, row.line, 0,
                    "expected " + std::to_string(field_count) + " fields as in the header" +
                        (value_end < field_count ? " (or " + std::to_string(value_end) + " for a metric row)"
                                                 : std::string()) +
                        ", found " + std::to_string(got));
            row_key = field(row, summary_.form == ncu_form::summary ? ids.process : ids.id);
            if (summary_.form == ncu_form::summary)
                for (auto part : {ids.kernel, ids.block, ids.grid}) {
                    row_key += '|';
                    row_key += field(row, part);
                }
            if (row_key != key) {
                if (!key.empty()) finish();
                key = row_key;
                ids.fill(row, rec, file_);
                if (invocations) rec.invocations = launch_count(row, *invocations);
            }
            const std::string_view rname = field(row, rule_name);
            if (!rname.empty()) {
                ncu_rule rule;
                rule.section = field(row, section);
                rule.name = rname;
                rule.type = field(row, rule_type);
                rule.description = field(row, rule_desc);
                rule.speedup_type = field(row, speedup_type);
                cell_value sp = numbers_.read(field(row, speedup));
                if (sp.what == cell_value::kind::number) rule.est_speedup_pct = sp.number;
                // What the rule states in words, where the page lists no row for it (ncu_rule_values.hpp).
                for (const auto& [metric, value] : metrics_stated_by(rule, rec.cc))
                    if (!rec.has(metric)) rec.set(metric, value);
                rec.rules.push_back(std::move(rule));
                continue;
            }
            const std::string_view mname = field(row, name);
            if (mname.empty()) continue;
            if (const std::string_view row_section = field(row, section); !sections.count(row_section))
                sections.emplace(row_section);
            std::string id =
                looks_like_metric_id(mname) ? std::string(mname) : metric_id_for_display(field(row, section), mname);
            if (id.empty())
                id = "display:" + std::string(field(row, section)) + "/" +
                     std::string(mname);  // kept, but no stage reads it
            const std::string_view cell = row.text(*value);
            const cell_value taken = numbers_.take(cell, file_, row.line, row.column(*value));
            const std::string_view unit_text = field(row, unit);
            if (unit) check_unit(id, unit_text, row.line, column_at(row, unit));
            note_unit_change(id, unit_text, row.line);
            store(rec, plan_for(id, unit_text, mname, false), taken, cell, row.line, row.column(*value), numbers_,
                  file_);
        }
        if (!key.empty()) finish();
    }

    csv_records records_;
    std::string file_;
    number_reader numbers_;
    const launch_sink& sink_;
    read_summary summary_;
    std::map<std::string, std::optional<unit_scale>, std::less<>> scales_;
    std::set<std::string, std::less<>> unknown_units_;
    std::map<std::string, std::pair<std::string, std::size_t>, std::less<>>
        first_unit_;  // metric -> its first unit and line
    std::set<std::string, std::less<>> unit_changes_;
    bool name_note_ = false;
    std::size_t threads_;
    parallel_options parallel_;
    std::size_t parallel_skipped_ = 0;  // lines the parallel reader skipped
};

}  // namespace

read_summary read_ncu_csv(std::istream& in, const std::string& file, const read_options& options,
                          const launch_sink& sink) {
    return reader(in, file, options, sink).run();
}

}  // namespace roofline
