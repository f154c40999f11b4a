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
    std::string stem = "k" + std::to_string(rank) + "_";
    for (char ch : function) {
        if (stem.size() >= 64) break;
        const bool safe = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
        stem += safe ? ch : '_';
    }
    return stem;
}

std::string triage_join(const std::vector<std::string>& parts, const char* separator) {
    std::string joined;
    for (const auto& part : parts) joined += (joined.empty() ? "" : separator) + part;
    return joined;
}

std::string triage_plural(std::size_t count, const char* one, const char* many) {
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string triage_selection(const triage_plan& plan) {
    const double reached = plan.selected ? plan.ranked[plan.selected - 1].cumulative : 0.0;
    std::string lead =
        plan.cover ? "the fewest kernels that reach " + format_percent(*plan.cover) + " of GPU time: " : "the top ";
    return lead + triage_plural(plan.selected, "kernel", "kernels") + ", " + format_percent(reached) + " of GPU time";
}

doc::phrase triage_plan_text(const triage_plan& plan) {
    doc::phrase text;
    if (plan.section_folder.empty())
        text.code("--metrics \"$METRICS\"")
            .words(": the " + std::to_string(plan.metric_count) + " metrics of ")
            .code("roofline metrics");
    else
        text.code("--section-folder " + plan.section_folder + " --section roofline")
            .words(": the " + std::to_string(plan.metric_count) + " metrics of ")
            .code("roofline metrics --format section -o " + plan.section_folder + "/roofline.section");
    text.words(" (" + std::to_string(plan.required_count) + " required by the model, " +
               std::to_string(plan.metric_count - plan.required_count) + " optional: no model code reads them; ")
        .code("roofline metrics --format markdown")
        .words(" lists the rule nodes that do)");
    return text;
}

std::vector<doc::phrase> triage_notes(const triage_plan& plan) {
    std::vector<doc::phrase> notes;
    notes.push_back(doc::phrase("One ncu run per kernel: ")
                        .code("--launch-skip")
                        .words(" and ")
                        .code("-c")
                        .words(" (")
                        .code("--launch-count")
                        .words(") count only the launches the ")
                        .code("--kernel-name")
                        .words(" filter matches, so one filter for several kernels would profile the first launches of "
                               "whichever comes first."));
    notes.push_back(
        doc::phrase("Warm-up: a kernel that ran more than once skips its first launch (")
            .code("--launch-skip 1")
            .words(": a first launch often belongs to a warm-up step, with autotuning trials, JIT compilation "
                   "or first-call setup, and may not look like the steady state) and profiles the next (")
            .code("-c 1")
            .words("); one that ran once is profiled as it is. ")
            .code("--launch-skip N")
            .words(" and ")
            .code("--launch-count N")
            .words(" change it."));
    notes.push_back(
        doc::phrase()
            .code("--kernel-name-base function")
            .words(" matches the function name alone (no return type, namespaces, template arguments or "
                   "parameters), anchored with ^ and $; a template's kernels, and those whose function name "
                   "the summary shares, are matched on the whole demangled name (")
            .code("--kernel-name-base demangled")
            .words(") by the words ncu writes as the trace does, in order, each a whole word: ncu demangles "
                   "differently (at::native:: as at::, \"(anonymous namespace)\" as \"<unnamed>\", lambdas "
                   "as \"[lambda() (instance 2)]\", T1 for parameter types), so the trace's text itself would "
                   "match nothing."));
    if (!plan.section_only.empty()) {
        doc::phrase note("The " + triage_plural(plan.section_only.size(), "metric", "metrics") +
                         " only ncu's own section files define (derived__*: the L1/L2 traffic and chart ceilings, "
                         "excess-traffic shares) cannot be named in --metrics: ");
        if (plan.section_folder.empty())
            note.words("the commands add the stock sections that define them (")
                .code("--section " + triage_join(plan.sections, " --section "))
                .words(")");
        else
            note.words("the section file defines them itself (its SourceMetrics and MetricDefinitions)");
        note.words(
            ". Without them the kernels are still placed, on fewer roofs, and the report lists the rule nodes it "
            "could not evaluate.");
        notes.push_back(std::move(note));
    }
    notes.push_back("Shares are each kernel's total time over the sum of every kernel's, not nsys' rounded Time (%).");
    return notes;
}

std::string triage_count(double value) { return format_number(value); }

// A number as the JSON report writes it: `digits` significant digits, read back without the locale.
double triage_rounded(double value, int digits) {
    const std::string text = significant(value, digits);
    double rounded = value;
    std::from_chars(text.data(), text.data() + text.size(), rounded);
    return rounded;
}

}  // namespace

