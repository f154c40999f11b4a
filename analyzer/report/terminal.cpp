// The compact view for a terminal: the top kernels with their bound, % of roof and first finding,
// then the workload's top opportunities. Colour (ANSI) only when asked for. It fits the width it
// is given by narrowing the kernel names and moving a finding that does not fit onto its own line;
// verdicts, numbers and finding ids are never cut.
#include "analyzer/base/format.hpp"
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/report/text.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace roofline {
namespace {

struct palette {
    bool on;
    std::string wrap(const char* code, const std::string& text) const {
        return on ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
    }
    std::string bold(const std::string& text) const { return wrap("1", text); }
    std::string dim(const std::string& text) const { return wrap("2", text); }
    std::string bound(roofline::bound verdict_bound, const std::string& text) const {
        return wrap(bound_ansi_colour(verdict_bound), text);
    }
};

constexpr std::size_t name_width = 34;  // kernel names, when the width allows
constexpr std::size_t least_name_width = 12;

// The kernel-name column for a line of `fixed` other characters and a last column of `last`.
std::size_t name_column(std::size_t width, std::size_t fixed, std::size_t last) {
    if (width == 0) return name_width;
    const std::size_t room = width > fixed + last ? width - fixed - last : 0;
    return std::clamp(room, least_name_width, name_width);
}

// Every kernel's name as the terminal shows it; kernels of one name (one function on two grids) get
// their grid after it, the part that tells them apart.
std::vector<std::string> names_apart(const analysis& analysed) {
    std::map<std::string, std::size_t> count;
    for (const auto& kernel : analysed.kernels) ++count[printable(plain_name(kernel.group.name))];
    std::vector<std::string> out;
    for (const auto& kernel : analysed.kernels) {
        std::string shown_name = printable(plain_name(kernel.group.name));
        if (count[shown_name] > 1 && kernel.group.grid_size) {
            const auto& grid = kernel.group.grid_size->xyz;
            shown_name +=
                " grid " + std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]);
        }
        out.push_back(std::move(shown_name));
    }
    return out;
}

// `head`, `gap`, `tail` on one line when `visible` characters fit in `width` (0: no limit), else
// `tail` on the next line, indented.
std::string one_or_two_lines(const std::string& head, const char* gap, const std::string& tail, std::size_t visible,
                             std::size_t width) {
    return width && visible > width ? head + "\n  " + tail : head + gap + tail;
}

}  // namespace

// Labels of at most `width` characters that tell the names apart. A name that fits is itself; one that
// does not is cut ("nvjet_sm90_tst_2~"), and where cutting makes two equal, each keeps its start and the
// part from where it first differs from the others ("nvjet_s~128x64_6~"); where even that is not
// enough, a number ("nvjet_sm90~#2").
std::vector<std::string> distinct_labels(const std::vector<std::string>& names, std::size_t width) {
    std::vector<std::string> out;
    for (const auto& full_name : names)
        out.push_back(full_name.size() <= width ? full_name : full_name.substr(0, width - 1) + "~");
    auto clashes = [&](std::size_t index) {
        for (std::size_t j = 0; j < out.size(); ++j)
            if (j != index && out[j] == out[index] && names[j] != names[index]) return true;
        return false;
    };
    std::vector<std::size_t> clashing;
    for (std::size_t i = 0; i < out.size(); ++i)
        if (clashes(i)) clashing.push_back(i);
    const std::size_t head = std::max<std::size_t>(4, width / 3);
    const std::vector<std::string> cut = out;  // the clashes as found, before any label is rewritten
    for (std::size_t i : clashing) {
        // Where this name first differs from each it clashes with; the latest such place tells it from all.
        std::size_t differs = 0;
        for (std::size_t j : clashing) {
            if (names[j] == names[i] || cut[j] != cut[i]) continue;
            std::size_t common = 0;
            while (common < names[i].size() && common < names[j].size() && names[i][common] == names[j][common])
                ++common;
            differs = std::max(differs, common);
        }
        const std::size_t room = width > head + 2 ? width - head - 2 : 0;  // "~" between, "~" at the end where cut
        std::size_t from = differs > 2 ? differs - 2 : differs;
        // Where the difference lies within the last `room` characters, show the name's end: it holds it.
        if (names[i].size() > room && names[i].size() - room <= differs) from = std::min(from, names[i].size() - room);
        std::string tail = names[i].substr(std::min(from, names[i].size()));
        if (tail.size() > room + 1) tail = tail.substr(0, room) + "~";
        out[i] = names[i].substr(0, head) + "~" + tail;
    }
    // Still equal (the names differ only past what the width shows): number them.
    // The clashes are found first, then numbered: a label rewritten in the loop would stop clashing with the
    // next one, which kept a label another name also had, or both got #1.
    std::vector<std::size_t> still;
    for (std::size_t i = 0; i < out.size(); ++i)
        if (clashes(i)) still.push_back(i);
    std::map<std::string, std::size_t> seen;
    std::vector<std::string> numbered = out;
    for (std::size_t i : still) {
        const std::string suffix = "#" + std::to_string(++seen[out[i]]);
        numbered[i] = names[i].substr(0, width > suffix.size() + 1 ? width - suffix.size() - 1 : 0) + "~" + suffix;
    }
    return numbered;
}

