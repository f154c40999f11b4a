#include "analyzer/timeline/triage.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/render/document.hpp"
#include "analyzer/render/json_number.hpp"
#include "analyzer/render/table.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

namespace roofline {
namespace {

// Kernels listed beyond the profiled ones, so a long tail does not bury the table.
constexpr std::size_t triage_listed_beyond = 10;

std::string triage_stem(std::size_t rank, const std::string& function) {
    std::string s = "k" + std::to_string(rank) + "_";
    for (char c : function) {
        if (s.size() >= 64) break;
        const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        s += safe ? c : '_';
    }
    return s;
}

std::string triage_join(const std::vector<std::string>& v, const char* separator) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : separator) + x;
    return s;
}

std::string triage_plural(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string triage_selection(const triage_plan& t) {
    const double reached = t.selected ? t.ranked[t.selected - 1].cumulative : 0.0;
    std::string s =
        t.cover ? "the fewest kernels that reach " + format_percent(*t.cover) + " of GPU time: " : "the top ";
    return s + triage_plural(t.selected, "kernel", "kernels") + ", " + format_percent(reached) + " of GPU time";
}

doc::phrase triage_plan_text(const triage_plan& t) {
    doc::phrase s;
    if (t.section_folder.empty())
        s.code("--metrics \"$METRICS\"")
            .words(": the " + std::to_string(t.metric_count) + " metrics of ")
            .code("roofline metrics");
    else
        s.code("--section-folder " + t.section_folder + " --section roofline")
            .words(": the " + std::to_string(t.metric_count) + " metrics of ")
            .code("roofline metrics --format section -o " + t.section_folder + "/roofline.section");
    s.words(" (" + std::to_string(t.required_count) + " required by the model, " +
            std::to_string(t.metric_count - t.required_count) + " optional: no model code reads them; ")
        .code("roofline metrics --format markdown")
        .words(" lists the rule nodes that do)");
    return s;
}

std::vector<doc::phrase> triage_notes(const triage_plan& t) {
    std::vector<doc::phrase> n;
    n.push_back(doc::phrase("One ncu run per kernel: ")
                    .code("--launch-skip")
                    .words(" and ")
                    .code("-c")
                    .words(" (")
                    .code("--launch-count")
                    .words(") count only the launches the ")
                    .code("--kernel-name")
                    .words(" filter matches, so one filter for several kernels would profile the first launches of "
                           "whichever comes first."));
    n.push_back(doc::phrase("Warm-up: a kernel that ran more than once skips its first launch (")
                    .code("--launch-skip 1")
                    .words(": a first launch often belongs to a warm-up step, with autotuning trials, JIT compilation "
                           "or first-call setup, and may not look like the steady state) and profiles the next (")
                    .code("-c 1")
                    .words("); one that ran once is profiled as it is. ")
                    .code("--launch-skip N")
                    .words(" and ")
                    .code("--launch-count N")
                    .words(" change it."));
    n.push_back(doc::phrase()
                    .code("--kernel-name-base function")
                    .words(" matches the function name alone (no return type, namespaces, template arguments or "
                           "parameters), anchored with ^ and $; a template's kernels, and those whose function name "
                           "the summary shares, are matched on the whole demangled name (")
                    .code("--kernel-name-base demangled")
                    .words(") by the words ncu writes as the trace does, in order, each a whole word: ncu demangles "
                           "differently (at::native:: as at::, \"(anonymous namespace)\" as \"<unnamed>\", lambdas "
                           "as \"[lambda() (instance 2)]\", T1 for parameter types), so the trace's text itself would "
                           "match nothing."));
    if (!t.section_only.empty()) {
        doc::phrase p("The " + triage_plural(t.section_only.size(), "metric", "metrics") +
                      " only ncu's own section files define (derived__*: the L1/L2 traffic and chart ceilings, "
                      "excess-traffic shares) cannot be named in --metrics: ");
        if (t.section_folder.empty())
            p.words("the commands add the stock sections that define them (")
                .code("--section " + triage_join(t.sections, " --section "))
                .words(")");
        else
            p.words("the section file defines them itself (its SourceMetrics and MetricDefinitions)");
        p.words(
            ". Without them the kernels are still placed, on fewer roofs, and the report lists the rule nodes it "
            "could not evaluate.");
        n.push_back(std::move(p));
    }
    n.push_back("Shares are each kernel's total time over the sum of every kernel's, not nsys' rounded Time (%).");
    return n;
}

std::string triage_count(double v) { return format_number(v); }

// A number as the JSON report writes it: `digits` significant digits, read back without the locale.
double triage_rounded(double v, int digits) {
    const std::string text = significant(v, digits);
    double r = v;
    std::from_chars(text.data(), text.data() + text.size(), r);
    return r;
}

}  // namespace

std::string triage_script(const triage_plan& t) {
    std::string s;
    if (t.section_folder.empty())
        s += "METRICS=" + shell_quote(t.metrics) + "\n";
    else
        s += "mkdir -p " + shell_quote(t.section_folder) + " && roofline metrics --format section -o " +
             shell_quote(t.section_folder + "/roofline.section") + "\n";
    for (const auto& c : t.commands)
        s += "\n" + c.profile_shell + "\n" + c.export_shell + "\n" + c.analyze_shell + "\n";
    return s;
}

