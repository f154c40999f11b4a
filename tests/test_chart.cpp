// The SVG roofline chart: parsed as XML, every kernel point checked to the pixel against the
// model's numbers, every ceiling against the model's peaks, and nothing drawn above its roof.
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/report/chart_labels.hpp"
#include "analyzer/report/chart_svg.hpp"
#include "analyzer/report/report.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

using namespace roofline;
using namespace roofline::test;
namespace pt = boost::property_tree;

namespace {

struct panel {
    double left = 0, top = 0, width = 0, height = 0, x_min = 0, x_max = 0, y_min = 0, y_max = 0;
    double px(double v) const { return left + (std::log10(v) - x_min) / (x_max - x_min) * width; }
    double py(double v) const { return top + height * (1.0 - (std::log10(v) - y_min) / (y_max - y_min)); }
};

// One line of text as drawn: where it starts and ends by the chart's own width estimate.
struct text_line {
    std::string text, cls;
    double x0, x1, y0, y1;
    bool rotated;
};

struct parsed_chart {
    double width = 0, height = 0;
    std::map<std::string, panel> panels;  // "roofline", "memory"
    std::vector<pt::ptree> kernels, ceilings, levels, labels, legend;
    std::vector<text_line> texts;
    std::set<std::size_t> unlabelled, not_drawn;
};

panel read_panel(const pt::ptree& g) {
    panel p;
    p.left = g.get<double>("<xmlattr>.data-plot-left");
    p.top = g.get<double>("<xmlattr>.data-plot-top");
    p.width = g.get<double>("<xmlattr>.data-plot-width");
    p.height = g.get<double>("<xmlattr>.data-plot-height");
    std::istringstream xs(g.get<std::string>("<xmlattr>.data-x-decades")),
        ys(g.get<std::string>("<xmlattr>.data-y-decades"));
    xs >> p.x_min >> p.x_max;
    ys >> p.y_min >> p.y_max;
    return p;
}

// The box of a line of text drawn at (x, y), turned by `degrees` about that point (SVG's
// translate(x,y) rotate(degrees)), by the chart's width estimate: ascent 0.8, descent 0.25 of the size.
void text_extent(parsed_chart& c, const pt::ptree& t, const std::string& content, double x, double y, double size,
                 bool bold, const std::string& anchor, double degrees) {
    const double w = text_width(content, size, bold);
    const double u0 = anchor == "middle" ? -w / 2 : anchor == "end" ? -w : 0.0, u1 = u0 + w;
    const double a = degrees * 3.14159265358979 / 180.0, cs = std::cos(a), sn = std::sin(a);
    text_line l{content, t.get("<xmlattr>.class", ""), 1e300, -1e300, 1e300, -1e300, degrees != 0};
    for (double u : {u0, u1})
        for (double v : {-0.8 * size, 0.25 * size}) {
            const double px = x + u * cs - v * sn, py = y + u * sn + v * cs;
            l.x0 = std::min(l.x0, px), l.x1 = std::max(l.x1, px), l.y0 = std::min(l.y0, py), l.y1 = std::max(l.y1, py);
        }
    c.texts.push_back(l);
}

void collect(const pt::ptree& node, parsed_chart& c, double size, bool bold) {
    for (const auto& [tag, child] : node) {
        if (tag == "<xmlattr>") continue;
        const double my_size = child.get("<xmlattr>.font-size", size);
        const bool my_bold = child.get("<xmlattr>.font-weight", bold ? std::string("bold") : std::string()) == "bold";
        const std::string cls = child.get("<xmlattr>.class", "");
        if (tag == "g" && cls == "panel") c.panels[child.get<std::string>("<xmlattr>.data-panel")] = read_panel(child);
        if (tag == "g" && cls == "caption") {
            std::istringstream in(child.get("<xmlattr>.data-unlabelled", "")),
                out(child.get("<xmlattr>.data-not-drawn", ""));
            for (std::size_t n; in >> n;) c.unlabelled.insert(n);
            for (std::size_t n; out >> n;) c.not_drawn.insert(n);
        }
        if (tag == "circle" || tag == "polyline" || tag == "line") {
            if (cls == "kernel") c.kernels.push_back(child);
            if (cls == "ceiling") c.ceilings.push_back(child);
            if (cls == "level") c.levels.push_back(child);
            if (cls == "legend-entry") c.legend.push_back(child);
        }
        if (tag == "text") {
            if (cls == "label") c.labels.push_back(child);
            const std::string transform = child.get("<xmlattr>.transform", "");
            double x = child.get("<xmlattr>.x", 0.0), y = child.get("<xmlattr>.y", 0.0), degrees = 0;
            if (!transform.empty())
                CHECK(std::sscanf(transform.c_str(), "translate(%lf,%lf) rotate(%lf)", &x, &y, &degrees) == 3);
            const std::string anchor = child.get("<xmlattr>.text-anchor", "start");
            text_extent(c, child, child.data(), x, y, my_size, my_bold, anchor, degrees);
            for (const auto& [sub, span] : child)
                if (sub == "tspan")
                    text_extent(c, span, span.data(), span.get("<xmlattr>.x", x), y + span.get("<xmlattr>.dy", 0.0),
                                my_size, my_bold, anchor, degrees);
            continue;
        }
        collect(child, c, my_size, my_bold);
    }
}

parsed_chart parse_chart(const std::string& svg) {
    std::istringstream in(svg);
    pt::ptree tree;
    pt::read_xml(in, tree);  // throws on anything that is not well-formed XML
    const auto& root = tree.get_child("svg");
    parsed_chart c;
    c.width = root.get<double>("<xmlattr>.width");
    c.height = root.get<double>("<xmlattr>.height");
    CHECK(root.get<std::string>("<xmlattr>.viewBox") ==
          "0 0 " + root.get<std::string>("<xmlattr>.width") + " " + root.get<std::string>("<xmlattr>.height"));
    collect(root, c, root.get<double>("<xmlattr>.font-size"), false);
    return c;
}

const analysed_kernel& by_short_name(const analysis& a, const std::string& name) {
    for (const auto& k : a.kernels)
        if (short_name(k.group.name) == name) return k;
    throw std::runtime_error("no kernel " + name);
}

// N kernels from the committed H100 capture: its rows again and again, each copy's kernels
// renamed (copy_vec4_2, fma_chain_2<float>, ...) so each is a kernel of its own.
std::string repeated_kernels(std::size_t n) {
    std::istringstream in(read_text(source_path("examples/h100/kernels_raw.csv")));
    std::string head, units, line;
    std::getline(in, head), std::getline(in, units);
    std::vector<std::vector<std::string>> rows;
    std::map<std::string, std::size_t> kernel_of;
    std::vector<std::size_t> kernel;
    for (; std::getline(in, line);) {
        std::vector<std::string> cells;
        for (std::size_t from = 0;;) {
            const std::size_t at = line.find("\",\"", from);
            cells.push_back(line.substr(from, at == std::string::npos ? std::string::npos : at - from));
            if (at == std::string::npos) break;
            from = at + 3;
        }
        kernel.push_back(kernel_of.emplace(cells.at(4), kernel_of.size()).first->second);
        rows.push_back(cells);
    }
    std::string out = head + "\n" + units + "\n";
    std::size_t id = 0;
    for (std::size_t copy = 0; copy * kernel_of.size() < n; ++copy)
        for (std::size_t r = 0; r < rows.size(); ++r) {
            if (copy * kernel_of.size() + kernel[r] >= n) continue;
            auto cells = rows[r];
            cells[0] = "\"" + std::to_string(id++);
            if (copy)
                cells[4].insert(cells[4].find_first_of("<(", cells[4].rfind("::", cells[4].find('(')) + 2),
                                "_" + std::to_string(copy + 1));
            for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "\",\"" : "") + cells[i];
            out += "\n";
        }
    return out;
}