std::string render_terminal(const analysis& analysed, const print_options& options) {
    palette paint{options.colour};
    const std::size_t top = options.top;
    std::ostringstream out;
    {
        const std::string input = printable(analysed.input);
        const std::string counts =
            std::to_string(analysed.kernels.size()) + (analysed.kernels.size() == 1 ? " kernel, " : " kernels, ") +
            std::to_string(analysed.launches_kept) + " launches, " + format_duration_ns(analysed.total_ns);
        // "roofline  INPUT  on GPU  | COUNTS"
        const std::size_t visible = 10 + input.size() + 5 + analysed.gpu.name.size() + 4 + counts.size();
        out << one_or_two_lines(
                   paint.bold("roofline") + "  " + input + "  " + paint.dim("on") + " " + analysed.gpu.name, "  ",
                   paint.dim("|") + " " + counts, visible, options.width)
            << "\n\n";
    }
    const std::size_t shown = std::min(top, analysed.kernels.size());
    struct row {
        std::string verdict, roof, finding;
    };
    std::vector<row> rows;
    std::string estimated;  // the resources whose roof is an estimated spec figure
    std::size_t verdict_width = 15, roof_width = 9, finding_width = 13;  // the headers' widths
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& kernel = analysed.kernels[i];
        // The roof column names the resource behind every percentage: shares of different roofs side by side.
        row kernel_row{verdict_text(kernel.verdict), roof_pct_text(kernel), "-"};
        if (kernel.roof.binding && kernel_row.roof.find(' ') == std::string::npos && kernel_row.roof != "-")
            kernel_row.roof += " " + std::string(name(*kernel.roof.binding));
        // A roof from an estimated spec figure (hwspecs "estimated": true), the binding one or the
        // limiter's, is marked, and named below.
        for (const auto& id : {kernel.roof.binding, kernel.verdict.limiter})
            if (const resource_use* use = kernel.roof.find(id); use && use->peak_estimated) {
                kernel_row.roof += "*";
                if (estimated.find(name(use->id)) == std::string::npos)
                    estimated += (estimated.empty() ? "" : ", ") + std::string(name(use->id));
                break;
            }
        if (!kernel.diagnosis.findings.empty()) {
            const auto& first = kernel.diagnosis.findings.front();
            kernel_row.finding = first.id + (first.est_speedup ? " (" + format_number(*first.est_speedup) + "x)" : "");
            if (kernel.diagnosis.provisional) kernel_row.finding += "?";
            // Whose kernel it is, where it is not the user's: the fix is then at the call, not in the source.
            if (kernel.origin.kind != origin_kind::user)
                kernel_row.finding = origin_label(kernel.origin) + ": " + kernel_row.finding;
            if (!kernel.diagnosis.tied_with_first.empty())
                kernel_row.finding += " ~" + kernel.diagnosis.tied_with_first.front();
        }
        verdict_width = std::max(verdict_width, kernel_row.verdict.size());
        roof_width = std::max(roof_width, kernel_row.roof.size());
        finding_width = std::max(finding_width, kernel_row.finding.size());
        rows.push_back(std::move(kernel_row));
    }
    // #, time, share, verdict and roof with the two spaces before each column.
    const std::size_t fixed = 3 + 2 + 2 + 9 + 2 + 6 + 2 + verdict_width + 2 + roof_width + 2;
    // Where the findings do not fit beside a name of least_name_width, each goes on a line of its
    // own under its kernel, and the names take the room.
    const bool own_lines = options.width && fixed + least_name_width + finding_width > options.width;
    const std::size_t names = name_column(options.width, fixed, own_lines ? 0 : finding_width);
    const std::vector<std::string> all_names = names_apart(analysed);
    const std::vector<std::string> labels = distinct_labels(all_names, names);
    std::vector<column> columns = {{"#", align::right, 3, true, 0},
                                   {"kernel", align::left, names, true},
                                   {"time", align::right, 9},
                                   {"share", align::right, 6},
                                   {"bound / limiter", align::left, verdict_width, true},
                                   {"roof", align::right, roof_width, true}};
    if (!own_lines) columns.push_back({"first finding"});
    table kernel_table(std::move(columns));
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& kernel = analysed.kernels[i];
        std::vector<std::string> cells = {
            std::to_string(i + 1),        labels[i],       format_duration_ns(kernel.roof.duration_ns),
            format_percent(kernel.share), rows[i].verdict, rows[i].roof};
        if (!own_lines) cells.push_back(rows[i].finding);
        kernel_table.row(std::move(cells));
    }
    text_layout layout;
    layout.paint_header = [&](const std::string& line) { return paint.dim(line); };
    layout.paint_cell = [&](std::size_t row, std::size_t col, const std::string& cell) {
        return col == 4 ? paint.bound(analysed.kernels[row].verdict.bound, cell) : cell;
    };
    if (own_lines)
        layout.after_row = [&](std::size_t row) {
            return "\n     " + paint.dim("first finding:") + " " + rows[row].finding;
        };
    out << kernel_table.text(layout);
    if (analysed.kernels.size() > shown)
        out << paint.dim("     ... " + std::to_string(analysed.kernels.size() - shown) + " more kernels") << "\n";
    const auto ops = opportunities(analysed);
    if (!ops.empty()) {
        out << "\n"
            << paint.bold("Top opportunities")
            << paint.dim(" (GPU time saved over the workload, capped by the next roof)") << "\n";
        const std::size_t listed = std::min<std::size_t>(5, ops.size());
        std::size_t id_width = 22;
        for (std::size_t i = 0; i < listed; ++i) id_width = std::max(id_width, ops[i].finding->id.size());
        // #, id, speedup, then "saves 1.23 ms (45.6%)".
        const std::size_t op_names = name_column(options.width, 3 + 2 + id_width + 2 + 2 + 7, 24);
        const std::vector<std::string> op_labels = distinct_labels(all_names, op_names);
        table op_table({{"#", align::right, 3, true, 0},
                        {"finding", align::left, id_width, true},
                        {"kernel", align::left, op_names, true},
                        {"speedup", align::right, 7},
                        {"saves"}});
        for (std::size_t i = 0; i < listed; ++i) {
            const auto& op = ops[i];
            const double saved = *op.finding->est_time_saved_combined_ns;
            op_table.row({std::to_string(i + 1), op.finding->id, op_labels[op.kernel_rank],
                          format_number(*op.finding->est_speedup) + "x",
                          "saves " + format_duration_ns(saved) + " (" +
                              (analysed.total_ns > 0 ? format_percent(saved / analysed.total_ns) : "-") + ")"});
        }
        text_layout no_header;
        no_header.header = false;
        out << op_table.text(no_header);
    }
    if (!estimated.empty())
        out << "\n* the roof is an estimated spec figure (" << estimated << " on " << analysed.gpu.name
            << "): neither published nor measured in the capture; " << analysed.gpu.file
            << " says how it was derived\n";
    // What the capture leaves undecided, over every kernel: how many, and one command for all of it.
    std::size_t undecided = 0;
    std::vector<std::string> missing;
    for (const auto& kernel : analysed.kernels) {
        undecided += kernel.diagnosis.undecided.empty() ? 0 : 1;
        missing.insert(missing.end(), kernel.diagnosis.missing_metrics.begin(), kernel.diagnosis.missing_metrics.end());
    }
    if (undecided > 0) {
        const diagnose::collect_flags flags =
            diagnose::ncu_flags_for(missing, chip_for_cc(analysed.gpu.compute_capability));
        out << "\n"
            << count_text(undecided, "kernel", "kernels")
            << " not fully decided for lack of counters (the report says what)";
        if (analysed.read.form == ncu_form::details)
            out << "; the raw page of the same report holds every metric collected: ncu -i REPORT.ncu-rep --csv --page "
                   "raw\n";
        else if (!flags.empty())
            out << "; collect with: ncu " << flags.text() << " ...\n";
        else
            out << "; this GPU has no counter for it\n";
    }
    const std::string command = "roofline analyze " + printable(analysed.input) + " -o report.md";
    const std::string why = "Full report with the evidence and the tree paths:";
    out << "\n"
        << paint.dim(one_or_two_lines(why, " ", command, why.size() + 1 + command.size(), options.width)) << "\n";
    return out.str();
}

}  // namespace roofline
