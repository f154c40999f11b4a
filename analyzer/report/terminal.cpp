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
    std::string wrap(const char* code, const std::string& s) const {
        return on ? std::string("\033[") + code + "m" + s + "\033[0m" : s;
    }
    std::string bold(const std::string& s) const { return wrap("1", s); }
    std::string dim(const std::string& s) const { return wrap("2", s); }
    std::string bound(roofline::bound b, const std::string& s) const { return wrap(bound_ansi_colour(b), s); }
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
std::vector<std::string> names_apart(const analysis& a) {
    std::map<std::string, std::size_t> count;
    for (const auto& k : a.kernels) ++count[printable(plain_name(k.group.name))];
    std::vector<std::string> out;
    for (const auto& k : a.kernels) {
        std::string n = printable(plain_name(k.group.name));
        if (count[n] > 1 && k.group.grid_size) {
            const auto& g = k.group.grid_size->xyz;
            n += " grid " + std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]);
        }
        out.push_back(std::move(n));
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
    for (const auto& n : names) out.push_back(n.size() <= width ? n : n.substr(0, width - 1) + "~");
    auto clashes = [&](std::size_t i) {
        for (std::size_t j = 0; j < out.size(); ++j)
            if (j != i && out[j] == out[i] && names[j] != names[i]) return true;
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
            std::size_t d = 0;
            while (d < names[i].size() && d < names[j].size() && names[i][d] == names[j][d]) ++d;
            differs = std::max(differs, d);
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

std::string render_terminal(const analysis& a, const print_options& options) {
    palette p{options.colour};
    const std::size_t top = options.top;
    std::ostringstream o;
    {
        const std::string input = printable(a.input);
        const std::string counts = std::to_string(a.kernels.size()) +
                                   (a.kernels.size() == 1 ? " kernel, " : " kernels, ") +
                                   std::to_string(a.launches_kept) + " launches, " + format_duration_ns(a.total_ns);
        // "roofline  INPUT  on GPU  | COUNTS"
        const std::size_t visible = 10 + input.size() + 5 + a.gpu.name.size() + 4 + counts.size();
        o << one_or_two_lines(p.bold("roofline") + "  " + input + "  " + p.dim("on") + " " + a.gpu.name, "  ",
                              p.dim("|") + " " + counts, visible, options.width)
          << "\n\n";
    }
    const std::size_t shown = std::min(top, a.kernels.size());
    struct row {
        std::string verdict, roof, finding;
    };
    std::vector<row> rows;
    std::string estimated;  // the resources whose roof is an estimated spec figure
    std::size_t verdict_width = 15, roof_width = 9, finding_width = 13;  // the headers' widths
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& k = a.kernels[i];
        // The roof column names the resource behind every percentage: shares of different roofs side by side.
        row r{verdict_text(k.verdict), roof_pct_text(k), "-"};
        if (k.roof.binding && r.roof.find(' ') == std::string::npos && r.roof != "-")
            r.roof += " " + std::string(name(*k.roof.binding));
        // A roof from an estimated spec figure (hwspecs "estimated": true), the binding one or the
        // limiter's, is marked, and named below.
        for (const auto& id : {k.roof.binding, k.verdict.limiter})
            if (const resource_use* b = k.roof.find(id); b && b->peak_estimated) {
                r.roof += "*";
                if (estimated.find(name(b->id)) == std::string::npos)
                    estimated += (estimated.empty() ? "" : ", ") + std::string(name(b->id));
                break;
            }
        if (!k.diagnosis.findings.empty()) {
            const auto& f = k.diagnosis.findings.front();
            r.finding = f.id + (f.est_speedup ? " (" + format_number(*f.est_speedup) + "x)" : "");
            if (k.diagnosis.provisional) r.finding += "?";
            // Whose kernel it is, where it is not the user's: the fix is then at the call, not in the source.
            if (k.origin.kind != origin_kind::user) r.finding = origin_label(k.origin) + ": " + r.finding;
            if (!k.diagnosis.tied_with_first.empty()) r.finding += " ~" + k.diagnosis.tied_with_first.front();
        }
        verdict_width = std::max(verdict_width, r.verdict.size());
        roof_width = std::max(roof_width, r.roof.size());
        finding_width = std::max(finding_width, r.finding.size());
        rows.push_back(std::move(r));
    }
    // #, time, share, verdict and roof with the two spaces before each column.
    const std::size_t fixed = 3 + 2 + 2 + 9 + 2 + 6 + 2 + verdict_width + 2 + roof_width + 2;
    // Where the findings do not fit beside a name of least_name_width, each goes on a line of its
    // own under its kernel, and the names take the room.
    const bool own_lines = options.width && fixed + least_name_width + finding_width > options.width;
    const std::size_t names = name_column(options.width, fixed, own_lines ? 0 : finding_width);
    const std::vector<std::string> all_names = names_apart(a);
    const std::vector<std::string> labels = distinct_labels(all_names, names);
    std::vector<column> columns = {{"#", align::right, 3, true, 0},
                                   {"kernel", align::left, names, true},
                                   {"time", align::right, 9},
                                   {"share", align::right, 6},
                                   {"bound / limiter", align::left, verdict_width, true},
                                   {"roof", align::right, roof_width, true}};
    if (!own_lines) columns.push_back({"first finding"});
    table t(std::move(columns));
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& k = a.kernels[i];
        std::vector<std::string> cells = {
            std::to_string(i + 1),   labels[i],       format_duration_ns(k.roof.duration_ns),
            format_percent(k.share), rows[i].verdict, rows[i].roof};
        if (!own_lines) cells.push_back(rows[i].finding);
        t.row(std::move(cells));
    }
    text_layout layout;
    layout.paint_header = [&](const std::string& line) { return p.dim(line); };
    layout.paint_cell = [&](std::size_t row, std::size_t col, const std::string& cell) {
        return col == 4 ? p.bound(a.kernels[row].verdict.bound, cell) : cell;
    };
    if (own_lines)
        layout.after_row = [&](std::size_t row) {
            return "\n     " + p.dim("first finding:") + " " + rows[row].finding;
        };
    o << t.text(layout);
    if (a.kernels.size() > shown)
        o << p.dim("     ... " + std::to_string(a.kernels.size() - shown) + " more kernels") << "\n";
    const auto ops = opportunities(a);
    if (!ops.empty()) {
        o << "\n"
          << p.bold("Top opportunities") << p.dim(" (GPU time saved over the workload, capped by the next roof)")
          << "\n";
        const std::size_t listed = std::min<std::size_t>(5, ops.size());
        std::size_t id_width = 22;
        for (std::size_t i = 0; i < listed; ++i) id_width = std::max(id_width, ops[i].finding->id.size());
        // #, id, speedup, then "saves 1.23 ms (45.6%)".
        const std::size_t op_names = name_column(options.width, 3 + 2 + id_width + 2 + 2 + 7, 24);
        const std::vector<std::string> op_labels = distinct_labels(all_names, op_names);
        table t({{"#", align::right, 3, true, 0},
                 {"finding", align::left, id_width, true},
                 {"kernel", align::left, op_names, true},
                 {"speedup", align::right, 7},
                 {"saves"}});
        for (std::size_t i = 0; i < listed; ++i) {
            const auto& op = ops[i];
            const double saved = *op.finding->est_time_saved_combined_ns;
            t.row({std::to_string(i + 1), op.finding->id, op_labels[op.kernel_rank],
                   format_number(*op.finding->est_speedup) + "x",
                   "saves " + format_duration_ns(saved) + " (" +
                       (a.total_ns > 0 ? format_percent(saved / a.total_ns) : "-") + ")"});
        }
        text_layout no_header;
        no_header.header = false;
        o << t.text(no_header);
    }
    if (!estimated.empty())
        o << "\n* the roof is an estimated spec figure (" << estimated << " on " << a.gpu.name
          << "): neither published nor measured in the capture; " << a.gpu.file << " says how it was derived\n";
    // What the capture leaves undecided, over every kernel: how many, and one command for all of it.
    std::size_t undecided = 0;
    std::vector<std::string> missing;
    for (const auto& k : a.kernels) {
        undecided += k.diagnosis.undecided.empty() ? 0 : 1;
        missing.insert(missing.end(), k.diagnosis.missing_metrics.begin(), k.diagnosis.missing_metrics.end());
    }
    if (undecided > 0) {
        const diagnose::collect_flags flags = diagnose::ncu_flags_for(missing, chip_for_cc(a.gpu.compute_capability));
        o << "\n"
          << count_text(undecided, "kernel", "kernels")
          << " not fully decided for lack of counters (the report says what)";
        if (a.read.form == ncu_form::details)
            o << "; the raw page of the same report holds every metric collected: ncu -i REPORT.ncu-rep --csv --page "
                 "raw\n";
        else if (!flags.empty())
            o << "; collect with: ncu " << flags.text() << " ...\n";
        else
            o << "; this GPU has no counter for it\n";
    }
    const std::string command = "roofline analyze " + printable(a.input) + " -o report.md";
    const std::string why = "Full report with the evidence and the tree paths:";
    o << "\n" << p.dim(one_or_two_lines(why, " ", command, why.size() + 1 + command.size(), options.width)) << "\n";
    return o.str();
}

}  // namespace roofline
