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
std::int64_t wait_per_step(const ranks_model& model, std::size_t rank_index) {
    return model.exposed_wait_ns.empty() ? 0
                                         : model.exposed_wait_ns[rank_index] /
                                               std::int64_t(std::max<std::size_t>(1, model.ranks[rank_index].steps));
}

std::string straggler_text(const ranks_model& model) {
    if (!model.straggler) return "none";
    return "rank " + std::to_string(model.ranks[*model.straggler].rank) + " (the others wait " +
           format_duration_ns(double(model.others_wait_per_step_ns)) + " a step)";
}

std::string change_text(double base, double next) {
    if (base <= 0) return "-";
    const double pct = (next - base) / base * 100.0;
    return (pct >= 0 ? "+" : "") + significant(pct, 3) + "%";
}

}  // namespace

ranks_diff diff_ranks(ranks_model base, ranks_model next, std::optional<double> fail_if_slower_pct, double noise_pct) {
    ranks_diff diff;
    diff.base = std::move(base);
    diff.next = std::move(next);
    diff.fail_if_slower_pct = fail_if_slower_pct;
    diff.noise_pct = noise_pct;
    if (diff.base.step_ns > 0)
        diff.change_pct = (double(diff.next.step_ns) - double(diff.base.step_ns)) / double(diff.base.step_ns) * 100.0;
    return diff;
}

doc::document ranks_diff_document(const ranks_diff& diff) {
    doc::document out;
    out.add_heading(1, "Diff of two runs, rank by rank");
    doc::table_block job{{"", "base", "new", "change"}, {}};
    job.rows.push_back({"ranks", std::to_string(diff.base.ranks.size()), std::to_string(diff.next.ranks.size()), ""});
    job.rows.push_back({"the job's step (the longest rank's)", format_duration_ns(double(diff.base.step_ns)),
                        format_duration_ns(double(diff.next.step_ns)),
                        change_text(double(diff.base.step_ns), double(diff.next.step_ns))});
    job.rows.push_back({"straggler", straggler_text(diff.base), straggler_text(diff.next), ""});
    out.add_table(std::move(job));
    std::map<int, std::pair<std::optional<std::size_t>, std::optional<std::size_t>>> by_rank;
    for (std::size_t i = 0; i < diff.base.ranks.size(); ++i) by_rank[diff.base.ranks[i].rank].first = i;
    for (std::size_t i = 0; i < diff.next.ranks.size(); ++i) by_rank[diff.next.ranks[i].rank].second = i;
    doc::table_block per_rank{
        {"rank", "step", "change", "GPU busy", "waited for others (exposed, a step)", "first finding"}, {}};
    for (const auto& [rank, sides] : by_rank) {
        // Plain copies, not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
        const std::optional<std::size_t> base_index = sides.first, next_index = sides.second;
        auto both = [&](auto&& value_of) {
            return (base_index ? value_of(diff.base, *base_index) : std::string("-")) + " -> " +
                   (next_index ? value_of(diff.next, *next_index) : std::string("-"));
        };
        per_rank.rows.push_back({std::to_string(rank), both([](const ranks_model& model, std::size_t rank_index) {
                                     return format_duration_ns(double(model.ranks[rank_index].step_ns));
                                 }),
                                 base_index && next_index ? change_text(double(diff.base.ranks[*base_index].step_ns),
                                                                        double(diff.next.ranks[*next_index].step_ns))
                                                          : "-",
                                 both([](const ranks_model& model, std::size_t rank_index) {
                                     return format_percent(model.ranks[rank_index].utilisation());
                                 }),
                                 both([](const ranks_model& model, std::size_t rank_index) {
                                     return format_duration_ns(double(wait_per_step(model, rank_index)));
                                 }),
                                 both([](const ranks_model& model, std::size_t rank_index) {
                                     return model.ranks[rank_index].first_finding.empty()
                                                ? std::string("-")
                                                : model.ranks[rank_index].first_finding;
                                 })});
    }
    out.add_table(std::move(per_rank));
    if (diff.fail_if_slower_pct)
        out.add_paragraph(diff.gate_failed()
                              ? doc::phrase()
                                    .strong("Gate failed")
                                    .words(": the job's step grew by " + significant(*diff.change_pct, 3) +
                                           "%, more than --fail-if-slower " + significant(*diff.fail_if_slower_pct, 3) +
                                           "%.")
                              : doc::phrase("Gate passed: the job's step did not grow by more than --fail-if-slower " +
                                            significant(*diff.fail_if_slower_pct, 3) + "% (and the noise floor)."));
    return out;
}

std::string ranks_diff_markdown(const ranks_diff& diff) {
    // A blank line ends the report where no gate line does (as it always has).
    return doc::markdown(ranks_diff_document(diff)) + (diff.fail_if_slower_pct ? "" : "\n");
}
std::string ranks_diff_html(const ranks_diff& diff) { return doc::html_page(ranks_diff_document(diff)); }

std::string ranks_diff_json(const ranks_diff& diff) {
    using ojson = nlohmann::ordered_json;
    auto side = [](const ranks_model& model) {
        ojson ranks = ojson::array();
        for (std::size_t i = 0; i < model.ranks.size(); ++i)
            ranks.push_back(
                {{"rank", model.ranks[i].rank},
                 {"file", model.ranks[i].file},
                 {"step_ns", model.ranks[i].step_ns},
                 {"utilisation", json_number<ojson>(model.ranks[i].utilisation())},
                 {"exposed_wait_per_step_ns", wait_per_step(model, i)},
                 {"first_finding",
                  model.ranks[i].first_finding.empty() ? ojson(nullptr) : ojson(model.ranks[i].first_finding)}});
        return ojson{{"step_ns", model.step_ns},
                     {"straggler", model.straggler ? ojson(model.ranks[*model.straggler].rank) : ojson(nullptr)},
                     {"ranks", ranks}};
    };
    ojson out = {{"schema", "roofline-ranks-diff/1"},
                 {"base", side(diff.base)},
                 {"new", side(diff.next)},
                 {"change_pct", diff.change_pct ? json_number<ojson>(*diff.change_pct) : ojson(nullptr)},
                 {"gate_failed", diff.gate_failed()}};
    return json_text(out);
}

}  // namespace roofline::timeline