std::string triage_script(const triage_plan& plan) {
    std::string script;
    if (plan.section_folder.empty())
        script += "METRICS=" + shell_quote(plan.metrics) + "\n";
    else
        script += "mkdir -p " + shell_quote(plan.section_folder) + " && roofline metrics --format section -o " +
                  shell_quote(plan.section_folder + "/roofline.section") + "\n";
    for (const auto& command : plan.commands)
        script += "\n" + command.profile_shell + "\n" + command.export_shell + "\n" + command.analyze_shell + "\n";
    return script;
}

std::string shell_quote(const std::string& word) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
               std::string_view("_@%+=:,./-").find(ch) != std::string_view::npos;
    });
    if (plain) return word;
    std::string quoted = "'";
    for (char ch : word) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return quoted + "'";
}

std::string regex_escape(const std::string& text) {
    std::string escaped;
    for (char ch : text) {
        if (std::string_view("\\^$.|?*+()[]{}").find(ch) != std::string_view::npos) escaped += '\\';
        escaped += ch;
    }
    return escaped;
}

triage_plan make_triage(const nsys_kernsum& summary, const triage_options& options, const ncu_collection& collect) {
    triage_plan plan;
    plan.summary = &summary;
    plan.cover = options.cover;
    plan.section_folder = options.section_folder;
    plan.metrics = collect.metrics;
    plan.metric_count = collect.metric_count;
    plan.required_count = collect.required_count;
    plan.section_only = collect.section_only;
    plan.sections = collect.sections;
    std::map<std::string, std::size_t> functions;
    for (const auto& kernel_entry : summary.kernels) {
        plan.total_ns += kernel_entry.total_ns;
        triage_kernel ranked_kernel{&kernel_entry, 0.0, 0.0, function_name(kernel_entry.name)};
        ++functions[ranked_kernel.function];
        plan.ranked.push_back(std::move(ranked_kernel));
    }
    std::stable_sort(plan.ranked.begin(), plan.ranked.end(), [](const triage_kernel& left, const triage_kernel& right) {
        if (left.kernel->total_ns != right.kernel->total_ns) return left.kernel->total_ns > right.kernel->total_ns;
        return left.kernel->name < right.kernel->name;
    });
    double running = 0.0;
    for (auto& ranked_kernel : plan.ranked) {
        running += ranked_kernel.kernel->total_ns;
        ranked_kernel.share = plan.total_ns > 0 ? ranked_kernel.kernel->total_ns / plan.total_ns : 0.0;
        ranked_kernel.cumulative = plan.total_ns > 0 ? running / plan.total_ns : 0.0;
    }
    if (options.cover) {
        plan.selected = plan.ranked.size();
        for (std::size_t i = 0; i < plan.ranked.size(); ++i)
            if (plan.ranked[i].cumulative >= *options.cover - 1e-12) {
                plan.selected = i + 1;
                break;
            }
    } else {
        plan.selected = std::min(options.top, plan.ranked.size());
    }
    for (std::size_t i = 0; i < plan.selected; ++i) {
        const auto& ranked_kernel = plan.ranked[i];
        triage_command command;
        command.rank = i + 1;
        command.kernel = ranked_kernel.kernel->name;
        // A plain name is matched by its function name; a template's, or one the summary shares, by the
        // words both demanglers write (portable_name_tokens): the trace's text itself would not match
        // ncu's (at::native:: as at::, "(anonymous namespace)" as "<unnamed>", T1 for parameter types).
        const std::string portable = ncu_name_regex(ranked_kernel.kernel->name);
        const bool by_function = !ranked_kernel.function.empty() && functions[ranked_kernel.function] == 1 &&
                                 (ranked_kernel.kernel->name.find('<') == std::string::npos || portable.empty());
        command.name_base = by_function ? "function" : "demangled";
        command.kernel_filter = "regex:" + (by_function        ? "^" + regex_escape(ranked_kernel.function) + "$"
                                            : portable.empty() ? "^" + regex_escape(ranked_kernel.kernel->name) + "$"
                                                               : portable);
        command.launch_skip = options.launch_skip.value_or(ranked_kernel.kernel->instances >= 2 ? 1 : 0);
        command.launch_count = options.launch_count;
        command.stem = triage_stem(command.rank, ranked_kernel.function.empty() ? "kernel" : ranked_kernel.function);
        command.profile = {"ncu",
                           "--kernel-name-base",
                           command.name_base,
                           "--kernel-name",
                           command.kernel_filter,
                           "--launch-skip",
                           std::to_string(command.launch_skip),
                           "-c",
                           std::to_string(command.launch_count)};
        if (options.section_folder.empty()) {
            command.profile.insert(command.profile.end(), {"--metrics", plan.metrics});
            for (const auto& section : plan.sections)
                command.profile.insert(command.profile.end(), {"--section", section});
        } else
            command.profile.insert(command.profile.end(),
                                   {"--section-folder", options.section_folder, "--section", "roofline"});
        command.profile.insert(command.profile.end(), {"-o", command.stem, options.app});
        for (std::size_t arg_index = 0; arg_index < command.profile.size(); ++arg_index) {
            const std::string& arg = command.profile[arg_index];
            std::string quoted = shell_quote(arg);
            if (arg_index + 1 == command.profile.size())
                quoted = arg;  // the application, as the user typed it
            else if (arg_index > 0 && command.profile[arg_index - 1] == "--metrics")
                quoted = "\"$METRICS\"";
            command.profile_shell += (arg_index ? " " : "") + quoted;
        }
        command.export_shell = "ncu -i " + command.stem + ".ncu-rep --csv --page raw > " + command.stem + ".csv";
        command.analyze_shell = "roofline analyze " + command.stem + ".csv -o " + command.stem + ".md";
        plan.commands.push_back(std::move(command));
    }
    return plan;
}

