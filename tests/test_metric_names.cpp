// Every counter name the catalogue gives for a chip is in that chip's own `ncu --query-metrics --chip`
// listing (tests/data/ncu_metric_names/, copied from Nsight Compute 2025.3.1), and every quantity it
// says a chip lacks is absent from it. Then the reader: a real H100 capture translated into another
// chip's names gives the same answers, and one without its DRAM columns says what it cannot decide.
// The device machine has H100/H200 only: the other chips' captures here are real H100 captures whose
// columns are renamed to those chips' names (translated_to() below), not captures of those chips.
#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/diagnose/diagnose.hpp"
#include "analyzer/read/chip_names.hpp"
#include "analyzer/report/text.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>

using namespace roofline;
using namespace roofline::test;

namespace {

// The base names of one listing: every line but the comments.
const std::set<std::string>& listing(const chip& c) {
    static std::map<std::string, std::set<std::string>> cache;
    auto& names = cache[c.listing];
    if (names.empty()) {
        std::istringstream in(read_text(source_path("tests/data/ncu_metric_names/" + c.listing + ".txt")));
        for (std::string line; std::getline(in, line);)
            if (!line.empty() && line[0] != '#') names.insert(line);
    }
    return names;
}

// "dram__bytes_read.sum.per_second" -> "dram__bytes_read": ncu lists base names; rollups and
// submetrics follow from the metric's type.
std::string base_of(const std::string& id) { return id.substr(0, id.find('.')); }

bool listed(const chip& c, const std::string& id) { return listing(c).count(base_of(id)) == 1; }

// One CSV line of ncu's raw page: every field is quoted.
std::vector<std::string> cells_of(const std::string& line) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < line.size();) {
        const std::size_t open = line.find('"', i), close = line.find('"', open + 1);
        if (open == std::string::npos || close == std::string::npos) break;
        out.push_back(line.substr(open + 1, close - open - 1));
        i = close + 1;
    }
    return out;
}

std::string line_of(const std::vector<std::string>& cells) {
    std::string s;
    for (const auto& c : cells) s += (s.empty() ? "\"" : ",\"") + c + "\"";
    return s + "\n";
}

// A raw page as rows of cells: the header, the units, one row per launch.
using table_rows = std::vector<std::vector<std::string>>;

table_rows rows_of(const std::string& rel) {
    std::istringstream in(read_text(source_path(rel)));
    table_rows rows;
    for (std::string line; std::getline(in, line);) rows.push_back(cells_of(line));
    return rows;
}

std::string text_of(const table_rows& rows) {
    std::string s;
    for (const auto& r : rows) s += line_of(r);
    return s;
}

std::size_t column(const table_rows& rows, const std::string& header) {
    // A header the listing lacks is an error, not the index one past the last column.
    if (rows.empty()) throw std::runtime_error("no rows to find \"" + header + "\" in");
    const auto& h = rows.front();
    const auto at = std::find(h.begin(), h.end(), header);
    if (at == h.end()) throw std::runtime_error("no column \"" + header + "\"");
    return std::size_t(at - h.begin());
}

void drop_column(table_rows& rows, const std::string& header) {
    const std::size_t at = column(rows, header);
    if (at == rows.front().size()) return;
    for (auto& r : rows) r.erase(r.begin() + long(at));
}

// A raw page with its columns changed: `rename` maps a header to its new name ("" drops the column),
// `cc` replaces the CC column.
std::string edited(const std::string& rel, const std::map<std::string, std::string>& rename,
                   const std::string& cc = "") {
    table_rows rows = rows_of(rel);
    for (const auto& [from, to] : rename) {
        if (to.empty())
            drop_column(rows, from);
        else if (std::size_t at = column(rows, from); at < rows.front().size())
            rows.front()[at] = to;
    }
    if (!cc.empty())
        for (std::size_t i = 2; i < rows.size(); ++i) rows[i][column(rows, "CC")] = cc;
    return text_of(rows);
}

