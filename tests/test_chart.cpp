// The SVG roofline chart: parsed as XML, every kernel point checked to the pixel against the
// model's numbers, every ceiling against the model's peaks, and nothing drawn above its roof.
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/report/chart_svg.hpp"
#include "analyzer/report/report.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

using namespace roofline;
using namespace roofline::test;
namespace pt = boost::property_tree;

namespace {

struct parsed_chart {
    double left, top, width, height, x_min, x_max, y_min, y_max;
    std::vector<pt::ptree> kernels, ceilings, levels;
};

void collect(const pt::ptree& node, parsed_chart& c) {
    for (const auto& [tag, child] : node) {
        if (tag == "circle" || tag == "polyline") {
            const std::string cls = child.get("<xmlattr>.class", "");
            if (cls == "kernel") c.kernels.push_back(child);
            if (cls == "ceiling") c.ceilings.push_back(child);
            if (cls == "level") c.levels.push_back(child);
        }
        if (tag != "<xmlattr>") collect(child, c);
    }
}

parsed_chart parse_chart(const std::string& svg) {
    std::istringstream in(svg);
    pt::ptree tree;
    pt::read_xml(in, tree);  // throws on anything that is not well-formed XML
    const auto& root = tree.get_child("svg");
    parsed_chart c;
    c.left = root.get<double>("<xmlattr>.data-plot-left");
    c.top = root.get<double>("<xmlattr>.data-plot-top");
    c.width = root.get<double>("<xmlattr>.data-plot-width");
    c.height = root.get<double>("<xmlattr>.data-plot-height");
    std::istringstream xs(root.get<std::string>("<xmlattr>.data-x-decades")), ys(root.get<std::string>("<xmlattr>.data-y-decades"));
    xs >> c.x_min >> c.x_max;
    ys >> c.y_min >> c.y_max;
    collect(root, c);
    return c;
}

const analysed_kernel& by_short_name(const analysis& a, const std::string& name) {
    for (const auto& k : a.kernels)
        if (short_name(k.group.name) == name) return k;
    throw std::runtime_error("no kernel " + name);
}

}  // namespace

TEST_CASE("the chart of each real capture places every kernel where the model puts it, under its roofs") {
    for (const char* capture : {"examples/h100/kernels_raw.csv", "examples/h100/pairs_raw.csv", "examples/h200/pairs_raw.csv",
                                "examples/h100/torch_ops_raw.csv"}) {
        CAPTURE(capture);
        auto a = analyze_example(capture);
        const std::string svg = render_chart_svg(a, build_chart(a));
        CHECK(svg == render_chart_svg(a, build_chart(a)));  // same analysis, same bytes
        auto c = parse_chart(svg);
        REQUIRE(c.kernels.size() >= 3);
        auto px = [&](double v) { return c.left + (std::log10(v) - c.x_min) / (c.x_max - c.x_min) * c.width; };
        auto py = [&](double v) { return c.top + c.height * (1.0 - (std::log10(v) - c.y_min) / (c.y_max - c.y_min)); };

        // The highest peak of each resource over the kernels, straight from the model.
        std::map<std::string, double> peaks;
        for (const auto& k : a.kernels)
            for (const auto& r : k.roof.resources)
                if ((roofline::info(r.id).precision || r.id == roofline::resource::dram) && r.peak > 0)
                    peaks[name(r.id)] = std::max(peaks[name(r.id)], r.peak);
        // L2 and L1: ncu's peak bytes per cycle x the level's clock.
        for (const auto& k : a.kernels) {
            const auto& n = k.group.numbers;
            peaks["l2"] =
                std::max(peaks["l2"], n.at("derived__lts__lts2xbar_bytes.sum.peak_sustained") * n.at("lts__cycles_elapsed.avg.per_second"));
            peaks["l1"] = std::max(peaks["l1"], n.at("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained") *
                                                    n.at("l1tex__cycles_elapsed.avg.per_second"));
        }
        std::set<std::string> drawn_ceilings;
        for (const auto& ce : c.ceilings) drawn_ceilings.insert(ce.get<std::string>("<xmlattr>.data-id"));
        CHECK(drawn_ceilings.count("l2"));
        CHECK(drawn_ceilings.count("l1"));
        for (const auto& ce : c.ceilings) {
            const std::string id = ce.get<std::string>("<xmlattr>.data-id");
            CAPTURE(id);
            CHECK(ce.get<double>("<xmlattr>.data-peak") == doctest::Approx(peaks.at(id)).epsilon(1e-5));
        }
        CHECK(svg.find("DRAM ") != std::string::npos);

        std::size_t drawn = 0;
        for (const auto& p : c.kernels) {
            const std::string name = p.get<std::string>("<xmlattr>.data-kernel");
            CAPTURE(name);
            const analysed_kernel& k = by_short_name(a, name);
            const resource_use* dom = k.roof.find(resource_named(p.get<std::string>("<xmlattr>.data-precision")).value());
            REQUIRE(dom);
            for (const auto& r : k.roof.resources)
                if (roofline::info(r.id).precision) CHECK(r.work <= dom->work);  // the dominant precision does the most work
            const double ai = dom->work / *k.roof.bytes_dram, rate = dom->work / (k.roof.duration_ns * 1e-9);
            CHECK(std::abs(p.get<double>("<xmlattr>.cx") - px(ai)) <= 0.01);
            CHECK(std::abs(p.get<double>("<xmlattr>.cy") - py(rate)) <= 0.01);
            // Area proportional to the share of time (radius floored at 2.5 px to stay visible).
            CHECK(p.get<double>("<xmlattr>.r") == doctest::Approx(std::max(2.5, 22.0 * std::sqrt(k.share))).epsilon(0.002));
            // Nothing above its roof: under the DRAM slope and under its precision's ceiling.
            const double roof = std::min(peaks.at("dram") * ai, peaks.at(roofline::name(dom->id)));
            CHECK(p.get<double>("<xmlattr>.cy") >= py(roof) - 0.01);
            ++drawn;
        }
        // Every kernel is either drawn or listed as not drawn.
        std::size_t listed = 0;
        for (const auto& k : a.kernels) {
            bool flops = false;
            for (const auto& r : k.roof.resources) flops |= roofline::info(r.id).precision && r.work > 0;
            listed += flops && k.roof.bytes_dram && *k.roof.bytes_dram > 0 ? 0 : 1;
        }
        CHECK(drawn + listed == a.kernels.size());
        // The hierarchical view: L2 and L1 marks on the kernel's row.
        CHECK(!c.levels.empty());
        for (const auto& l : c.levels) {
            const analysed_kernel& k = by_short_name(a, l.get<std::string>("<xmlattr>.data-kernel"));
            const std::string level = l.get<std::string>("<xmlattr>.data-level");
            const resource_use* dom = nullptr;
            for (const auto& r : k.roof.resources)
                if (roofline::info(r.id).precision && r.work > 0 && (!dom || r.work > dom->work)) dom = &r;
            const double bytes = level == "l2" ? *k.roof.bytes_l2 : *k.roof.bytes_l1;
            CHECK(std::abs(l.get<double>("<xmlattr>.cx") - px(dom->work / bytes)) <= 0.01);
            CHECK(std::abs(l.get<double>("<xmlattr>.cy") - py(dom->work / (k.roof.duration_ns * 1e-9))) <= 0.01);
            // Under its own level's slope: the level's bytes per second stay under its peak.
            CHECK(l.get<double>("<xmlattr>.cy") >= py(peaks.at(level) * dom->work / bytes) - 0.01);
        }
    }
}