std::string shell_quote(const std::string& word) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
    });
    if (plain) return word;
    std::string s = "'";
    for (char c : word) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return s + "'";
}

std::string regex_escape(const std::string& text) {
    std::string s;
    for (char c : text) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) s += '\\';
        s += c;
    }
    return s;
}

triage_plan make_triage(const nsys_kernsum& summary, const triage_options& o, const ncu_collection& collect) {
    triage_plan t;
    t.summary = &summary;
    t.cover = o.cover;
    t.section_folder = o.section_folder;
    t.metrics = collect.metrics;
    t.metric_count = collect.metric_count;
    t.required_count = collect.required_count;
    t.section_only = collect.section_only;
    t.sections = collect.sections;
    std::map<std::string, std::size_t> functions;
    for (const auto& k : summary.kernels) {
        t.total_ns += k.total_ns;
        triage_kernel r{&k, 0.0, 0.0, function_name(k.name)};
        ++functions[r.function];
        t.ranked.push_back(std::move(r));
    }
    std::stable_sort(t.ranked.begin(), t.ranked.end(), [](const triage_kernel& a, const triage_kernel& b) {
        if (a.kernel->total_ns != b.kernel->total_ns) return a.kernel->total_ns > b.kernel->total_ns;
        return a.kernel->name < b.kernel->name;
    });
    double running = 0.0;
    for (auto& r : t.ranked) {
        running += r.kernel->total_ns;
        r.share = t.total_ns > 0 ? r.kernel->total_ns / t.total_ns : 0.0;
        r.cumulative = t.total_ns > 0 ? running / t.total_ns : 0.0;
    }
    if (o.cover) {
        t.selected = t.ranked.size();
        for (std::size_t i = 0; i < t.ranked.size(); ++i)
            if (t.ranked[i].cumulative >= *o.cover - 1e-12) {
                t.selected = i + 1;
                break;
            }
    } else {
        t.selected = std::min(o.top, t.ranked.size());
    }
    for (std::size_t i = 0; i < t.selected; ++i) {
        const auto& r = t.ranked[i];
        triage_command c;
        c.rank = i + 1;
        c.kernel = r.kernel->name;
        // A plain name is matched by its function name; a template's, or one the summary shares, by the
        // words both demanglers write (portable_name_tokens): the trace's text itself would not match
        // ncu's (at::native:: as at::, "(anonymous namespace)" as "<unnamed>", T1 for parameter types).
        const std::string portable = ncu_name_regex(r.kernel->name);
        const bool by_function = !r.function.empty() && functions[r.function] == 1 &&
                                 (r.kernel->name.find('<') == std::string::npos || portable.empty());
        c.name_base = by_function ? "function" : "demangled";
        c.kernel_filter = "regex:" + (by_function        ? "^" + regex_escape(r.function) + "$"
                                      : portable.empty() ? "^" + regex_escape(r.kernel->name) + "$"
                                                         : portable);
        c.launch_skip = o.launch_skip.value_or(r.kernel->instances >= 2 ? 1 : 0);
        c.launch_count = o.launch_count;
        c.stem = triage_stem(c.rank, r.function.empty() ? "kernel" : r.function);
        c.profile = {"ncu",
                     "--kernel-name-base",
                     c.name_base,
                     "--kernel-name",
                     c.kernel_filter,
                     "--launch-skip",
                     std::to_string(c.launch_skip),
                     "-c",
                     std::to_string(c.launch_count)};
        if (o.section_folder.empty()) {
            c.profile.insert(c.profile.end(), {"--metrics", t.metrics});
            for (const auto& section : t.sections) c.profile.insert(c.profile.end(), {"--section", section});
        } else
            c.profile.insert(c.profile.end(), {"--section-folder", o.section_folder, "--section", "roofline"});
        c.profile.insert(c.profile.end(), {"-o", c.stem, o.app});
        for (std::size_t a = 0; a < c.profile.size(); ++a) {
            const std::string& w = c.profile[a];
            std::string q = shell_quote(w);
            if (a + 1 == c.profile.size())
                q = w;  // the application, as the user typed it
            else if (a > 0 && c.profile[a - 1] == "--metrics")
                q = "\"$METRICS\"";
            c.profile_shell += (a ? " " : "") + q;
        }
        c.export_shell = "ncu -i " + c.stem + ".ncu-rep --csv --page raw > " + c.stem + ".csv";
        c.analyze_shell = "roofline analyze " + c.stem + ".csv -o " + c.stem + ".md";
        t.commands.push_back(std::move(c));
    }
    return t;
}