doc::document triage_document(const triage_plan& plan) {
    doc::document out;
    const auto& summary = *plan.summary;
    out.add_heading(1, doc::phrase("Triage of ").code(summary.file));
    out.add_paragraph(triage_plural(plan.ranked.size(), "kernel", "kernels") + ", " +
                      format_duration_ns(plan.total_ns) + " of GPU time (nsys " + summary.layout + ", header at line " +
                      std::to_string(summary.header_line) + "). Profile " + triage_selection(plan) + ".");
    doc::table_block tb{{"#", "share", "cumulative", "total time", "instances", "average", "kernel"}, {}};
    const std::size_t shown = std::min(plan.ranked.size(), plan.selected + triage_listed_beyond);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& ranked_kernel = plan.ranked[i];
        const double avg = ranked_kernel.kernel->instances > 0
                               ? ranked_kernel.kernel->total_ns / ranked_kernel.kernel->instances
                               : 0.0;
        tb.rows.push_back({std::to_string(i + 1) + (i < plan.selected ? " *" : ""), format_percent(ranked_kernel.share),
                           format_percent(ranked_kernel.cumulative), format_duration_ns(ranked_kernel.kernel->total_ns),
                           triage_count(ranked_kernel.kernel->instances), format_duration_ns(avg),
                           doc::phrase().code(ranked_kernel.kernel->name)});
    }
    out.add_table(std::move(tb));
    if (shown < plan.ranked.size())
        out.add_paragraph(triage_plural(plan.ranked.size() - shown, "more kernel", "more kernels") + ", " +
                          format_percent(1.0 - plan.ranked[shown - 1].cumulative) + " of GPU time, not listed.");
    out.add_paragraph(doc::phrase().code("*").words(": profiled below."));
    out.add_heading(2, "Profile them");
    out.add_paragraph(doc::phrase("Metric plan: ").append(triage_plan_text(plan)).words("."));
    out.add_list(triage_notes(plan));
    out.add_code("sh", triage_script(plan));
    return out;
}