// A number cell as ncu writes it with grouping ("2,112"), plain.
double cell_value(std::string cell) {
    cell.erase(std::remove(cell.begin(), cell.end(), ','), cell.end());
    return std::stod(cell);
}

// An H100 raw page as chip `c` would name its quantities: each quantity's value (the sum of the
// H100's counters of it) under the chip's first counter of it, 0 under its others; a quantity the chip
// has no unit or no counter for dropped (the reader makes the first 0 and leaves the second unknown).
std::string translated_to(const std::string& rel, const chip& c) {
    table_rows rows = rows_of(rel);
    const chip& h100 = *find_chip("gh100");
    for (const auto& m : metric_catalogue()) {
        if (m.kind == metric_kind::derived) continue;  // read from base counters every chip names alike
        const auto from = names_on(m, &h100), to = names_on(m, &c);
        if (from == to) continue;
        if (from.empty()) {
            // A unit the H100 lacks (FP4 tensor cores): 0 of it, under the chip's own counters.
            if (m.form_on(&h100).what == chip_form::kind::zero)
                for (const auto& n : to) {
                    rows[0].push_back(n);
                    rows[1].push_back("");
                    for (std::size_t r = 2; r < rows.size(); ++r) rows[r].push_back("0");
                }
            continue;
        }
        std::vector<std::size_t> at;
        for (const auto& n : from) at.push_back(column(rows, n));
        if (std::any_of(at.begin(), at.end(), [&](std::size_t i) { return i == rows.front().size(); })) continue;
        std::vector<std::string> values;
        for (std::size_t r = 2; r < rows.size(); ++r) {
            double v = 0.0;
            for (std::size_t i : at) v += cell_value(rows[r][i]);
            values.push_back(std::to_string(v));
        }
        const std::string unit = rows[1][at.front()];
        for (const auto& n : from) drop_column(rows, n);
        for (std::size_t j = 0; j < to.size(); ++j) {
            rows[0].push_back(to[j]);
            rows[1].push_back(unit);
            for (std::size_t r = 2; r < rows.size(); ++r) rows[r].push_back(j == 0 ? values[r - 2] : "0");
        }
    }
    for (std::size_t i = 2; i < rows.size(); ++i) rows[i][column(rows, "CC")] = c.compute_capabilities.front();
    return text_of(rows);
}

analysis analyzed(const std::string& text, const std::string& name, const std::string& gpu = "") {
    analyze_options o;
    o.gpu = gpu;
    o.gpu_override = !gpu.empty();
    std::istringstream in(text);
    return analyze(in, name, o);
}

std::string first_finding(const analysed_kernel& k) {
    return k.diagnosis.findings.empty() ? "" : std::string(k.diagnosis.findings.front().id);
}

}  // namespace

TEST_CASE("the listings are ncu's: each chip's own names, the catalogue's chips each with one") {
    REQUIRE(chips().size() == 6);
    for (const auto& c : chips()) {
        CAPTURE(c.id);
        CHECK(listing(c).size() > 2900);
        CHECK(chip_for_cc(c.compute_capabilities.front()) == &c);
    }
    // The facts the catalogue rests on, read off the listings themselves.
    CHECK(listed(*find_chip("gh100"), "dram__bytes_read.sum"));
    CHECK_FALSE(listed(*find_chip("gb20x"), "dram__bytes_read.sum"));
    CHECK(listed(*find_chip("gb20x"), "dram__bytes_op_read.sum"));
    for (const char* id : {"ga100", "ga10x", "ad10x", "gb10x", "gb20x"})
        CHECK_FALSE(listed(*find_chip(id), "sm__inst_executed_pipe_tensor_op_gmma"));  // wgmma is Hopper's alone
    CHECK(listed(*find_chip("gb10x"), "sm__ops_path_tensor_op_utcqmma_src_fp4_fp6_fp8_dst_fp32"));
    CHECK(chip_for_cc("7.5") == nullptr);  // Turing: no listing, no names
}

