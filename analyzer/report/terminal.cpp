// The compact view for a terminal: the top kernels with their bound, % of roof and first finding,
// then the workload's top opportunities. Colour (ANSI) only when asked for.
#include "analyzer/base/format.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/report/text.hpp"

#include <algorithm>
#include <sstream>

namespace roofline {
namespace {

struct palette {
    bool on;
    std::string wrap(const char* code, const std::string& s) const { return on ? std::string("\033[") + code + "m" + s + "\033[0m" : s; }
    std::string bold(const std::string& s) const { return wrap("1", s); }
    std::string dim(const std::string& s) const { return wrap("2", s); }
    std::string bound(roofline::bound b, const std::string& s) const { return wrap(bound_ansi_colour(b), s); }
};

// Pads or cuts to exactly `width` characters (names are ASCII; ncu writes them so).
std::string fit(const std::string& s, std::size_t width, bool right = false) {
    if (s.size() > width) return s.substr(0, width - 1) + "~";
    std::string pad(width - s.size(), ' ');
    return right ? pad + s : s + pad;
}

}  // namespace

std::string render_terminal(const analysis& a, const print_options& options) {
    palette p{options.colour};
    const std::size_t top = options.top;
    std::ostringstream o;
    o << p.bold("roofline") << "  " << printable(a.input) << "  " << p.dim("on") << " " << a.gpu.name << "  " << p.dim("|") << " "
      << a.kernels.size() << (a.kernels.size() == 1 ? " kernel, " : " kernels, ") << a.launches_kept << " launches, "
      << format_duration_ns(a.total_ns) << "\n\n";
    o << p.dim(fit("#", 3, true) + "  " + fit("kernel", 34) + "  " + fit("time", 9, true) + "  " + fit("share", 6, true) + "  " +
               fit("bound / limiter", 18) + "  " + fit("roof", 9, true) + "  first finding")
      << "\n";
    const std::size_t shown = std::min(top, a.kernels.size());
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& k = a.kernels[i];
        std::string finding = "-";
        if (!k.diagnosis.findings.empty()) {
            const auto& f = k.diagnosis.findings.front();
            finding = f.id + (f.est_speedup ? " (" + format_number(*f.est_speedup) + "x)" : "");
        }
        o << fit(std::to_string(i + 1), 3, true) << "  " << fit(printable(plain_name(k.group.name)), 34) << "  "
          << fit(format_duration_ns(k.roof.duration_ns), 9, true) << "  " << fit(format_percent(k.share), 6, true) << "  "
          << p.bound(k.verdict.bound, fit(verdict_text(k.verdict), 18)) << "  " << fit(roof_pct_text(k), 9, true) << "  " << finding
          << "\n";
    }
    if (a.kernels.size() > shown) o << p.dim("     ... " + std::to_string(a.kernels.size() - shown) + " more kernels") << "\n";
    const auto ops = opportunities(a);
    if (!ops.empty()) {
        o << "\n" << p.bold("Top opportunities") << p.dim(" (GPU time saved over the workload, capped by the next roof)") << "\n";
        for (std::size_t i = 0; i < std::min<std::size_t>(5, ops.size()); ++i) {
            const auto& op = ops[i];
            o << fit(std::to_string(i + 1), 3, true) << "  " << fit(op.finding->id, 22) << "  "
              << fit(printable(plain_name(a.kernels[op.kernel_rank].group.name)), 34) << "  "
              << fit(format_number(*op.finding->est_speedup) + "x", 7, true) << "  saves "
              << format_duration_ns(*op.finding->est_time_saved_combined_ns) << " ("
              << (a.total_ns > 0 ? format_percent(*op.finding->est_time_saved_combined_ns / a.total_ns) : "-") << ")\n";
        }
    }
    o << "\n" << p.dim("Full report with the evidence and the tree paths: roofline analyze " + a.input + " -o report.md") << "\n";
    return o.str();
}

}  // namespace roofline