std::string triage_markdown(const triage_plan& plan) { return doc::markdown(triage_document(plan)); }

std::string triage_html(const triage_plan& plan) { return doc::html_page(triage_document(plan)); }

std::string triage_terminal(const triage_plan& plan) {
    std::ostringstream out;
    const auto& summary = *plan.summary;
    out << summary.file << ": " << triage_plural(plan.ranked.size(), "kernel", "kernels") << ", "
        << format_duration_ns(plan.total_ns) << " of GPU time (nsys " << summary.layout << ")\n\n";
    // A star marks the kernels the script profiles.
    table rows({{"", align::left, 2, false, 1},
                {"#", align::right, 2, false, 0},
                {"share", align::right, 8, false, 0},
                {"cumul.", align::right, 8, false, 0},
                {"total time", align::right, 12, false, 0},
                {"instances", align::right, 11, false, 0},
                {"kernel"}});
    const std::size_t shown = std::min(plan.ranked.size(), plan.selected + triage_listed_beyond);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& ranked_kernel = plan.ranked[i];
        rows.row({i < plan.selected ? "*" : "", std::to_string(i + 1), format_percent(ranked_kernel.share),
                  format_percent(ranked_kernel.cumulative), format_duration_ns(ranked_kernel.kernel->total_ns),
                  triage_count(ranked_kernel.kernel->instances), printable(short_name(ranked_kernel.kernel->name))});
    }
    out << rows.text();
    if (shown < plan.ranked.size())
        out << "   (" << triage_plural(plan.ranked.size() - shown, "more kernel", "more kernels") << ")\n";
    out << "\nProfile " << triage_selection(plan) << ", one ncu run each.\n\n" << triage_script(plan);
    return out.str();
}

std::string triage_json(const triage_plan& plan) {
    using ojson = nlohmann::ordered_json;
    auto share = [](double value) { return triage_rounded(value, 6); };
    ojson out;
    out["file"] = plan.summary->file;
    out["layout"] = plan.summary->layout;
    out["total_ns"] = triage_rounded(plan.total_ns, 15);
    out["selection"] = {{"by", plan.cover ? "cover" : "top"},
                        {"cover", plan.cover ? ojson(share(*plan.cover)) : ojson(nullptr)},
                        {"kernels", plan.selected}};
    ojson kernels = ojson::array();
    for (std::size_t i = 0; i < plan.ranked.size(); ++i) {
        const auto& ranked_kernel = plan.ranked[i];
        kernels.push_back({{"rank", i + 1},
                           {"name", ranked_kernel.kernel->name},
                           {"function", ranked_kernel.function},
                           {"total_ns", triage_rounded(ranked_kernel.kernel->total_ns, 15)},
                           {"instances", triage_rounded(ranked_kernel.kernel->instances, 15)},
                           {"share", share(ranked_kernel.share)},
                           {"cumulative", share(ranked_kernel.cumulative)},
                           {"profiled", i < plan.selected},
                           {"line", ranked_kernel.kernel->line}});
    }
    out["kernels"] = kernels;
    out["metrics"] = {{"count", plan.metric_count},
                      {"required", plan.required_count},
                      {"list", plan.metrics},
                      {"section_only", plan.section_only}};
    ojson commands = ojson::array();
    for (const auto& command : plan.commands)
        commands.push_back({{"rank", command.rank},
                            {"kernel", command.kernel},
                            {"kernel_name_base", command.name_base},
                            {"kernel_name", command.kernel_filter},
                            {"launch_skip", command.launch_skip},
                            {"launch_count", command.launch_count},
                            {"profile", command.profile},
                            {"profile_shell", command.profile_shell},
                            {"export_shell", command.export_shell},
                            {"analyze_shell", command.analyze_shell}});
    out["commands"] = commands;
    out["notes"] = ojson::array();
    for (const auto& note : triage_notes(plan)) out["notes"].push_back(doc::markdown(note));
    return json_text(out);
}

}  // namespace roofline
