#include "analyzer/diagnose/diagnose.hpp"

#include "analyzer/diagnose/estimate.hpp"
#include "analyzer/diagnose/kernel_facts.hpp"

#include <algorithm>
#include <limits>
#include <cmath>
#include <memory>
#include <set>
#include <unordered_map>

namespace roofline::diagnose {
namespace {

// near-roof says "look elsewhere": it cannot stand beside a finding that promises more than
// this on the same kernel (its own estimate is at most 1.25x by its condition).
constexpr double near_roof_contradicted_above = 1.25;
// Two estimates closer than this cannot be told apart: the practical shares they divide by spread
// about this much over the kernels they were fitted to (H100 DRAM: geometric sd 1.026 over 7).
constexpr double estimates_indistinct_within = 0.05;
// Two fixes leave the limiter alike where what they leave of its work differs by less than this share
// of it (the 5% under which a fix does not change what limits: estimate.cpp).
constexpr double limiter_left_alike_within = 0.05;

template <typename Element, typename Item>
void add_unique(std::vector<Element>& items, const Item& item) {
    if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(Element(item));
}

evidence_value evidence_of(const std::string& text, const fact_value& computed, value_type type) {
    evidence_value evidence{text, std::nullopt, type};
    if (computed.range) evidence.set_bounds(*computed.range);
    return evidence;
}

evidence_value evidence_of(const expression& expr, const name_values& facts) {
    const evaluation evaluated = expr.evaluate_range(facts);
    evidence_value out{expr.text(), std::nullopt, expr.type()};
    if (evaluated.range) out.set_bounds(*evaluated.range);
    return out;
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// Values that move between captures of one program: those measured against time (busy and useful
// shares, floors, durations, percentages of a peak, rates, stall ratios). Counts (instructions,
// sectors, requests and their ratios) and launch shapes repeat exactly.
bool moves_with_noise(const std::string& name) {
    for (const char* prefix : {"util_", "useful_", "pressure_", "floor_ns", "work_ns_", "practical_floor_ns"})
        if (starts_with(name, prefix)) return true;
    for (const char* exact : {"roof_share", "pct_of_roof", "duration_ns", "per_launch_ns", "tensor_share"})
        if (name == exact) return true;
    if (name.find("__") == std::string::npos) return false;
    for (const char* part : {"pct_of_peak", "per_second", "_stalled_", "warp_latency", "time_duration", "per_cycle"})
        if (name.find(part) != std::string::npos) return true;
    return false;
}

// The facts as another capture of the same program might give them: time-based values widened by
// run-to-run noise, and the verdict's booleans open where the classification names a tie.
// Each name computed once for the kernel: the nodes, the noise check, the evidence and the estimates
// read the same facts many times, and a fact is a function of the kernel and the GPU alone.
name_values computed_once(name_values facts) {
    auto known = std::make_shared<std::unordered_map<std::string, fact_value>>();
    return [facts = std::move(facts), known](const std::string& name) -> fact_value {
        auto it = known->find(name);
        if (it == known->end()) it = known->emplace(name, facts(name)).first;
        return it->second;
    };
}

name_values within_noise_of(const name_values& facts, const kernel_result& kernel) {
    return [facts, &kernel](const std::string& name) -> fact_value {
        fact_value computed = facts(name);
        if (!computed.range) return computed;
        const auto& verdict = kernel.verdict;
        auto open = [&computed] {
            computed.range = value_range{0.0, 1.0};
            return computed;
        };
        if (starts_with(name, "bound_") && !verdict.tied_bounds.empty()) {
            const auto named_bound = bound_named(name.substr(6));
            if (named_bound &&
                (*named_bound == verdict.bound || std::find(verdict.tied_bounds.begin(), verdict.tied_bounds.end(),
                                                            *named_bound) != verdict.tied_bounds.end()))
                return open();
        }
        if (starts_with(name, "limiter_") && (!verdict.tied_limiters.empty() || !verdict.tied_bounds.empty())) {
            const auto named_resource = resource_named(name.substr(8));
            if (named_resource && (verdict.limiter == *named_resource ||
                                   std::find(verdict.tied_limiters.begin(), verdict.tied_limiters.end(),
                                             *named_resource) != verdict.tied_limiters.end()))
                return open();
        }
        if (fact_type(name) != value_type::number || !moves_with_noise(name)) return computed;
        auto wide = [](double value, double factor) { return value >= 0 ? value * factor : value / factor; };
        computed.range = value_range{wide(computed.range->lo, 1.0 - run_to_run_noise),
                                     wide(computed.range->hi, 1.0 + run_to_run_noise)};
        return computed;
    };
}

// The finding a fired node gives: its evidence and estimate from `facts`, its fixes chosen by `fix_facts` (the
// same facts, but for a provisional finding that fired at the least work the counters prove).
finding finding_of(const rule_tree& tree, const rule_node& node, const name_values& facts, const name_values& fix_facts,
                   const kernel_result& kernel, const gpu_spec& gpu, std::vector<std::string>* lacking) {
    finding found;
    found.id = node.finding;
    found.tree = tree.id;
    found.node = node.id;
    found.title = node.title;
    found.explain = node.explain;
    for (const auto& evidence_expr : node.evidence) found.evidence.push_back(evidence_of(evidence_expr, facts));
    if (node.estimate) estimate_finding(found, *node.estimate, kernel, gpu, facts, lacking);
    // The fixes written for whoever can act on this kernel: kernel-author advice where the user owns
    // its source, the call-site levers (shapes, dtype, layout, fusion) where a library or compiler
    // wrote it. A node with no fix for a library's kernel gives that library's levers.
    for (const auto& rule_fix : node.fixes) {
        if (!rule_fix.applies_to(kernel.origin.kind)) continue;
        if (rule_fix.when) {
            auto applies = rule_fix.when->evaluate(fix_facts);
            if (!applies || *applies == 0.0) continue;
        }
        found.fixes.push_back(rule_fix.text);
    }
    if (found.fixes.empty() && !source_owned(kernel.origin.kind))
        for (const auto& lever : origin_levers(kernel.origin.pattern)) found.fixes.push_back(lever);
    return found;
}

void walk(const rule_tree& tree, const rule_node& node, int depth, const name_values& facts, const name_values& noisy,
          const kernel_result& kernel, const gpu_spec& gpu, diagnosis& kernel_diagnosis) {
    visited_node visit;
    visit.tree = tree.id;
    visit.node = node.id;
    visit.title = node.title;
    visit.depth = depth;
    const evaluation ok = node.when.evaluate_range(facts);
    for (const auto& name : node.when.names())
        visit.values.push_back(evidence_of(name, facts(name), fact_type(name).value_or(value_type::number)));
    if (!ok.decided()) {
        // Unknown, or between bounds that lie on both sides of the condition: not decided.
        visit.result = visited_node::outcome::cannot_evaluate;
        visit.missing.assign(ok.missing.begin(), ok.missing.end());
        for (const auto& metric_id : ok.missing) add_unique(kernel_diagnosis.missing_metrics, metric_id);
        add_unique(kernel_diagnosis.undecided, undecided_item{undecided_item::what::node, tree.id, node.id});
        kernel_diagnosis.path.push_back(std::move(visit));
        return;
    }
    const bool fired = *ok.value() != 0.0;
    visit.result = fired ? visited_node::outcome::fired : visited_node::outcome::not_fired;
    if (!node.when.evaluate_range(noisy).decided()) {
        visit.within_noise = true;
        add_unique(kernel_diagnosis.within_noise, tree.id + "/" + node.id);
    }
    kernel_diagnosis.path.push_back(std::move(visit));
    if (!fired) return;
    if (!node.finding.empty()) {
        std::vector<std::string> lacking;
        finding found = finding_of(tree, node, facts, facts, kernel, gpu, &lacking);
        if (node.estimate && !found.est_speedup)
            add_unique(kernel_diagnosis.undecided, undecided_item{undecided_item::what::estimate, tree.id, node.id});
        for (const auto& metric_id : lacking) add_unique(kernel_diagnosis.missing_metrics, metric_id);
        kernel_diagnosis.findings.push_back(std::move(found));
    }
    for (const auto& child : node.children) walk(tree, child, depth + 1, facts, noisy, kernel, gpu, kernel_diagnosis);
}

// The stall reasons ncu samples, for the catch-all finding's evidence.
const std::vector<const char*>& stall_reasons() {
    static const std::vector<const char*> reasons = {"long_scoreboard",
                                                     "barrier",
                                                     "mio_throttle",
                                                     "short_scoreboard",
                                                     "wait",
                                                     "math_pipe_throttle",
                                                     "lg_throttle",
                                                     "no_instruction",
                                                     "branch_resolving",
                                                     "dispatch_stall",
                                                     "membar",
                                                     "sleeping",
                                                     "tex_throttle",
                                                     "drain",
                                                     "imc_miss",
                                                     "gmma",
                                                     "misc"};
    return reasons;
}

// Every kernel gets an answer: where no tree fired, say so, show what the warps waited on, and
// name the counters that would decide between the usual causes.
finding unexplained(const kernel_result& kernel, const gpu_spec& gpu, const name_values& facts, bool gainless_fired) {
    finding found;
    found.id = "unexplained";
    found.tree = "catch-all";
    found.node = "unexplained";
    found.engine = engine_finding::unexplained;
    found.after_findings = gainless_fired;
    // A library's kernel: what its caller can change, not a source-level profile of code they cannot edit.
    if (!source_owned(kernel.origin.kind))
        for (const auto& lever : origin_levers(kernel.origin.pattern)) found.fixes.push_back(lever);
    auto total = facts("smsp__average_warp_latency_per_inst_issued.ratio").value();
    std::vector<std::pair<double, std::string>> shares;
    for (const char* reason : stall_reasons()) {
        const std::string id = std::string("smsp__average_warps_issue_stalled_") + reason + "_per_issue_active.ratio";
        auto stall_ratio = facts(id).value();
        if (stall_ratio && total && *total > 0)
            shares.emplace_back(*stall_ratio / *total, id + " / smsp__average_warp_latency_per_inst_issued.ratio");
    }
    std::stable_sort(shares.begin(), shares.end(),
                     [](const auto& left, const auto& right) { return left.first > right.first; });
    for (std::size_t i = 0; i < shares.size() && i < 3; ++i)
        found.evidence.push_back({shares[i].second, shares[i].first});
    // The stall reasons are evidence only (roofline metrics does not plan them): say where they are missing.
    if (shares.size() < 3)
        found.evidence.push_back({"", std::nullopt, value_type::number, evidence_kind::stall_reasons_missing});
    found.evidence.push_back(evidence_of("roof_share", facts("roof_share"), value_type::number));
    // Whatever the cause, the work stays: the estimate is the kernel's largest floor at the practical shares.
    estimate_finding(found, estimate_spec{}, kernel, gpu, facts, nullptr);
    return found;
}

// Where no node that could be evaluated fired and some could not be, the answer is what to collect:
// "unexplained" would claim that no tree knows the kernel, when the capture did not let them look.
// Where some fired, it comes first all the same: an unevaluated node may gain more than any of them,
// so which fix comes first is not decided (`fired` says which case this is).
finding not_decided(const diagnosis& kernel_diagnosis, const gpu_spec& gpu, bool fired = false) {
    finding found;
    found.id = "missing-counters";
    found.tree = "catch-all";
    found.node = "missing-counters";
    found.engine = engine_finding::missing_counters;
    found.after_findings = fired;
    found.undecided = kernel_diagnosis.undecided;
    found.collect = ncu_flags_for(kernel_diagnosis.missing_metrics, chip_for_cc(gpu.compute_capability)).text();
    return found;
}

// The findings a rule node that could not be evaluated would give (an inner node: those of the nodes under
// it), and the fired findings whose estimate could not be evaluated: what may outrank a provisional first.
void findings_under(const rule_tree& tree, const rule_node& node, const std::vector<pooled_string>& needs,
                    std::vector<diagnosis::contender>& out) {
    if (!node.finding.empty() && std::none_of(out.begin(), out.end(), [&](const diagnosis::contender& listed) {
            return listed.id == node.finding;
        }))
        out.push_back({node.finding, tree.id, node.id, needs});
    for (const auto& child : node.children) findings_under(tree, child, needs, out);
}

const rule_node* find_node(const rule_node& node, const std::string& id) {
    if (node.id == id) return &node;
    for (const auto& child : node.children)
        if (const rule_node* found = find_node(child, id)) return found;
    return nullptr;
}

std::vector<diagnosis::contender> contenders(const std::vector<rule_tree>& trees, const diagnosis& kernel_diagnosis) {
    std::vector<diagnosis::contender> out;
    for (const auto& item : kernel_diagnosis.undecided) {
        if (item.kind == undecided_item::what::verdict) continue;
        for (const auto& tree : trees) {
            if (tree.id != item.tree.str()) continue;
            for (const auto& root : tree.roots) {
                const rule_node* node = find_node(root, item.node);
                if (!node) continue;
                std::vector<pooled_string> needs;
                for (const auto& visit : kernel_diagnosis.path)
                    if (visit.tree == item.tree && visit.node == item.node) needs = visit.missing;
                if (item.kind == undecided_item::what::estimate) {
                    if (std::none_of(out.begin(), out.end(),
                                     [&](const auto& listed) { return listed.id == node->finding; }))
                        out.push_back({node->finding, tree.id, node->id, needs});
                } else {
                    findings_under(tree, *node, needs, out);
                }
            }
        }
    }
    return out;
}

}  // namespace

const std::vector<std::string>& catch_all_metrics() {
    static const std::vector<std::string> ids = [] {
        std::vector<std::string> metric_ids = {"smsp__average_warp_latency_per_inst_issued.ratio"};
        for (const char* reason : stall_reasons())
            metric_ids.push_back(std::string("smsp__average_warps_issue_stalled_") + reason +
                                 "_per_issue_active.ratio");
        return metric_ids;
    }();
    return ids;
}

void drop_gainless(diagnosis& kernel_diagnosis) {
    // A fix whose time after is within run-to-run noise of the kernel's time gains nothing anyone can
    // measure: the pattern is real, but it is not an opportunity. It goes to the notes, with why.
    // An open estimate whose most (the least time its fix can leave) is within noise gains nothing either.
    auto most_speedup = [](const finding& candidate) {
        return candidate.est_speedup ? candidate.est_speedup : candidate.est_speedup_at_most;
    };
    auto gainless = [&most_speedup](const finding& candidate) {
        const auto most = most_speedup(candidate);
        return candidate.id != "near-roof" && candidate.tree != "workload" && candidate.tree != "catch-all" && most &&
               *most < 1.0 + run_to_run_noise;
    };
    for (const auto& candidate : kernel_diagnosis.findings)
        if (gainless(candidate)) {
            diagnosis_note note;
            note.kind = diagnosis_note_kind::gainless;
            note.id = candidate.id;
            note.tree = candidate.tree;
            note.node = candidate.node;
            note.binds_after = candidate.binds_after;
            note.speedup = *most_speedup(candidate);
            note.at_most = !candidate.est_speedup;
            note.limit = run_to_run_noise;
            kernel_diagnosis.notes.push_back(std::move(note));
            // Its open estimate is settled by its bound: no longer a question that could change the ranking.
            if (!candidate.est_speedup)
                kernel_diagnosis.undecided.erase(
                    std::remove(kernel_diagnosis.undecided.begin(), kernel_diagnosis.undecided.end(),
                                undecided_item{undecided_item::what::estimate, candidate.tree, candidate.node}),
                    kernel_diagnosis.undecided.end());
        }
    kernel_diagnosis.findings.erase(
        std::remove_if(kernel_diagnosis.findings.begin(), kernel_diagnosis.findings.end(), gainless),
        kernel_diagnosis.findings.end());
}

void settle_findings(diagnosis& kernel_diagnosis, const kernel_result& kernel, const gpu_spec& gpu) {
    drop_gainless(kernel_diagnosis);
    // near-roof means no fix of this work gains much: a larger estimate on the same kernel says
    // otherwise (doing the work on a faster unit, or less of it), so near-roof is not reported.
    const finding* larger = nullptr;
    // What a finding surely gains: its estimate, or where that is open, the least its fix gains.
    const auto sure_gain = [](const finding& candidate) {
        return candidate.est_speedup ? candidate.est_speedup : candidate.est_speedup_at_least;
    };
    for (const auto& candidate : kernel_diagnosis.findings)
        // A finding about a run of kernels (fusion) saves time across the run: it does not say this
        // kernel is far from its own roof.
        if (candidate.id != "near-roof" && candidate.tree != "workload" && sure_gain(candidate) &&
            *sure_gain(candidate) > near_roof_contradicted_above &&
            (!larger || *sure_gain(candidate) > *sure_gain(*larger)))
            larger = &candidate;
    if (larger) {
        auto it = std::find_if(kernel_diagnosis.findings.begin(), kernel_diagnosis.findings.end(),
                               [](const finding& candidate) { return candidate.id == "near-roof"; });
        if (it != kernel_diagnosis.findings.end()) {
            diagnosis_note note;
            note.kind = diagnosis_note_kind::near_roof_outpromised;
            note.id = larger->id;
            note.speedup = *sure_gain(*larger);
            note.limit = near_roof_contradicted_above;
            kernel_diagnosis.notes.push_back(std::move(note));
            kernel_diagnosis.findings.erase(it);
        }
    }
    // Where near-roof stands, it is the answer: nothing on this kernel promises more than 1.25x,
    // and the small gains below it are consistent with it. Otherwise by time saved. A finding whose
    // pattern was measured but whose gain the capture cannot price (its estimate undecided) is not
    // consistent with near-roof's "look elsewhere" until it is priced: it leads, and near-roof follows it.
    // One whose most (its open estimate's bound) is within near-roof's 1.25x cannot say otherwise: near-roof leads.
    const bool near_roof_leads = std::none_of(
        kernel_diagnosis.findings.begin(), kernel_diagnosis.findings.end(),
        [&kernel_diagnosis](const finding& candidate) {
            if (candidate.id == "near-roof") return false;
            if (!candidate.est_speedup && candidate.est_speedup_at_most &&
                *candidate.est_speedup_at_most <= near_roof_contradicted_above)
                return false;
            return std::find(kernel_diagnosis.undecided.begin(), kernel_diagnosis.undecided.end(),
                             undecided_item{undecided_item::what::estimate, candidate.tree, candidate.node}) !=
                   kernel_diagnosis.undecided.end();
        });
    std::stable_sort(kernel_diagnosis.findings.begin(), kernel_diagnosis.findings.end(),
                     [near_roof_leads](const finding& left, const finding& right) {
                         if (near_roof_leads && (left.id == "near-roof") != (right.id == "near-roof"))
                             return left.id == "near-roof";
                         if (left.below_kernel_findings != right.below_kernel_findings)
                             return right.below_kernel_findings;
                         if (left.est_time_saved_ns.has_value() != right.est_time_saved_ns.has_value())
                             return left.est_time_saved_ns.has_value();
                         if (left.est_time_saved_ns) return *left.est_time_saved_ns > *right.est_time_saved_ns;
                         // Two open estimates: the one that can gain more leads (the least time its fix can leave, from
                         // what the capture holds); one with no such bound keeps its place after those with one.
                         const double left_least =
                             left.est_time_after_at_least_ns.value_or(std::numeric_limits<double>::infinity());
                         const double right_least =
                             right.est_time_after_at_least_ns.value_or(std::numeric_limits<double>::infinity());
                         return left_least < right_least;
                     });
    // Where two estimates cannot be told apart, which fix gains more is not measured. The one that takes
    // more off the named limiter's work leads (the user of a tensor-core GEMM that L2 limits hears about the
    // tensor path, which reuses each L2 byte, before coalescing, which does not touch L2); where both leave
    // the limiter alike, the fix that keeps the work comes first: the gain does not need the rewrite.
    const double duration_ns = kernel.roof.duration_ns;
    auto after = [duration_ns](const finding& candidate) {
        return duration_ns - candidate.est_time_saved_ns.value_or(0.0);
    };
    const std::optional<resource> limiter = kernel.verdict.limiter;
    const std::map<resource, double> now = current_work(kernel.roof);
    auto limiter_left = [&](const finding& candidate) {
        if (!limiter || !now.count(*limiter) || now.at(*limiter) <= 0.0) return 1.0;
        const auto it = candidate.effect.changed_work.find(*limiter);
        return it == candidate.effect.changed_work.end() ? 1.0 : it->second / now.at(*limiter);
    };
    auto leads = [&](const finding& later, const finding& earlier) {  // later, after earlier in time saved, goes first
        const double left_earlier = limiter_left(earlier), left_later = limiter_left(later);
        if (left_later < left_earlier - limiter_left_alike_within) return true;
        if (left_earlier < left_later - limiter_left_alike_within) return false;
        return earlier.effect.changes_work && !later.effect.changes_work;
    };
    for (std::size_t i = 1; i < kernel_diagnosis.findings.size(); ++i)
        for (std::size_t j = i; j > 0; --j) {
            finding& earlier = kernel_diagnosis.findings[j - 1];
            finding& later = kernel_diagnosis.findings[j];
            if (earlier.id == "near-roof" || !earlier.est_time_saved_ns || !later.est_time_saved_ns ||
                earlier.below_kernel_findings != later.below_kernel_findings)
                break;
            if (after(later) > after(earlier) * (1.0 + estimates_indistinct_within) || !leads(later, earlier)) break;
            std::swap(earlier, later);
        }
    // Findings whose time after the fix is within run-to-run noise of the first's: which comes first is
    // not measured, so each is named beside it (their order above is fixed, not measured).
    kernel_diagnosis.tied_with_first.clear();
    if (kernel_diagnosis.findings.size() > 1 && kernel_diagnosis.findings.front().id != "near-roof" &&
        kernel_diagnosis.findings.front().est_time_after_ns) {
        const double first = *kernel_diagnosis.findings.front().est_time_after_ns;
        for (std::size_t i = 1; i < kernel_diagnosis.findings.size(); ++i) {
            const auto& candidate = kernel_diagnosis.findings[i];
            if (candidate.est_time_after_ns && std::abs(*candidate.est_time_after_ns - first) <=
                                                   run_to_run_noise * std::max(first, *candidate.est_time_after_ns))
                kernel_diagnosis.tied_with_first.push_back(candidate.id);
        }
    }
    // The savings of one kernel's findings overlap: each shows what it adds to those above it,
    // and together they stop at the floor left once every fix is in. Findings about a run of
    // kernels (tree "workload") save time across the run and keep their own figure.
    std::vector<const finding*> all;
    for (const auto& candidate : kernel_diagnosis.findings)
        if (candidate.est_time_saved_ns && candidate.tree != "workload") all.push_back(&candidate);
    const double duration = kernel.roof.duration_ns;
    double remaining =
        all.empty() ? 0.0 : std::max(0.0, duration - std::min(duration, combined_after(kernel, gpu, all).after_ns));
    for (auto& candidate : kernel_diagnosis.findings) {
        if (!candidate.est_time_saved_ns) continue;
        if (candidate.tree == "workload") {
            candidate.est_time_saved_combined_ns = candidate.est_time_saved_ns;
            continue;
        }
        const double share = std::min(*candidate.est_time_saved_ns, remaining);
        candidate.est_time_saved_combined_ns = share;
        remaining -= share;
    }
}

namespace {

// Where the capture's bounds fire no node and leave some undecided, it may still hold an answer: the first
// finding with every resource at the least work its counters prove (models/roofline_model.hpp, roof_reading).
// It leads provisionally, with its evidence and estimate at the bounds, and every node the bounds could not
// decide named beside it: whichever finding the missing counters would put first is among them. On the 16
// details/raw pairs of examples/ it is the raw page's first on 43 of the 51 kernels that had nothing else
// (examples/user_level/details_agreement.py).
std::optional<finding> first_at_least_work(const std::vector<rule_tree>& trees, const kernel_result& kernel,
                                           const gpu_spec& spec, const name_values& facts) {
    const kernel_result least = at_least_work(kernel, spec);
    const name_values least_facts = computed_once(kernel_facts(least, spec));
    const name_values noisy = computed_once(within_noise_of(least_facts, least));
    diagnosis at_least;
    for (const auto& tree : trees)
        for (const auto& root : tree.roots) walk(tree, root, 0, least_facts, noisy, least, spec, at_least);
    drop_gainless(at_least);
    // Nothing fires even there: what the page holds says no tree explains the kernel, provisionally (the nodes
    // the bounds left open are named beside it). On the 18 details/raw pairs of examples/ the raw page's first was
    // unexplained on 17 of the 28 kernels that had got nothing but missing-counters.
    if (at_least.findings.empty()) {
        finding found = unexplained(kernel, spec, facts, !at_least.notes.empty());
        found.at_least_work = true;
        return found;
    }
    settle_findings(at_least, least, spec);
    const finding& lead = at_least.findings.front();
    for (const auto& tree : trees) {
        if (tree.id != lead.tree.str()) continue;
        for (const auto& root : tree.roots)
            if (const rule_node* node = find_node(root, lead.node)) {
                finding found = finding_of(tree, *node, facts, least_facts, kernel, spec, nullptr);
                found.at_least_work = true;
                // Priced at the bounds, its most may still be within noise: then it is no opportunity, and what
                // the page holds says no tree explains the kernel.
                const auto most = found.est_speedup ? found.est_speedup : found.est_speedup_at_most;
                if (found.id != "near-roof" && most && *most < 1.0 + run_to_run_noise) {
                    found = unexplained(kernel, spec, facts, true);
                    found.at_least_work = true;
                }
                return found;
            }
    }
    return std::nullopt;
}

}  // namespace

diagnosis diagnose(const std::vector<rule_tree>& trees, const kernel_result& kernel, const gpu_spec& spec) {
    diagnosis kernel_diagnosis;
    if (!kernel.verdict.decided()) {
        kernel_diagnosis.undecided.push_back({undecided_item::what::verdict, {}, {}});
        for (const auto& metric_id : kernel.verdict.missing) add_unique(kernel_diagnosis.missing_metrics, metric_id);
    }
    const name_values facts = computed_once(kernel_facts(kernel, spec));
    const name_values noisy = computed_once(within_noise_of(facts, kernel));
    for (const auto& tree : trees)
        for (const auto& root : tree.roots) walk(tree, root, 0, facts, noisy, kernel, spec, kernel_diagnosis);
    // near-roof says "look elsewhere": that nothing else on the kernel gains much. Where a rule node or
    // an estimate could not be evaluated, that is not decided: near-roof may still lead, but only as a
    // provisional answer (below), with the nodes that could outrank it.
    const auto elsewhere = std::count_if(kernel_diagnosis.undecided.begin(), kernel_diagnosis.undecided.end(),
                                         [](const undecided_item& item) { return item.tree != "near-roof"; });
    drop_gainless(kernel_diagnosis);
    if (kernel_diagnosis.findings.empty() && kernel.roof.placed && kernel.roof.work_open() &&
        !kernel_diagnosis.undecided.empty())
        if (auto least_first = first_at_least_work(trees, kernel, spec, facts))
            kernel_diagnosis.findings.push_back(std::move(*least_first));
    if (kernel_diagnosis.findings.empty() && kernel.roof.placed)
        kernel_diagnosis.findings.push_back(kernel_diagnosis.undecided.empty()
                                                ? unexplained(kernel, spec, facts, !kernel_diagnosis.notes.empty())
                                                : not_decided(kernel_diagnosis, spec));
    settle_findings(kernel_diagnosis, kernel, spec);
    // The ranking rests on every node's gain: where some could not be evaluated, the first finding is
    // provisional (a node that could not be evaluated may gain more), unless its fix already takes the
    // kernel to the floor the counters prove (no fix that keeps the work gains more). It still leads:
    // a capture that holds an answer gives it, with the findings that could outrank it and what they
    // need; missing-counters follows the findings that fired, with the command that collects it.
    if (!kernel_diagnosis.undecided.empty() && !kernel_diagnosis.findings.empty() &&
        kernel_diagnosis.findings.front().id != "missing-counters") {
        const finding& first = kernel_diagnosis.findings.front();
        const bool at_floor = first.est_time_after_ns && kernel.roof.practical_floor_ns > 0 &&
                              *first.est_time_after_ns <= kernel.roof.practical_floor_ns * (1.0 + run_to_run_noise);
        // near-roof is at its floor by definition; it is the answer only where nothing else is undecided.
        if (!at_floor || (first.id == "near-roof" && elsewhere > 0) || first.at_least_work) {
            kernel_diagnosis.provisional = true;
            kernel_diagnosis.could_outrank = contenders(trees, kernel_diagnosis);
            // The first finding's own open estimate is its own question, not a rival.
            const pooled_string lead = kernel_diagnosis.findings.front().id;
            kernel_diagnosis.could_outrank.erase(
                std::remove_if(kernel_diagnosis.could_outrank.begin(), kernel_diagnosis.could_outrank.end(),
                               [&lead](const diagnosis::contender& listed) { return listed.id == lead; }),
                kernel_diagnosis.could_outrank.end());
            // Its own gain may be open down to nothing: where the least it surely gains is within run-to-run noise,
            // the complete capture may list it as no opportunity (drop_gainless), and what follows it leads there.
            const finding& first_found = kernel_diagnosis.findings.front();
            if (!first_found.est_speedup && first_found.id != "near-roof" && first_found.tree != "catch-all" &&
                first_found.est_speedup_at_least.value_or(1.0) < 1.0 + run_to_run_noise) {
                const auto next = std::find_if(kernel_diagnosis.findings.begin() + 1, kernel_diagnosis.findings.end(),
                                               [](const finding& candidate) {
                                                   return candidate.tree != "catch-all" && candidate.tree != "workload";
                                               });
                diagnosis::contender instead =
                    next != kernel_diagnosis.findings.end()
                        ? diagnosis::contender{next->id, next->tree, next->node, {}}
                        : diagnosis::contender{"unexplained", "catch-all", "unexplained", {}};
                instead.if_first_gainless = true;
                if (std::none_of(kernel_diagnosis.could_outrank.begin(), kernel_diagnosis.could_outrank.end(),
                                 [&instead](const diagnosis::contender& listed) { return listed.id == instead.id; }))
                    kernel_diagnosis.could_outrank.push_back(std::move(instead));
            }
            kernel_diagnosis.findings.push_back(not_decided(kernel_diagnosis, spec, true));
        }
    }
    kernel_diagnosis.path.shrink_to_fit();  // held for every kernel of a capture: no doubling slack
    for (auto& visit : kernel_diagnosis.path) visit.values.shrink_to_fit();
    return kernel_diagnosis;
}

std::string collect_flags::text() const {
    std::string flags;
    for (const auto& chip_metric : metrics) flags += (flags.empty() ? "--metrics " : ",") + chip_metric;
    for (const auto& section : sections) flags += (flags.empty() ? "" : " ") + std::string("--section ") + section;
    return flags;
}

collect_flags ncu_flags_for(const std::vector<std::string>& missing, const chip* target_chip) {
    collect_flags flags;
    std::set<std::string> metrics, sections;
    for (const auto& id : missing) {
        const metric_entry* entry = find_metric(id);
        if (!entry) {  // a family member: asked for by its name
            metrics.insert(id);
            continue;
        }
        if (entry->source) {
            sections.insert(entry->source->stock_section);
            continue;
        }
        const auto names = names_on(*entry, target_chip);
        if (names.empty()) add_unique(flags.uncollectable, id);
        metrics.insert(names.begin(), names.end());
    }
    flags.metrics.assign(metrics.begin(), metrics.end());
    flags.sections.assign(sections.begin(), sections.end());
    return flags;
}

}  // namespace roofline::diagnose