doc::document triage_document(const triage_plan& t) {
    doc::document d;
    const auto& s = *t.summary;
    d.add_heading(1, doc::phrase("Triage of ").code(s.file));
    d.add_paragraph(triage_plural(t.ranked.size(), "kernel", "kernels") + ", " + format_duration_ns(t.total_ns) +
                    " of GPU time (nsys " + s.layout + ", header at line " + std::to_string(s.header_line) +
                    "). Profile " + triage_selection(t) + ".");
    doc::table_block tb{{"#", "share", "cumulative", "total time", "instances", "average", "kernel"}, {}};
    const std::size_t shown = std::min(t.ranked.size(), t.selected + triage_listed_beyond);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& r = t.ranked[i];
        const double avg = r.kernel->instances > 0 ? r.kernel->total_ns / r.kernel->instances : 0.0;
        tb.rows.push_back({std::to_string(i + 1) + (i < t.selected ? " *" : ""), format_percent(r.share),
                           format_percent(r.cumulative), format_duration_ns(r.kernel->total_ns),
                           triage_count(r.kernel->instances), format_duration_ns(avg),
                           doc::phrase().code(r.kernel->name)});
    }
    d.add_table(std::move(tb));
    if (shown < t.ranked.size())
        d.add_paragraph(triage_plural(t.ranked.size() - shown, "more kernel", "more kernels") + ", " +
                        format_percent(1.0 - t.ranked[shown - 1].cumulative) + " of GPU time, not listed.");
    d.add_paragraph(doc::phrase().code("*").words(": profiled below."));
    d.add_heading(2, "Profile them");
    d.add_paragraph(doc::phrase("Metric plan: ").append(triage_plan_text(t)).words("."));
    d.add_list(triage_notes(t));
    d.add_code("sh", triage_script(t));
    return d;
}

std::string triage_markdown(const triage_plan& t) { return doc::markdown(triage_document(t)); }

std::string triage_html(const triage_plan& t) { return doc::html_page(triage_document(t)); }

std::string triage_terminal(const triage_plan& t) {
    std::ostringstream o;
    const auto& s = *t.summary;
    o << s.file << ": " << triage_plural(t.ranked.size(), "kernel", "kernels") << ", " << format_duration_ns(t.total_ns)
      << " of GPU time (nsys " << s.layout << ")\n\n";
    // A star marks the kernels the script profiles.
    table rows({{"", align::left, 2, false, 1},
                {"#", align::right, 2, false, 0},
                {"share", align::right, 8, false, 0},
                {"cumul.", align::right, 8, false, 0},
                {"total time", align::right, 12, false, 0},
                {"instances", align::right, 11, false, 0},
                {"kernel"}});
    const std::size_t shown = std::min(t.ranked.size(), t.selected + triage_listed_beyond);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& r = t.ranked[i];
        rows.row({i < t.selected ? "*" : "", std::to_string(i + 1), format_percent(r.share),
                  format_percent(r.cumulative), format_duration_ns(r.kernel->total_ns),
                  triage_count(r.kernel->instances), printable(short_name(r.kernel->name))});
    }
    o << rows.text();
    if (shown < t.ranked.size())
        o << "   (" << triage_plural(t.ranked.size() - shown, "more kernel", "more kernels") << ")\n";
    o << "\nProfile " << triage_selection(t) << ", one ncu run each.\n\n" << triage_script(t);
    return o.str();
}

std::string triage_json(const triage_plan& t) {
    using ojson = nlohmann::ordered_json;
    auto share = [](double v) { return triage_rounded(v, 6); };
    ojson j;
    j["file"] = t.summary->file;
    j["layout"] = t.summary->layout;
    j["total_ns"] = triage_rounded(t.total_ns, 15);
    j["selection"] = {{"by", t.cover ? "cover" : "top"},
                      {"cover", t.cover ? ojson(share(*t.cover)) : ojson(nullptr)},
                      {"kernels", t.selected}};
    ojson kernels = ojson::array();
    for (std::size_t i = 0; i < t.ranked.size(); ++i) {
        const auto& r = t.ranked[i];
        kernels.push_back({{"rank", i + 1},
                           {"name", r.kernel->name},
                           {"function", r.function},
                           {"total_ns", triage_rounded(r.kernel->total_ns, 15)},
                           {"instances", triage_rounded(r.kernel->instances, 15)},
                           {"share", share(r.share)},
                           {"cumulative", share(r.cumulative)},
                           {"profiled", i < t.selected},
                           {"line", r.kernel->line}});
    }
    j["kernels"] = kernels;
    j["metrics"] = {{"count", t.metric_count},
                    {"required", t.required_count},
                    {"list", t.metrics},
                    {"section_only", t.section_only}};
    ojson commands = ojson::array();
    for (const auto& c : t.commands)
        commands.push_back({{"rank", c.rank},
                            {"kernel", c.kernel},
                            {"kernel_name_base", c.name_base},
                            {"kernel_name", c.kernel_filter},
                            {"launch_skip", c.launch_skip},
                            {"launch_count", c.launch_count},
                            {"profile", c.profile},
                            {"profile_shell", c.profile_shell},
                            {"export_shell", c.export_shell},
                            {"analyze_shell", c.analyze_shell}});
    j["commands"] = commands;
    j["notes"] = ojson::array();
    for (const auto& n : triage_notes(t)) j["notes"].push_back(doc::markdown(n));
    return json_text(j);
}

}  // namespace roofline
