#include "analyzer/compare/ranks_diff.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/render/json_number.hpp"
#include "analyzer/render/document.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/report/text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <sstream>

namespace roofline::timeline {
namespace {

// A rank's exposed wait for the others, per step.
std::int64_t wait_per_step(const ranks_model& m, std::size_t i) {
    return m.exposed_wait_ns.empty() ? 0
                                     : m.exposed_wait_ns[i] / std::int64_t(std::max<std::size_t>(1, m.ranks[i].steps));
}

std::string straggler_text(const ranks_model& m) {
    if (!m.straggler) return "none";
    return "rank " + std::to_string(m.ranks[*m.straggler].rank) + " (the others wait " +
           format_duration_ns(double(m.others_wait_per_step_ns)) + " a step)";
}

std::string change_text(double base, double next) {
    if (base <= 0) return "-";
    const double pct = (next - base) / base * 100.0;
    return (pct >= 0 ? "+" : "") + significant(pct, 3) + "%";
}

}  // namespace

ranks_diff diff_ranks(ranks_model base, ranks_model next, std::optional<double> fail_if_slower_pct, double noise_pct) {
    ranks_diff d;
    d.base = std::move(base);
    d.next = std::move(next);
    d.fail_if_slower_pct = fail_if_slower_pct;
    d.noise_pct = noise_pct;
    if (d.base.step_ns > 0)
        d.change_pct = (double(d.next.step_ns) - double(d.base.step_ns)) / double(d.base.step_ns) * 100.0;
    return d;
}

doc::document ranks_diff_document(const ranks_diff& d) {
    doc::document out;
    out.add_heading(1, "Diff of two runs, rank by rank");
    doc::table_block job{{"", "base", "new", "change"}, {}};
    job.rows.push_back({"ranks", std::to_string(d.base.ranks.size()), std::to_string(d.next.ranks.size()), ""});
    job.rows.push_back({"the job's step (the longest rank's)", format_duration_ns(double(d.base.step_ns)),
                        format_duration_ns(double(d.next.step_ns)),
                        change_text(double(d.base.step_ns), double(d.next.step_ns))});
    job.rows.push_back({"straggler", straggler_text(d.base), straggler_text(d.next), ""});
    out.add_table(std::move(job));
    std::map<int, std::pair<std::optional<std::size_t>, std::optional<std::size_t>>> by_rank;
    for (std::size_t i = 0; i < d.base.ranks.size(); ++i) by_rank[d.base.ranks[i].rank].first = i;
    for (std::size_t i = 0; i < d.next.ranks.size(); ++i) by_rank[d.next.ranks[i].rank].second = i;
    doc::table_block t{{"rank", "step", "change", "GPU busy", "waited for others (exposed, a step)", "first finding"},
                       {}};
    for (const auto& [rank, sides] : by_rank) {
        // Plain copies, not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
        const std::optional<std::size_t> b = sides.first, n = sides.second;
        auto both = [&](auto&& f) {
            return (b ? f(d.base, *b) : std::string("-")) + " -> " + (n ? f(d.next, *n) : std::string("-"));
        };
        t.rows.push_back(
            {std::to_string(rank),
             both([](const ranks_model& m, std::size_t i) { return format_duration_ns(double(m.ranks[i].step_ns)); }),
             b && n ? change_text(double(d.base.ranks[*b].step_ns), double(d.next.ranks[*n].step_ns)) : "-",
             both([](const ranks_model& m, std::size_t i) { return format_percent(m.ranks[i].utilisation()); }),
             both([](const ranks_model& m, std::size_t i) { return format_duration_ns(double(wait_per_step(m, i))); }),
             both([](const ranks_model& m, std::size_t i) {
                 return m.ranks[i].first_finding.empty() ? std::string("-") : m.ranks[i].first_finding;
             })});
    }
    out.add_table(std::move(t));
    if (d.fail_if_slower_pct)
        out.add_paragraph(d.gate_failed()
                              ? doc::phrase()
                                    .strong("Gate failed")
                                    .words(": the job's step grew by " + significant(*d.change_pct, 3) +
                                           "%, more than --fail-if-slower " + significant(*d.fail_if_slower_pct, 3) +
                                           "%.")
                              : doc::phrase("Gate passed: the job's step did not grow by more than --fail-if-slower " +
                                            significant(*d.fail_if_slower_pct, 3) + "% (and the noise floor)."));
    return out;
}

std::string ranks_diff_markdown(const ranks_diff& d) {
    // A blank line ends the report where no gate line does (as it always has).
    return doc::markdown(ranks_diff_document(d)) + (d.fail_if_slower_pct ? "" : "\n");
}
std::string ranks_diff_html(const ranks_diff& d) { return doc::html_page(ranks_diff_document(d)); }

std::string ranks_diff_json(const ranks_diff& d) {
    using ojson = nlohmann::ordered_json;
    auto side = [](const ranks_model& m) {
        ojson ranks = ojson::array();
        for (std::size_t i = 0; i < m.ranks.size(); ++i)
            ranks.push_back({{"rank", m.ranks[i].rank},
                             {"file", m.ranks[i].file},
                             {"step_ns", m.ranks[i].step_ns},
                             {"utilisation", json_number<ojson>(m.ranks[i].utilisation())},
                             {"exposed_wait_per_step_ns", wait_per_step(m, i)},
                             {"first_finding",
                              m.ranks[i].first_finding.empty() ? ojson(nullptr) : ojson(m.ranks[i].first_finding)}});
        return ojson{{"step_ns", m.step_ns},
                     {"straggler", m.straggler ? ojson(m.ranks[*m.straggler].rank) : ojson(nullptr)},
                     {"ranks", ranks}};
    };
    ojson j = {{"schema", "roofline-ranks-diff/1"},
               {"base", side(d.base)},
               {"new", side(d.next)},
               {"change_pct", d.change_pct ? json_number<ojson>(*d.change_pct) : ojson(nullptr)},
               {"gate_failed", d.gate_failed()}};
    return json_text(j);
}

}  // namespace roofline::timeline
