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

template <typename T, typename U>
void add_unique(std::vector<T>& v, const U& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(T(s));
}

evidence_value evidence_of(const std::string& text, const fact_value& v, value_type type) {
    evidence_value e{text, std::nullopt, type};
    if (v.range) e.set_bounds(*v.range);
    return e;
}

evidence_value evidence_of(const expression& x, const name_values& facts) {
    const evaluation e = x.evaluate_range(facts);
    evidence_value out{x.text(), std::nullopt, x.type()};
    if (e.range) out.set_bounds(*e.range);
    return out;
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Values that move between captures of one program: those measured against time (busy and useful
// shares, floors, durations, percentages of a peak, rates, stall ratios). Counts (instructions,
// sectors, requests and their ratios) and launch shapes repeat exactly.
bool moves_with_noise(const std::string& name) {
    for (const char* p : {"util_", "useful_", "pressure_", "floor_ns", "work_ns_", "practical_floor_ns"})
        if (starts_with(name, p)) return true;
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

name_values within_noise_of(const name_values& facts, const kernel_result& k) {
    return [facts, &k](const std::string& name) -> fact_value {
        fact_value v = facts(name);
        if (!v.range) return v;
        const auto& c = k.verdict;
        auto open = [&v] {
            v.range = value_range{0.0, 1.0};
            return v;
        };
        if (starts_with(name, "bound_") && !c.tied_bounds.empty()) {
            const auto b = bound_named(name.substr(6));
            if (b &&
                (*b == c.bound || std::find(c.tied_bounds.begin(), c.tied_bounds.end(), *b) != c.tied_bounds.end()))
                return open();
        }
        if (starts_with(name, "limiter_") && (!c.tied_limiters.empty() || !c.tied_bounds.empty())) {
            const auto r = resource_named(name.substr(8));
            if (r && (c.limiter == *r ||
                      std::find(c.tied_limiters.begin(), c.tied_limiters.end(), *r) != c.tied_limiters.end()))
                return open();
        }
        if (fact_type(name) != value_type::number || !moves_with_noise(name)) return v;
        auto wide = [](double x, double f) { return x >= 0 ? x * f : x / f; };
        v.range = value_range{wide(v.range->lo, 1.0 - run_to_run_noise), wide(v.range->hi, 1.0 + run_to_run_noise)};
        return v;
    };
}

void walk(const rule_tree& tree, const rule_node& n, int depth, const name_values& facts, const name_values& noisy,
          const kernel_result& k, const gpu_spec& gpu, diagnosis& d) {
    visited_node v;
    v.tree = tree.id;
    v.node = n.id;
    v.title = n.title;
    v.depth = depth;
    const evaluation ok = n.when.evaluate_range(facts);
    for (const auto& name : n.when.names())
        v.values.push_back(evidence_of(name, facts(name), fact_type(name).value_or(value_type::number)));
    if (!ok.decided()) {
        // Unknown, or between bounds that lie on both sides of the condition: not decided.
        v.result = visited_node::outcome::cannot_evaluate;
        v.missing.assign(ok.missing.begin(), ok.missing.end());
        for (const auto& m : ok.missing) add_unique(d.missing_metrics, m);
        add_unique(d.undecided, undecided_item{undecided_item::what::node, tree.id, n.id});
        d.path.push_back(std::move(v));
        return;
    }
    const bool fired = *ok.value() != 0.0;
    v.result = fired ? visited_node::outcome::fired : visited_node::outcome::not_fired;
    if (!n.when.evaluate_range(noisy).decided()) {
        v.within_noise = true;
        add_unique(d.within_noise, tree.id + "/" + n.id);
    }
    d.path.push_back(std::move(v));
    if (!fired) return;
    if (!n.finding.empty()) {
        finding f;
        f.id = n.finding;
        f.tree = tree.id;
        f.node = n.id;
        f.title = n.title;
        f.explain = n.explain;
        for (const auto& e : n.evidence) f.evidence.push_back(evidence_of(e, facts));
        if (n.estimate) {
            std::vector<std::string> lacking;
            estimate_finding(f, *n.estimate, k, gpu, facts, &lacking);
            if (!f.est_speedup) add_unique(d.undecided, undecided_item{undecided_item::what::estimate, tree.id, n.id});
            for (const auto& m : lacking) add_unique(d.missing_metrics, m);
        }
        // The fixes written for whoever can act on this kernel: kernel-author advice where the user owns
        // its source, the call-site levers (shapes, dtype, layout, fusion) where a library or compiler
        // wrote it. A node with no fix for a library's kernel gives that library's levers.
        for (const auto& x : n.fixes) {
            if (!x.applies_to(k.origin.kind)) continue;
            if (x.when) {
                auto applies = x.when->evaluate(facts);
                if (!applies || *applies == 0.0) continue;
            }
            f.fixes.push_back(x.text);
        }
        if (f.fixes.empty() && !source_owned(k.origin.kind))
            for (const auto& lever : origin_levers(k.origin.pattern)) f.fixes.push_back(lever);
        d.findings.push_back(std::move(f));
    }
    for (const auto& c : n.children) walk(tree, c, depth + 1, facts, noisy, k, gpu, d);
}

// The stall reasons ncu samples, for the catch-all finding's evidence.
const std::vector<const char*>& stall_reasons() {
    static const std::vector<const char*> r = {"long_scoreboard",
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
    return r;
}

// Every kernel gets an answer: where no tree fired, say so, show what the warps waited on, and
// name the counters that would decide between the usual causes.
finding unexplained(const kernel_result& k, const gpu_spec& gpu, const name_values& facts, bool gainless_fired) {
    finding f;
    f.id = "unexplained";
    f.tree = "catch-all";
    f.node = "unexplained";
    f.engine = engine_finding::unexplained;
    f.after_findings = gainless_fired;
    // A library's kernel: what its caller can change, not a source-level profile of code they cannot edit.
    if (!source_owned(k.origin.kind))
        for (const auto& lever : origin_levers(k.origin.pattern)) f.fixes.push_back(lever);
    auto total = facts("smsp__average_warp_latency_per_inst_issued.ratio").value();
    std::vector<std::pair<double, std::string>> shares;
    for (const char* r : stall_reasons()) {
        const std::string id = std::string("smsp__average_warps_issue_stalled_") + r + "_per_issue_active.ratio";
        auto v = facts(id).value();
        if (v && total && *total > 0)
            shares.emplace_back(*v / *total, id + " / smsp__average_warp_latency_per_inst_issued.ratio");
    }
    std::stable_sort(shares.begin(), shares.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = 0; i < shares.size() && i < 3; ++i) f.evidence.push_back({shares[i].second, shares[i].first});
    // The stall reasons are evidence only (roofline metrics does not plan them): say where they are missing.
    if (shares.size() < 3)
        f.evidence.push_back({"", std::nullopt, value_type::number, evidence_kind::stall_reasons_missing});
    f.evidence.push_back(evidence_of("roof_share", facts("roof_share"), value_type::number));
    // Whatever the cause, the work stays: the estimate is the kernel's largest floor at the practical shares.
    estimate_finding(f, estimate_spec{}, k, gpu, facts, nullptr);
    return f;
}

// Where no node that could be evaluated fired and some could not be, the answer is what to collect:
// "unexplained" would claim that no tree knows the kernel, when the capture did not let them look.
// Where some fired, it comes first all the same: an unevaluated node may gain more than any of them,
// so which fix comes first is not decided (`fired` says which case this is).
finding not_decided(const diagnosis& d, const gpu_spec& gpu, bool fired = false) {
    finding f;
    f.id = "missing-counters";
    f.tree = "catch-all";
    f.node = "missing-counters";
    f.engine = engine_finding::missing_counters;
    f.after_findings = fired;
    f.undecided = d.undecided;
    f.collect = ncu_flags_for(d.missing_metrics, chip_for_cc(gpu.compute_capability)).text();
    return f;
}

// The findings a rule node that could not be evaluated would give (an inner node: those of the nodes under
// it), and the fired findings whose estimate could not be evaluated: what may outrank a provisional first.
void findings_under(const rule_tree& t, const rule_node& n, const std::vector<pooled_string>& needs,
                    std::vector<diagnosis::contender>& out) {
    if (!n.finding.empty() &&
        std::none_of(out.begin(), out.end(), [&](const diagnosis::contender& c) { return c.id == n.finding; }))
        out.push_back({n.finding, t.id, n.id, needs});
    for (const auto& c : n.children) findings_under(t, c, needs, out);
}

const rule_node* find_node(const rule_node& n, const std::string& id) {
    if (n.id == id) return &n;
    for (const auto& c : n.children)
        if (const rule_node* f = find_node(c, id)) return f;
    return nullptr;
}

std::vector<diagnosis::contender> contenders(const std::vector<rule_tree>& trees, const diagnosis& d) {
    std::vector<diagnosis::contender> out;
    for (const auto& u : d.undecided) {
        if (u.kind == undecided_item::what::verdict) continue;
        for (const auto& t : trees) {
            if (t.id != u.tree.str()) continue;
            for (const auto& root : t.roots) {
                const rule_node* n = find_node(root, u.node);
                if (!n) continue;
                std::vector<pooled_string> needs;
                for (const auto& v : d.path)
                    if (v.tree == u.tree && v.node == u.node) needs = v.missing;
                if (u.kind == undecided_item::what::estimate) {
                    if (std::none_of(out.begin(), out.end(), [&](const auto& c) { return c.id == n->finding; }))
                        out.push_back({n->finding, t.id, n->id, needs});
                } else {
                    findings_under(t, *n, needs, out);
                }
            }
        }
    }
    return out;
}

}  // namespace

const std::vector<std::string>& catch_all_metrics() {
    static const std::vector<std::string> ids = [] {
        std::vector<std::string> v = {"smsp__average_warp_latency_per_inst_issued.ratio"};
        for (const char* r : stall_reasons())
            v.push_back(std::string("smsp__average_warps_issue_stalled_") + r + "_per_issue_active.ratio");
        return v;
    }();
    return ids;
}

void drop_gainless(diagnosis& d) {
    // A fix whose time after is within run-to-run noise of the kernel's time gains nothing anyone can
    // measure: the pattern is real, but it is not an opportunity. It goes to the notes, with why.
    // An open estimate whose most (the least time its fix can leave) is within noise gains nothing either.
    auto most_speedup = [](const finding& f) { return f.est_speedup ? f.est_speedup : f.est_speedup_at_most; };
    auto gainless = [&most_speedup](const finding& f) {
        const auto most = most_speedup(f);
        return f.id != "near-roof" && f.tree != "workload" && f.tree != "catch-all" && most &&
               *most < 1.0 + run_to_run_noise;
    };
    for (const auto& f : d.findings)
        if (gainless(f)) {
            diagnosis_note n;
            n.kind = diagnosis_note_kind::gainless;
            n.id = f.id;
            n.tree = f.tree;
            n.node = f.node;
            n.binds_after = f.binds_after;
            n.speedup = *most_speedup(f);
            n.at_most = !f.est_speedup;
            n.limit = run_to_run_noise;
            d.notes.push_back(std::move(n));
            // Its open estimate is settled by its bound: no longer a question that could change the ranking.
            if (!f.est_speedup)
                d.undecided.erase(std::remove(d.undecided.begin(), d.undecided.end(),
                                              undecided_item{undecided_item::what::estimate, f.tree, f.node}),
                                  d.undecided.end());
        }
    d.findings.erase(std::remove_if(d.findings.begin(), d.findings.end(), gainless), d.findings.end());
}

void settle_findings(diagnosis& d, const kernel_result& k, const gpu_spec& gpu) {
    drop_gainless(d);
    // near-roof means no fix of this work gains much: a larger estimate on the same kernel says
    // otherwise (doing the work on a faster unit, or less of it), so near-roof is not reported.
    const finding* larger = nullptr;
    for (const auto& f : d.findings)
        // A finding about a run of kernels (fusion) saves time across the run: it does not say this
        // kernel is far from its own roof.
        if (f.id != "near-roof" && f.tree != "workload" && f.est_speedup &&
            *f.est_speedup > near_roof_contradicted_above && (!larger || *f.est_speedup > *larger->est_speedup))
            larger = &f;
    if (larger) {
        auto it =
            std::find_if(d.findings.begin(), d.findings.end(), [](const finding& f) { return f.id == "near-roof"; });
        if (it != d.findings.end()) {
            diagnosis_note n;
            n.kind = diagnosis_note_kind::near_roof_outpromised;
            n.id = larger->id;
            n.speedup = *larger->est_speedup;
            n.limit = near_roof_contradicted_above;
            d.notes.push_back(std::move(n));
            d.findings.erase(it);
        }
    }
    // Where near-roof stands, it is the answer: nothing on this kernel promises more than 1.25x,
    // and the small gains below it are consistent with it. Otherwise by time saved. A finding whose
    // pattern was measured but whose gain the capture cannot price (its estimate undecided) is not
    // consistent with near-roof's "look elsewhere" until it is priced: it leads, and near-roof follows it.
    const bool near_roof_leads = std::none_of(d.findings.begin(), d.findings.end(), [&d](const finding& f) {
        return f.id != "near-roof" &&
               std::find(d.undecided.begin(), d.undecided.end(),
                         undecided_item{undecided_item::what::estimate, f.tree, f.node}) != d.undecided.end();
    });
    std::stable_sort(d.findings.begin(), d.findings.end(), [near_roof_leads](const finding& a, const finding& b) {
        if (near_roof_leads && (a.id == "near-roof") != (b.id == "near-roof")) return a.id == "near-roof";
        if (a.below_kernel_findings != b.below_kernel_findings) return b.below_kernel_findings;
        if (a.est_time_saved_ns.has_value() != b.est_time_saved_ns.has_value()) return a.est_time_saved_ns.has_value();
        if (a.est_time_saved_ns) return *a.est_time_saved_ns > *b.est_time_saved_ns;
        // Two open estimates: the one that can gain more leads (the least time its fix can leave, from what
        // the capture holds); one with no such bound keeps its place after those with one.
        const double a_least = a.est_time_after_at_least_ns.value_or(std::numeric_limits<double>::infinity());
        const double b_least = b.est_time_after_at_least_ns.value_or(std::numeric_limits<double>::infinity());
        return a_least < b_least;
    });
    // Where two estimates cannot be told apart, which fix gains more is not measured. The one that takes
    // more off the named limiter's work leads (the user of a tensor-core GEMM that L2 limits hears about the
    // tensor path, which reuses each L2 byte, before coalescing, which does not touch L2); where both leave
    // the limiter alike, the fix that keeps the work comes first: the gain does not need the rewrite.
    const double duration_ns = k.roof.duration_ns;
    auto after = [duration_ns](const finding& f) { return duration_ns - f.est_time_saved_ns.value_or(0.0); };
    const std::optional<resource> limiter = k.verdict.limiter;
    const std::map<resource, double> now = current_work(k.roof);
    auto limiter_left = [&](const finding& f) {
        if (!limiter || !now.count(*limiter) || now.at(*limiter) <= 0.0) return 1.0;
        const auto it = f.changed_work.find(*limiter);
        return it == f.changed_work.end() ? 1.0 : it->second / now.at(*limiter);
    };
    auto leads = [&](const finding& b, const finding& a) {  // b, after a in time saved, goes first
        const double left_a = limiter_left(a), left_b = limiter_left(b);
        if (left_b < left_a - limiter_left_alike_within) return true;
        if (left_a < left_b - limiter_left_alike_within) return false;
        return a.changes_work && !b.changes_work;
    };
    for (std::size_t i = 1; i < d.findings.size(); ++i)
        for (std::size_t j = i; j > 0; --j) {
            finding& a = d.findings[j - 1];
            finding& b = d.findings[j];
            if (a.id == "near-roof" || !a.est_time_saved_ns || !b.est_time_saved_ns ||
                a.below_kernel_findings != b.below_kernel_findings)
                break;
            if (after(b) > after(a) * (1.0 + estimates_indistinct_within) || !leads(b, a)) break;
            std::swap(a, b);
        }
    // Findings whose time after the fix is within run-to-run noise of the first's: which comes first is
    // not measured, so each is named beside it (their order above is fixed, not measured).
    d.tied_with_first.clear();
    if (d.findings.size() > 1 && d.findings.front().id != "near-roof" && d.findings.front().est_time_after_ns) {
        const double first = *d.findings.front().est_time_after_ns;
        for (std::size_t i = 1; i < d.findings.size(); ++i) {
            const auto& f = d.findings[i];
            if (f.est_time_after_ns &&
                std::abs(*f.est_time_after_ns - first) <= run_to_run_noise * std::max(first, *f.est_time_after_ns))
                d.tied_with_first.push_back(f.id);
        }
    }
    // The savings of one kernel's findings overlap: each shows what it adds to those above it,
    // and together they stop at the floor left once every fix is in. Findings about a run of
    // kernels (tree "workload") save time across the run and keep their own figure.
    std::vector<const finding*> all;
    for (const auto& f : d.findings)
        if (f.est_time_saved_ns && f.tree != "workload") all.push_back(&f);
    const double duration = k.roof.duration_ns;
    double remaining =
        all.empty() ? 0.0 : std::max(0.0, duration - std::min(duration, combined_after(k, gpu, all).after_ns));
    for (auto& f : d.findings) {
        if (!f.est_time_saved_ns) continue;
        if (f.tree == "workload") {
            f.est_time_saved_combined_ns = f.est_time_saved_ns;
            continue;
        }
        const double share = std::min(*f.est_time_saved_ns, remaining);
        f.est_time_saved_combined_ns = share;
        remaining -= share;
    }
}

diagnosis diagnose(const std::vector<rule_tree>& trees, const kernel_result& kernel, const gpu_spec& spec) {
    diagnosis d;
    if (!kernel.verdict.decided()) {
        d.undecided.push_back({undecided_item::what::verdict, {}, {}});
        for (const auto& m : kernel.verdict.missing) add_unique(d.missing_metrics, m);
    }
    const name_values facts = computed_once(kernel_facts(kernel, spec));
    const name_values noisy = computed_once(within_noise_of(facts, kernel));
    for (const auto& t : trees)
        for (const auto& root : t.roots) walk(t, root, 0, facts, noisy, kernel, spec, d);
    // near-roof says "look elsewhere": that nothing else on the kernel gains much. Where a rule node or
    // an estimate could not be evaluated, that is not decided: near-roof may still lead, but only as a
    // provisional answer (below), with the nodes that could outrank it.
    const auto elsewhere = std::count_if(d.undecided.begin(), d.undecided.end(),
                                         [](const undecided_item& u) { return u.tree != "near-roof"; });
    drop_gainless(d);
    if (d.findings.empty() && kernel.roof.placed)
        d.findings.push_back(d.undecided.empty() ? unexplained(kernel, spec, facts, !d.notes.empty())
                                                 : not_decided(d, spec));
    settle_findings(d, kernel, spec);
    // The ranking rests on every node's gain: where some could not be evaluated, the first finding is
    // provisional (a node that could not be evaluated may gain more), unless its fix already takes the
    // kernel to the floor the counters prove (no fix that keeps the work gains more). It still leads:
    // a capture that holds an answer gives it, with the findings that could outrank it and what they
    // need; missing-counters follows the findings that fired, with the command that collects it.
    if (!d.undecided.empty() && !d.findings.empty() && d.findings.front().id != "missing-counters") {
        const finding& first = d.findings.front();
        const bool at_floor = first.est_time_after_ns && kernel.roof.practical_floor_ns > 0 &&
                              *first.est_time_after_ns <= kernel.roof.practical_floor_ns * (1.0 + run_to_run_noise);
        // near-roof is at its floor by definition; it is the answer only where nothing else is undecided.
        if (!at_floor || (first.id == "near-roof" && elsewhere > 0)) {
            d.provisional = true;
            d.could_outrank = contenders(trees, d);
            // The first finding's own open estimate is its own question, not a rival.
            const pooled_string lead = d.findings.front().id;
            d.could_outrank.erase(std::remove_if(d.could_outrank.begin(), d.could_outrank.end(),
                                                 [&lead](const diagnosis::contender& c) { return c.id == lead; }),
                                  d.could_outrank.end());
            d.findings.push_back(not_decided(d, spec, true));
        }
    }
    d.path.shrink_to_fit();  // held for every kernel of a capture: no doubling slack
    for (auto& v : d.path) v.values.shrink_to_fit();
    return d;
}

std::string collect_flags::text() const {
    std::string s;
    for (const auto& m : metrics) s += (s.empty() ? "--metrics " : ",") + m;
    for (const auto& x : sections) s += (s.empty() ? "" : " ") + std::string("--section ") + x;
    return s;
}

collect_flags ncu_flags_for(const std::vector<std::string>& missing, const chip* c) {
    collect_flags f;
    std::set<std::string> metrics, sections;
    for (const auto& id : missing) {
        const metric_entry* m = find_metric(id);
        if (!m) {  // a family member: asked for by its name
            metrics.insert(id);
            continue;
        }
        if (m->source) {
            sections.insert(m->source->stock_section);
            continue;
        }
        const auto names = names_on(*m, c);
        if (names.empty()) add_unique(f.uncollectable, id);
        metrics.insert(names.begin(), names.end());
    }
    f.metrics.assign(metrics.begin(), metrics.end());
    f.sections.assign(sections.begin(), sections.end());
    return f;
}

}  // namespace roofline::diagnose
