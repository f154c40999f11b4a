#include "analyzer/read/ncu_reader.hpp"

#include "analyzer/base/input_error.hpp"
#include "analyzer/read/csv_records.hpp"
#include "analyzer/read/display_names.hpp"
#include "analyzer/read/units.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace roofline {

const char* ncu_form_name(ncu_form f) {
    switch (f) {
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

// Positions of the columns a reader needs, found by name so that --nvtx columns and
// older layouts move nothing.
class header_index {
public:
    explicit header_index(const csv_record& header) {
        for (std::size_t i = 0; i < header.fields.size(); ++i) pos_.emplace(header.fields[i].text, i);
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

const std::string& field(const csv_record& r, std::optional<std::size_t> i) {
    static const std::string empty;
    return i && *i < r.fields.size() ? r.fields[*i].text : empty;
}

bool looks_like_metric_id(const std::string& name) { return name.find("__") != std::string::npos && name.find(' ') == std::string::npos; }

// A "(x, y, z)" cell; an empty or absent one is unknown, anything else is an error at its column.
std::optional<launch_dims> dims(const csv_record& r, std::optional<std::size_t> i, const char* column, const std::string& file) {
    if (!i || *i >= r.fields.size() || r.fields[*i].text.empty()) return std::nullopt;
    const csv_field& f = r.fields[*i];
    auto d = parse_launch_dims(f.text);
    if (!d)
        throw input_error(error_code::bad_number, file, r.line, f.column, std::string(column) + " \"" + f.text + "\" is not \"(x, y, z)\"");
    return d;
}

// Identity columns shared by every form.
struct identity_columns {
    std::optional<std::size_t> id, kernel, block, grid, device, cc, process;
    explicit identity_columns(const header_index& h)
        : id(h.find("ID")),
          kernel(h.find("Kernel Name")),
          block(h.find("Block Size")),
          grid(h.find("Grid Size")),
          device(h.find("Device")),
          cc(h.find("CC")),
          process(h.find("Process ID")) {}
    void fill(const csv_record& r, launch_record& out, const std::string& file) const {
        out.id = field(r, id);
        out.kernel_name = field(r, kernel);
        out.block_size = dims(r, block, "Block Size", file);
        out.grid_size = dims(r, grid, "Grid Size", file);
        out.device = field(r, device);
        out.cc = field(r, cc);
        out.line = r.line;
    }
};

class reader {
public:
    reader(std::istream& in, const std::string& file, const read_options& options, const launch_sink& sink)
        : records_(in, file), file_(file), numbers_(options.numbers), sink_(sink) {}

    read_summary run() {
        csv_record header;
        if (!records_.next(header)) {
            if (!records_.first_skipped().empty())
                throw input_error(error_code::unknown_format, file_, records_.first_skipped_line(), 1,
                                  unknown_format_hint(records_.first_skipped()));
            throw input_error(error_code::empty_input, file_, 0, 0, "the file holds no CSV rows (is it empty?)");
        }
        header_index h(header);
        if (h.has("Launch Attribute"))
            throw input_error(error_code::unknown_format, file_, header.line, 1,
                              "this is a --page session export, which holds no kernel metrics; export --page raw or --page details");
        if (h.has("Invocations") && h.has("Average")) {
            summary_.form = ncu_form::summary;
            read_long(header, h);
        } else if (h.has("Metric Name") && h.has("Metric Value")) {
            summary_.form = h.has("Rule Name") || !h.has("Block Size") ? ncu_form::details : ncu_form::metrics;
            read_long(header, h);
        } else if (h.has("ID") && h.has("Kernel Name")) {
            summary_.form = ncu_form::raw;
            read_raw(header, h);
        } else {
            throw input_error(error_code::unknown_format, file_, header.line, 1, unknown_format_hint(joined(header)));
        }
        if (summary_.launches == 0)
            throw input_error(error_code::header_only, file_, header.line, 0,
                              std::string("the ") + ncu_form_name(summary_.form) + " export has a header but no kernel rows");
        summary_.style = numbers_.style();
        summary_.style_assumed = numbers_.assumed();
        summary_.skipped_lines = records_.skipped_lines();
        for (auto& u : unknown_units_) summary_.notes.push_back("ignored values in unit \"" + u + "\", which the engine cannot convert");
        return summary_;
    }

private:
    static std::string joined(const csv_record& r) {
        std::string s;
        for (std::size_t i = 0; i < r.fields.size() && i < 4; ++i) s += (i ? "," : "") + r.fields[i].text;
        return s;
    }

    static std::string unknown_format_hint(const std::string& line) {
        std::string head = line.substr(0, 80);
        if (line.rfind("Time (%)", 0) == 0 || line.rfind("Time(%)", 0) == 0 || line.find("Total Time (ns)") != std::string::npos ||
            line.rfind("Start (ns)", 0) == 0)
            return "this looks like an Nsight Systems report (\"" + head +
                   "\"); roofline analyze reads Nsight Compute exports (ncu --csv --page raw|details)";
        return "not an Nsight Compute CSV export: the header starts \"" + head +
               "\"; expected ncu --csv output (--page raw, --page details, --metrics or --print-summary)";
    }

    const unit_scale* scale_for(const std::string& unit) {
        auto it = scales_.find(unit);
        if (it != scales_.end()) return it->second ? &*it->second : nullptr;
        auto s = to_base_unit(unit);
        if (!s) unknown_units_.insert(unit);
        auto [pos, _] = scales_.emplace(unit, s);
        return pos->second ? &*pos->second : nullptr;
    }

    // Stores one metric cell; a cell in a column with a unit must be a number.
    void store(launch_record& rec, const std::string& metric, const std::string& unit, const csv_field& cell, std::size_t line,
               const std::string& column_label) {
        cell_value v = numbers_.read(cell.text);
        if (v.what == cell_value::kind::missing) return;
        if (v.what == cell_value::kind::text) {
            if (!unit.empty())
                throw input_error(error_code::bad_number, file_, line, cell.column,
                                  "expected a number in " + column_label + " (unit \"" + unit + "\"), got \"" + cell.text + "\"");
            rec.texts[metric] = cell.text;
            return;
        }
        numbers_.note_read_while_unknown(cell.text);
        const unit_scale* s = scale_for(unit);
        if (!s) return;
        rec.numbers[metric] = v.number * s->factor;
    }

    void emit(launch_record& rec) {
        ++summary_.launches;
        sink_(std::move(rec));
        rec = launch_record{};
    }

    void read_raw(const csv_record& header, const header_index& h) {
        identity_columns ids(h);
        const std::size_t n = header.fields.size();
        // Metric columns start after the identity block; the identity names are known.
        static const std::set<std::string> identity = {"ID",     "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                                                       "Stream", "Block Size", "Grid Size",    "Device",    "CC",          "Kernel Time"};
        std::vector<std::size_t> metric_cols;
        for (std::size_t i = 0; i < n; ++i)
            if (!identity.count(header.fields[i].text) && header.fields[i].text.rfind("NVTX", 0) != 0 &&
                header.fields[i].text.find("thread_domain") == std::string::npos)
                metric_cols.push_back(i);
        std::vector<std::string> units(n);
        csv_record row;
        bool first = true;
        while (records_.next(row)) {
            if (row.fields.size() != n)
                throw input_error(error_code::column_count, file_, row.line, 0,
                                  "expected " + std::to_string(n) + " fields as in the header, found " + std::to_string(row.fields.size()));
            // The units row follows the header and has an empty ID.
            if (first && field(row, ids.id).empty()) {
                for (std::size_t i = 0; i < n; ++i) units[i] = row.fields[i].text;
                first = false;
                continue;
            }
            first = false;
            for (auto c : metric_cols) numbers_.observe(row.fields[c].text, file_, row.line, row.fields[c].column);
            launch_record rec;
            ids.fill(row, rec, file_);
            for (auto c : metric_cols)
                store(rec, header.fields[c].text, units[c], row.fields[c], row.line, "column \"" + header.fields[c].text + "\"");
            emit(rec);
        }
    }

    // Details, --metrics, summary and 2019-era exports: one row per metric.
    void read_long(const csv_record& header, const header_index& h) {
        identity_columns ids(h);
        const std::size_t n = header.fields.size();
        auto section = h.find("Section Name"), name = h.find("Metric Name"), unit = h.find("Metric Unit");
        auto value = summary_.form == ncu_form::summary ? h.find("Average") : h.find("Metric Value");
        auto rule_name = h.find("Rule Name"), rule_type = h.find("Rule Type"), rule_desc = h.find("Rule Description");
        auto speedup_type = h.find("Estimated Speedup Type"), speedup = h.find("Estimated Speedup");
        auto invocations = h.find("Invocations");
        std::size_t value_end = *value + 1;
        launch_record rec;
        std::string key;  // which launch the rows belong to
        csv_record row;
        while (records_.next(row)) {
            std::size_t got = row.fields.size();
            bool metric_row_short = got == value_end || (got == value_end + 1 && row.fields.back().text.empty());
            if (got != n && !metric_row_short)
                throw input_error(error_code::column_count, file_, row.line, 0,
                                  "expected " + std::to_string(n) + " fields as in the header (or " + std::to_string(value_end) +
                                      " for a metric row), found " + std::to_string(got));
            std::string row_key = summary_.form == ncu_form::summary ? field(row, ids.process) + "|" + field(row, ids.kernel) + "|" +
                                                                           field(row, ids.block) + "|" + field(row, ids.grid)
                                                                     : field(row, ids.id);
            if (row_key != key) {
                if (!key.empty()) emit(rec);
                key = row_key;
                ids.fill(row, rec, file_);
                if (invocations) {
                    cell_value inv = read_cell(field(row, invocations), number_style::point);
                    if (inv.what != cell_value::kind::number || inv.number < 1)
                        throw input_error(error_code::bad_number, file_, row.line, row.fields[*invocations].column,
                                          "expected a launch count in column \"Invocations\", got \"" + field(row, invocations) + "\"");
                    rec.invocations = std::size_t(inv.number);
                }
            }
            const std::string& rname = field(row, rule_name);
            if (!rname.empty()) {
                ncu_rule rule;
                rule.section = field(row, section);
                rule.name = rname;
                rule.type = field(row, rule_type);
                rule.description = field(row, rule_desc);
                rule.speedup_type = field(row, speedup_type);
                cell_value sp = numbers_.read(field(row, speedup));
                if (sp.what == cell_value::kind::number) rule.est_speedup_pct = sp.number;
                rec.rules.push_back(std::move(rule));
                continue;
            }
            const std::string& mname = field(row, name);
            if (mname.empty()) continue;
            std::string id = looks_like_metric_id(mname) ? mname : metric_id_for_display(field(row, section), mname);
            if (id.empty()) id = "display:" + field(row, section) + "/" + mname;  // kept, but no stage reads it
            const csv_field& cell = row.fields[*value];
            numbers_.observe(cell.text, file_, row.line, cell.column);
            store(rec, id, field(row, unit), cell, row.line, "\"" + mname + "\"");
        }
        if (!key.empty()) emit(rec);
    }

    csv_records records_;
    std::string file_;
    number_reader numbers_;
    const launch_sink& sink_;
    read_summary summary_;
    std::map<std::string, std::optional<unit_scale>> scales_;
    std::set<std::string> unknown_units_;
};

}  // namespace

read_summary read_ncu_csv(std::istream& in, const std::string& file, const read_options& options, const launch_sink& sink) {
    return reader(in, file, options, sink).run();
}

}  // namespace roofline