analysis analyze_repeated(std::size_t n) {
    std::istringstream in(repeated_kernels(n));
    roofline::analyze_options keep;
    keep.keep_metrics = true;  // the tests recompute ceilings from the counters
    return analyze(in, "kernels_" + std::to_string(n) + ".csv", keep);
}

}  // namespace

namespace {

// Every kernel 1..n drawn exactly once; each labelled with its number, or listed as unlabelled.
void check_every_kernel_drawn_and_numbered(const analysis& a, const parsed_chart& c) {
    std::map<std::size_t, int> drawn;
    for (const auto& p : c.kernels) {
        const std::size_t n = p.get<std::size_t>("<xmlattr>.data-number");
        ++drawn[n];
        REQUIRE(n >= 1);
        REQUIRE(n <= a.kernels.size());
        CHECK(p.get<std::string>("<xmlattr>.data-kernel") ==
              short_name(a.kernels[n - 1].group.name));  // the summary's row n
    }
    for (std::size_t n : c.not_drawn) CHECK(drawn.emplace(n, 0).second);  // listed, not drawn
    CHECK(drawn.size() == a.kernels.size());
    for (const auto& [n, times] : drawn) CHECK(times == (c.not_drawn.count(n) ? 0 : 1));
    std::set<std::size_t> labelled;
    for (const auto& l : c.labels) {
        const std::size_t n = l.get<std::size_t>("<xmlattr>.data-number");
        CHECK(l.data() == std::to_string(n));
        CHECK(labelled.insert(n).second);
        CHECK(!c.unlabelled.count(n));
    }
    for (const auto& [n, times] : drawn) CHECK((labelled.count(n) || c.unlabelled.count(n) || c.not_drawn.count(n)));
}

// Nothing outside the chart: every line of text inside the viewBox at its estimated width; the
// number labels clear of each other.
void check_nothing_clipped(const parsed_chart& c) {
    for (const auto& t : c.texts) {
        CAPTURE(t.text);
        CHECK(t.x0 >= 0);
        CHECK(t.x1 <= c.width);
        CHECK(t.y0 >= 0);
        CHECK(t.y1 <= c.height);
    }
    std::vector<const text_line*> labels;  // the numbers: clear of each other
    for (const auto& t : c.texts)
        if (t.cls == "label") labels.push_back(&t);
    for (std::size_t i = 0; i < labels.size(); ++i)
        for (std::size_t j = i + 1; j < labels.size(); ++j) {
            const bool apart = labels[i]->x1 <= labels[j]->x0 || labels[j]->x1 <= labels[i]->x0 ||
                               labels[i]->y1 <= labels[j]->y0 || labels[j]->y1 <= labels[i]->y0;
            CAPTURE(labels[i]->text);
            CAPTURE(labels[j]->text);
            CHECK(apart);
        }
}

// The legend: one entry per bound drawn, and nothing else but the open-mark entry when there are open marks.
void check_legend(const parsed_chart& c) {
    std::set<std::string> drawn, listed;
    for (const auto& p : c.kernels) drawn.insert(p.get<std::string>("<xmlattr>.data-bound"));
    bool level_entry = false;
    for (const auto& e : c.legend) {
        if (e.get("<xmlattr>.data-mark", "") == "level") {
            level_entry = true;
            continue;
        }
        CHECK(listed.insert(e.get<std::string>("<xmlattr>.data-bound")).second);
    }
    CHECK(drawn == listed);
    CHECK(level_entry == !c.levels.empty());
}

}  // namespace