TEST_CASE("every name the catalogue gives a chip is in its listing, and every quantity it says a chip lacks is not") {
    std::size_t checked = 0;
    for (const auto& c : chips()) {
        for (const auto& m : metric_catalogue()) {
            CAPTURE(c.id);
            CAPTURE(m.id);
            // Launch and device attributes and ncu's occupancy calculator are no counters: ncu does not
            // list them, and writes them for every chip (the raw page of examples/h100 holds them all).
            if (m.kind == metric_kind::attribute) continue;
            const chip_form& f = m.form_on(&c);
            switch (f.what) {
                case chip_form::kind::same:
                    // A derived__ metric the SourceCounters section defines from SASS-level source metrics: no counter.
                    if (!m.source) CHECK(listed(c, m.id));
                    break;
                case chip_form::kind::counters:
                    for (const auto& n : f.counters) CHECK_MESSAGE(listed(c, n), n);
                    break;
                case chip_form::kind::zero:
                case chip_form::kind::none:
                    CHECK_FALSE(listed(c, m.id));
                    CHECK_FALSE(f.why.empty());
                    break;
            }
            ++checked;
        }
        for (const auto& fam : metric_families()) {
            const auto& members = fam.members.at(c.id);
            // Chips without MMA instruction paths (Ampere, Ada) have none of the per-path op counters.
            if (fam.suffix != "_sparsity_off.sum" || c.arch_number() >= 90) CHECK_FALSE(members.empty());
            for (const auto& id : members) {
                CHECK(fam.matches(id));
                CHECK_MESSAGE(listed(c, id), id);
            }
        }
    }
    CHECK(checked > 800);
}

TEST_CASE("roofline metrics --gpu ID names only metrics that chip's ncu lists, for the GPUs the design card names") {
    for (const char* gpu :
         {"h100-sxm", "b200", "rtx-5090", "a100-sxm4-80gb", "rtx-4090", "l40s", "a10g", "h200", "l4"}) {
        CAPTURE(gpu);
        const auto plan = diagnose::make_metric_plan_for(gpu);
        const chip& c = *plan.for_chip;
        auto out = run_cli({"metrics", "--gpu", gpu});
        REQUIRE(out.rc == 0);
        std::string line = out.out.substr(0, out.out.find('\n'));
        std::size_t names = 0;
        for (std::size_t at = 0; at <= line.size();) {
            const std::size_t comma = std::min(line.find(',', at), line.size());
            const std::string id = line.substr(at, comma - at);
            ++names;
            const metric_entry* m = find_metric(id);
            // Attributes are listed by no chip; every counter is this chip's.
            if (!(m && m->kind == metric_kind::attribute)) CHECK_MESSAGE(listed(c, id), id);
            at = comma + 1;
        }
        CHECK(names == plan.ncu_names().size());
    }
}

TEST_CASE(
    "a real H100 capture in another chip's names gives the same answers, or says which quantity that chip cannot "
    "count") {
    const auto original = analyze_file(source_path("examples/h100/kernels_raw.csv"), {});
    for (const auto& c : chips()) {
        CAPTURE(c.id);
        // The H100's numbers under this chip's names and compute capability, read against the H100's spec.
        const auto a = analyzed(translated_to("examples/h100/kernels_raw.csv", c), "translated.csv", "h100-sxm");
        REQUIRE(a.kernels.size() == original.kernels.size());
        for (std::size_t i = 0; i < a.kernels.size(); ++i) {
            const auto& k = a.kernels[i];
            const auto& o = original.kernels[i];
            CAPTURE(o.group.name);
            REQUIRE(k.group.name == o.group.name);
            CHECK(k.group.cc == c.compute_capabilities.front());
            if (k.diagnosis.undecided.empty()) {
                CHECK(verdict_text(k.verdict) == verdict_text(o.verdict));
                CHECK(first_finding(k) == first_finding(o));
                CHECK(k.roof.duration_ns == o.roof.duration_ns);
                CHECK(k.roof.bytes_dram == o.roof.bytes_dram);
            } else {
                // What it cannot decide rests on quantities this chip has no counter for.
                for (const auto& id : k.diagnosis.missing_metrics) {
                    const metric_entry* m = find_metric(id);
                    REQUIRE(m);
                    CHECK_MESSAGE(m->form_on(&c).what == chip_form::kind::none, id);
                }
            }
        }
    }
}