TEST_CASE("the chart names the ridge point of each precision") {
    auto a = analyze_example("examples/h100/kernels_raw.csv");
    auto chart = build_chart(a);
    REQUIRE(chart.ceilings.front().id == roofline::resource::dram);
    for (std::size_t i = 1; i < chart.ceilings.size(); ++i) {
        const auto& ce = chart.ceilings[i];
        if (ce.id == roofline::resource::l2 || ce.id == roofline::resource::l1) continue;  // memory slopes: no ridge against DRAM
        char exact[64], label[64];
        std::snprintf(exact, sizeof exact, "%.6g", ce.peak / chart.ceilings.front().peak);
        std::snprintf(label, sizeof label, "%.3g", ce.peak / chart.ceilings.front().peak);
        const std::string svg = render_chart_svg(a, chart);
        CHECK(svg.find("class=\"ridge\" data-id=\"" + std::string(name(ce.id)) + "\" data-intensity=\"" + exact + "\"") !=
              std::string::npos);
        CHECK(svg.find(std::string("ridge ") + label + " FLOP/B") != std::string::npos);
    }
}

TEST_CASE("an export without FLOP counters (the details page) gets an instruction chart, every kernel on it") {
    auto a = analyze_example("examples/h100/kernels_details.csv");
    auto chart = build_chart(a);
    CHECK(chart.kind == chart_kind::instructions);
    CHECK(chart.points.size() == a.kernels.size());
    auto c = parse_chart(render_chart_svg(a, chart));
    REQUIRE(c.kernels.size() == a.kernels.size());
    auto py = [&](double v) { return c.top + c.height * (1.0 - (std::log10(v) - c.y_min) / (c.y_max - c.y_min)); };
    double issue = 0, dram = 0;
    for (const auto& ce : c.ceilings) {
        if (ce.get<std::string>("<xmlattr>.data-id") == "issue") issue = ce.get<double>("<xmlattr>.data-peak");
    }
    for (const auto& ce : chart.ceilings)
        if (ce.id == roofline::resource::dram) dram = ce.peak;
    // 4 warp instructions per clock per SM, at the highest SM clock of the capture.
    double clock = 0;
    for (const auto& k : a.kernels) clock = std::max(clock, k.roof.sm_clock_hz);
    CHECK(issue == doctest::Approx(4.0 * 132 * clock).epsilon(1e-5));
    for (const auto& p : c.kernels) {
        const auto& k = by_short_name(a, p.get<std::string>("<xmlattr>.data-kernel"));
        const double inst = k.group.numbers.at("smsp__inst_executed.sum");
        const double ai = inst / *k.roof.bytes_dram, rate = inst / (k.roof.duration_ns * 1e-9);
        CHECK(p.get<double>("<xmlattr>.data-intensity") == doctest::Approx(ai).epsilon(1e-5));
        CHECK(p.get<double>("<xmlattr>.cy") >= py(std::min(dram * ai, issue)) - 0.01);  // under both roofs
        CHECK(std::abs(p.get<double>("<xmlattr>.cy") - py(rate)) <= 0.01);
    }
}