TEST_CASE("the chart of each real capture places every kernel where the model puts it, under its roofs") {
    for (const char* capture : {"examples/h100/kernels_raw.csv", "examples/h100/pairs_raw.csv",
                                "examples/h200/pairs_raw.csv", "examples/h100/torch_ops_raw.csv"}) {
        CAPTURE(capture);
        auto a = analyze_example(capture, keeping_metrics());
        const std::string svg = render_chart_svg(a, build_chart(a));
        CHECK(svg == render_chart_svg(a, build_chart(a)));  // same analysis, same bytes
        auto c = parse_chart(svg);
        REQUIRE(c.panels.count("roofline"));
        const panel& roof = c.panels.at("roofline");
        check_every_kernel_drawn_and_numbered(a, c);
        check_nothing_clipped(c);
        check_legend(c);

        // The highest peak of each resource over the kernels, straight from the model.
        std::map<std::string, double> peaks;
        for (const auto& k : a.kernels)
            for (const auto& r : k.roof.resources)
                if ((roofline::info(r.id).precision || r.id == roofline::resource::dram) && r.peak > 0)
                    peaks[name(r.id)] = std::max(peaks[name(r.id)], r.peak);
        // L2 and L1: ncu's peak bytes per cycle x the level's clock.
        for (const auto& k : a.kernels) {
            const auto& n = k.group.metrics;
            peaks["l2"] = std::max(peaks["l2"], n.at("derived__lts__lts2xbar_bytes.sum.peak_sustained") *
                                                    n.at("lts__cycles_elapsed.avg.per_second"));
            peaks["l1"] =
                std::max(peaks["l1"], n.at("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained") *
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

        for (const auto& p : c.kernels) {
            const std::string name = p.get<std::string>("<xmlattr>.data-kernel");
            CAPTURE(name);
            const analysed_kernel& k = by_short_name(a, name);
            // Area proportional to the share of time (radius floored at 2.5 px to stay visible), on both panels.
            CHECK(p.get<double>("<xmlattr>.r") ==
                  doctest::Approx(std::max(2.5, 22.0 * std::sqrt(k.share))).epsilon(0.002));
            const double seconds = k.roof.duration_ns * 1e-9;
            if (p.get<std::string>("<xmlattr>.data-panel") == "memory") {
                // Off the roofline: no FLOPs, or no DRAM bytes; at its time and DRAM bytes per second, under the DRAM
                // ceiling.
                const panel& mem = c.panels.at("memory");
                bool flops = false;
                for (const auto& r : k.roof.resources) flops |= roofline::info(r.id).precision && r.work > 0;
                CHECK((!flops || !k.roof.bytes_dram || *k.roof.bytes_dram <= 0));
                REQUIRE(p.get<std::string>("<xmlattr>.data-level") == "dram");
                const double rate = *k.roof.bytes_dram / seconds;
                CHECK(std::abs(p.get<double>("<xmlattr>.cx") - mem.px(seconds)) <= 0.01);
                CHECK(std::abs(p.get<double>("<xmlattr>.cy") - mem.py(rate)) <= 0.01);
                CHECK(p.get<double>("<xmlattr>.cy") >= mem.py(peaks.at("dram")) - 0.01);
                continue;
            }
            const resource_use* dom =
                k.roof.find(resource_named(p.get<std::string>("<xmlattr>.data-precision")).value());
            REQUIRE(dom);
            for (const auto& r : k.roof.resources)
                if (roofline::info(r.id).precision)
                    CHECK(r.work <= dom->work);  // the dominant precision does the most work
            const double ai = dom->work / *k.roof.bytes_dram, rate = dom->work / seconds;
            CHECK(std::abs(p.get<double>("<xmlattr>.cx") - roof.px(ai)) <= 0.01);
            CHECK(std::abs(p.get<double>("<xmlattr>.cy") - roof.py(rate)) <= 0.01);
            // Nothing above its roof: under the DRAM slope and under its precision's ceiling.
            const double ceiling = std::min(peaks.at("dram") * ai, peaks.at(roofline::name(dom->id)));
            CHECK(p.get<double>("<xmlattr>.cy") >= roof.py(ceiling) - 0.01);
        }
        // The hierarchical view: L2 and L1 marks on the kernel's row (roofline) or column (memory).
        CHECK(!c.levels.empty());
        for (const auto& l : c.levels) {
            const analysed_kernel& k = by_short_name(a, l.get<std::string>("<xmlattr>.data-kernel"));
            const std::string level = l.get<std::string>("<xmlattr>.data-level");
            const double bytes = level == "l2" ? *k.roof.bytes_l2 : *k.roof.bytes_l1;
            const double seconds = k.roof.duration_ns * 1e-9;
            if (l.get("<xmlattr>.data-panel", "") == "memory") {
                const panel& mem = c.panels.at("memory");
                CHECK(std::abs(l.get<double>("<xmlattr>.cx") - mem.px(seconds)) <= 0.01);
                CHECK(std::abs(l.get<double>("<xmlattr>.cy") - mem.py(bytes / seconds)) <= 0.01);
                CHECK(l.get<double>("<xmlattr>.cy") >= mem.py(peaks.at(level)) - 0.01);
                continue;
            }
            const resource_use* dom = nullptr;
            for (const auto& r : k.roof.resources)
                if (roofline::info(r.id).precision && r.work > 0 && (!dom || r.work > dom->work)) dom = &r;
            CHECK(std::abs(l.get<double>("<xmlattr>.cx") - roof.px(dom->work / bytes)) <= 0.01);
            CHECK(std::abs(l.get<double>("<xmlattr>.cy") - roof.py(dom->work / seconds)) <= 0.01);
            // Under its own level's slope: the level's bytes per second stay under its peak.
            CHECK(l.get<double>("<xmlattr>.cy") >= roof.py(peaks.at(level) * dom->work / bytes) - 0.01);
        }
    }
}

TEST_CASE(
    "the shipped capture's zero-FLOP copies and transposes are on the memory panel, every kernel numbered as in the "
    "summary") {
    auto a = analyze_example("examples/h100/kernels_raw.csv");
    REQUIRE(a.kernels.size() == 8);
    auto chart = build_chart(a);
    CHECK(chart.points.size() + chart.memory.size() == 8);
    CHECK(chart.not_drawn.empty());
    for (const auto& m : chart.memory) {
        CAPTURE(m.kernel->group.name);
        CHECK(&a.kernels[m.number - 1] == m.kernel);
    }
    for (const auto& p : chart.points) CHECK(&a.kernels[p.number - 1] == p.kernel);
    CHECK(chart.memory.size() >= 4);  // copy_vec4, transpose_naive, transpose_smem, copy_few_blocks
    const std::string svg = render_chart_svg(a, chart);
    auto c = parse_chart(svg);
    CHECK(c.panels.count("memory"));
    CHECK(c.unlabelled.empty());
    CHECK(svg.find(" more") == std::string::npos);  // no list cut short
}

TEST_CASE(
    "charts of 1, 8, 40 and 200 kernels: each kernel drawn once and numbered, the legend only what is drawn, nothing "
    "clipped") {
    for (std::size_t n : {std::size_t(1), std::size_t(8), std::size_t(40), std::size_t(200)}) {
        CAPTURE(n);
        auto a = analyze_repeated(n);
        REQUIRE(a.kernels.size() == n);
        const std::string svg = render_chart_svg(a, build_chart(a));
        CHECK(svg == render_chart_svg(analyze_repeated(n), build_chart(a)));  // same input, same bytes
        auto c = parse_chart(svg);
        check_every_kernel_drawn_and_numbered(a, c);
        check_nothing_clipped(c);
        check_legend(c);
        if (n <= 40) CHECK(c.unlabelled.empty());  // up to 40, every number is on the chart
        if (!c.unlabelled.empty()) CHECK(svg.find("not numbered, for want of room") != std::string::npos);
    }
}

TEST_CASE(
    "with no DRAM bytes anywhere only the memory panel is drawn, at L2; a kernel with no bytes at all is named, with "
    "its number, as not drawn") {
    auto a = analyze_example("examples/h100/kernels_raw.csv");
    for (auto& k : a.kernels) k.roof.bytes_dram.reset();
    a.kernels[2].roof.bytes_l2.reset(), a.kernels[2].roof.bytes_l1.reset();
    a.kernels[2].group.name = "void " + std::string(300, 'x') + "<int>(int)";  // a long name with no space to break at
    auto chart = build_chart(a);
    CHECK(chart.points.empty());
    CHECK(chart.memory.size() == 7);
    REQUIRE(chart.not_drawn.size() == 1);
    CHECK(chart.not_drawn[0].number == 3);
    const std::string svg = render_chart_svg(a, chart);
    auto c = parse_chart(svg);
    CHECK(!c.panels.count("roofline"));
    CHECK(c.panels.count("memory"));
    CHECK(c.not_drawn == std::set<std::size_t>{3});
    for (const auto& p : c.kernels) CHECK(p.get<std::string>("<xmlattr>.data-level") == "l2");
    check_every_kernel_drawn_and_numbered(a, c);
    check_nothing_clipped(c);
    check_legend(c);
    CHECK(svg.find("no bytes at any memory level") != std::string::npos);
    CHECK(svg.find("No kernel here has the DRAM bytes a roofline divides its work by") !=
          std::string::npos);  // they do FLOPs
}

TEST_CASE("labels are placed clear of every point and of each other, or not at all") {
    std::vector<label_point> pts;
    for (int i = 0; i < 30; ++i) pts.push_back({100, 100, 4, std::to_string(i + 1)});  // thirty on one spot
    const text_box area{0, 0, 200, 200};
    const auto places = place_labels(pts, area, 10, true);
    std::size_t placed = 0;
    for (std::size_t i = 0; i < places.size(); ++i) {
        if (!places[i].placed) continue;
        ++placed;
        CHECK(places[i].box.inside(area));
        for (std::size_t j = 0; j < i; ++j)
            if (places[j].placed) CHECK(!places[i].box.overlaps(places[j].box));
    }
    CHECK(placed >= 8);            // the eight places around the point at least
    CHECK(places.front().placed);  // the first (most time) always gets the best place
    CHECK(text_width("12", 10, true) > text_width("12", 10, false));
    CHECK(text_width("WWW", 10) > text_width("iii", 10));
}

TEST_CASE("the chart names the ridge point of each precision") {
    auto a = analyze_example("examples/h100/kernels_raw.csv");
    auto chart = build_chart(a);
    REQUIRE(chart.ceilings.front().id == roofline::resource::dram);
    for (std::size_t i = 1; i < chart.ceilings.size(); ++i) {
        const auto& ce = chart.ceilings[i];
        if (ce.id == roofline::resource::l2 || ce.id == roofline::resource::l1)
            continue;  // memory slopes: no ridge against DRAM
        char exact[64], label[64];
        std::snprintf(exact, sizeof exact, "%.6g", ce.peak / chart.ceilings.front().peak);
        std::snprintf(label, sizeof label, "%.3g", ce.peak / chart.ceilings.front().peak);
        const std::string svg = render_chart_svg(a, chart);
        CHECK(svg.find("class=\"ridge\" data-id=\"" + std::string(name(ce.id)) + "\" data-intensity=\"" + exact +
                       "\"") != std::string::npos);
        CHECK(svg.find(std::string("ridge ") + label + " FLOP/B") != std::string::npos);
    }
}

TEST_CASE("an export without FLOP counters (the details page) gets an instruction chart, every kernel on it") {
    auto a = analyze_example("examples/h100/kernels_details.csv", keeping_metrics());
    auto chart = build_chart(a);
    CHECK(chart.kind == chart_kind::instructions);
    CHECK(chart.points.size() == a.kernels.size());
    auto c = parse_chart(render_chart_svg(a, chart));
    REQUIRE(c.kernels.size() == a.kernels.size());
    check_every_kernel_drawn_and_numbered(a, c);
    check_nothing_clipped(c);
    check_legend(c);
    const panel& roof = c.panels.at("roofline");
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
        const double inst = k.group.metrics.at("smsp__inst_executed.sum");
        const double ai = inst / *k.roof.bytes_dram, rate = inst / (k.roof.duration_ns * 1e-9);
        CHECK(p.get<double>("<xmlattr>.data-intensity") == doctest::Approx(ai).epsilon(1e-5));
        CHECK(p.get<double>("<xmlattr>.cy") >= roof.py(std::min(dram * ai, issue)) - 0.01);  // under both roofs
        CHECK(std::abs(p.get<double>("<xmlattr>.cy") - roof.py(rate)) <= 0.01);
    }
}