TEST_CASE(
    "GB20x's DRAM names: renamed columns give the same findings, removed ones flag every kernel whose answer they "
    "change") {
    const auto original = analyze_file(source_path("examples/h100/kernels_raw.csv"), {});
    // dram__bytes_read/_write are dram__bytes_op_read/_write on GB202 (rtx5090-gb202 listing). Only those
    // columns are renamed (the full translation, CC included, is the test above).
    const std::map<std::string, std::string> renamed = {{"dram__bytes_read.sum", "dram__bytes_op_read.sum"},
                                                        {"dram__bytes_write.sum", "dram__bytes_op_write.sum"}};
    const auto gb = analyzed(edited("examples/h100/kernels_raw.csv", renamed), "gb202-names.csv");
    REQUIRE(gb.kernels.size() == original.kernels.size());
    for (std::size_t i = 0; i < gb.kernels.size(); ++i) {
        CAPTURE(original.kernels[i].group.name);
        CHECK(gb.kernels[i].roof.bytes_dram_read == original.kernels[i].roof.bytes_dram_read);
        CHECK(verdict_text(gb.kernels[i].verdict) == verdict_text(original.kernels[i].verdict));
        CHECK(first_finding(gb.kernels[i]) == first_finding(original.kernels[i]));
        CHECK(gb.kernels[i].diagnosis.undecided.empty());
    }
    // Without them (and without every other form of the DRAM traffic), every kernel whose verdict or
    // first finding could rest on DRAM says so and names what it lacks.
    std::map<std::string, std::string> dropped;
    const table_rows rows = rows_of("examples/h100/kernels_raw.csv");
    for (const auto& h : rows.front())
        if (h.rfind("dram__bytes", 0) == 0 || h.rfind("gpu__dram_throughput", 0) == 0) dropped[h] = "";
    REQUIRE(dropped.size() >= 4);
    const auto none = analyzed(edited("examples/h100/kernels_raw.csv", dropped), "no-dram.csv");
    std::size_t flagged = 0;
    for (std::size_t i = 0; i < none.kernels.size(); ++i) {
        const auto& k = none.kernels[i];
        const auto& o = original.kernels[i];
        CAPTURE(o.group.name);
        const bool same = verdict_text(k.verdict) == verdict_text(o.verdict) && first_finding(k) == first_finding(o);
        const bool said = !k.diagnosis.undecided.empty() &&
                          std::find(k.diagnosis.missing_metrics.begin(), k.diagnosis.missing_metrics.end(),
                                    "dram__bytes_read.sum") != k.diagnosis.missing_metrics.end();
        CHECK((same || said));
        flagged += said ? 1 : 0;
        // The command names GB20x's counters, not Hopper's.
        if (said)
            CHECK(diagnose::ncu_flags_for(k.diagnosis.missing_metrics, find_chip("gb20x"))
                      .text()
                      .find("dram__bytes_op_read.sum") != std::string::npos);
    }
    // copy_vec4 and transpose_smem run at DRAM's roof: without DRAM counters their verdict is open.
    CHECK(flagged >= 2);
}

TEST_CASE(
    "Blackwell: tensor work on the legacy mma.sync path where tcgen05 is faster is named (a renamed H100 capture)") {
    // The H100 pairs capture in GB100's names, with Hopper's wgmma paths (HGMMA, IGMMA) renamed to
    // Blackwell's tcgen05 paths (UTCHMMA, UTCIMMA): mma.sync's HMMA stays the slower path of its type, as
    // on a B200. Not a B200 capture: the device machine has H100/H200 only.
    std::string text = translated_to("examples/h100/pairs_raw.csv", *find_chip("gb10x"));
    const std::size_t header_end = text.find('\n');
    std::string header = text.substr(0, header_end);
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"sm__ops_path_tensor_op_hgmma_", "sm__ops_path_tensor_op_utchmma_"},
             {"sm__ops_path_tensor_op_igmma_", "sm__ops_path_tensor_op_utcimma_"}})
        for (std::size_t at = header.find(from); at != std::string::npos; at = header.find(from, at + to.size()))
            header.replace(at, from.size(), to);
    text = header + text.substr(header_end);
    const auto a = analyzed(text, "pairs-as-gb100.csv", "h100-sxm");
    auto share = [&](const char* kernel) -> std::optional<double> {
        for (const auto& k : a.kernels)
            if (k.group.name.find(kernel) != std::string::npos)
                for (const auto& f : k.diagnosis.findings)
                    for (const auto& e : f.evidence)
                        if (e.expression == pooled_string("slow_mma_path_share")) return e.value();
        return std::nullopt;
    };
    auto fix_named = [&](const char* kernel) {
        for (const auto& k : a.kernels)
            if (k.group.name.find(kernel) != std::string::npos)
                for (const auto& f : k.diagnosis.findings)
                    for (const auto& x : f.fixes)
                        if (x.str().find("tcgen05") != std::string::npos) return true;
        return false;
    };
    CHECK(share("wmma_staged") == 1.0);  // all of its ops on HMMA
    CHECK(fix_named("wmma_staged"));
    CHECK(share("wmma_global") == 1.0);
    CHECK_FALSE(fix_named("wgmma_tma"));  // its ops on the fastest path: no such advice
    for (const auto& k : a.kernels) CHECK(k.group.cc == "10.0");
}

TEST_CASE("a roof from an estimated spec figure says so in the resource table, the header, the terminal and the JSON") {
    // The H100 kernels capture without its HFMA peak counter, read against the H200's spec, whose FP16
    // CUDA-core figure is derived (2 x FP32), not published: fma_chain<__half2>'s fp16 roof is that figure.
    const auto text = edited("examples/h100/kernels_raw.csv",
                             {{"sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", ""}});
    const auto a = analyzed(text, "no-hfma-peak.csv", "h200");
    const resource_use* fp16 = nullptr;
    for (const auto& k : a.kernels)
        if (k.group.name.find("fma_chain<__half2>") != std::string::npos) fp16 = k.roof.find(resource::fp16);
    REQUIRE(fp16 != nullptr);
    CHECK(fp16->peak_estimated);
    CHECK(fp16->peak_from.figure->estimated);
    CHECK(peak_source_text(fp16->peak_from).rfind("ESTIMATED", 0) == 0);
    const auto path = temp_path("no-hfma-peak.csv");
    std::ofstream(path) << text;
    const auto md = run_cli({"analyze", path.string(), "--gpu", "h200", "--gpu-override", "--format", "markdown"}).out;
    CHECK(md.find("- Estimated roofs: fp16 come from spec figures that are neither published") != std::string::npos);
    CHECK(md.find(" (estimated) |") != std::string::npos);
    const auto term =
        run_cli({"analyze", path.string(), "--gpu", "h200", "--gpu-override", "--format", "terminal"}).out;
    CHECK(term.find("* the roof is an estimated spec figure (fp16 on NVIDIA H200") != std::string::npos);
    const auto js = run_cli({"analyze", path.string(), "--gpu", "h200", "--gpu-override", "--format", "json"}).out;
    CHECK(js.find("\"peak_estimated\": true") != std::string::npos);
    std::filesystem::remove(path);
    // With the capture's own peak the measured one is used: no estimate.
    for (const auto& k : analyze_file(source_path("examples/h100/kernels_raw.csv"), {}).kernels)
        for (const auto& r : k.roof.resources) CHECK_FALSE(r.peak_estimated);
}
