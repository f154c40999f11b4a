// The HTML report: the markdown report's document as HTML (same words, escaped), one self-contained page.
// tests/render_chart.sh loads it in Chromium (console, chart, table, panel, sorting).
#include "analyzer/report/report.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <regex>
#include <sstream>

using namespace roofline;
using namespace roofline::test;

namespace {

// The words a reader sees: tags dropped, entities decoded, split at spaces and table bars.
std::vector<std::string> html_words(const std::string& html) {
    std::string text = std::regex_replace(html, std::regex("<[^>]*>"), " ");
    for (const auto& [entity, c] : std::vector<std::pair<std::string, std::string>>{
             {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}})
        for (std::size_t at; (at = text.find(entity)) != std::string::npos;) text.replace(at, entity.size(), c);
    std::vector<std::string> words;
    std::istringstream in(std::regex_replace(text, std::regex("\\|"), " "));
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

// The same of markdown: markup dropped (fences, **, headings' #, list dashes, table separator rows).
std::vector<std::string> markdown_words(const std::string& md) {
    std::vector<std::string> words;
    std::istringstream lines(md);
    for (std::string l; std::getline(lines, l);) {
        if (l.rfind("|---", 0) == 0) continue;
        l = std::regex_replace(l, std::regex("^ *(#+|-) "), "");
        l = std::regex_replace(l, std::regex("\\\\\\||\\|"), " | ");
        l = std::regex_replace(l, std::regex("`|\\*\\*|<details><summary>|</summary>|</details>"), " ");
        std::istringstream in(l);
        for (std::string w; in >> w;)
            if (w != "|") words.push_back(w);
    }
    return words;
}

}  // namespace

TEST_CASE("the HTML report says what the markdown report says, word for word, in one page with the chart inline") {
    for (const char* rel : {"examples/h100/kernels_raw.csv", "examples/h100/kernels_details.csv",
                            "examples/h100/torch_ops_raw.csv", "examples/h200/kernels_raw.csv"}) {
        CAPTURE(rel);
        const analysis a = analyze_example(rel);
        const std::string html = render_html(a), md = render_markdown(a);
        CHECK(html == render_html(a));  // deterministic
        // The kernels' sections, word for word (above them, the chart adds its own words to the page).
        const std::size_t h_at = html.find("<h2 id=\"kernels\">"), h_end = html.find("</main>");
        const std::size_t m_at = md.find("## Kernels");
        REQUIRE(h_at != std::string::npos);
        REQUIRE(m_at != std::string::npos);
        CHECK(html_words(html.substr(h_at, h_end - h_at)) == markdown_words(md.substr(m_at)));
        // Above them too, with the chart taken out.
        const std::size_t fig = html.find("<figure class=\"chart\""), fig_end = html.find("</figure>");
        REQUIRE(fig != std::string::npos);
        const std::size_t body = html.find("<main>") + 6;
        const std::size_t chart_line = md.find("\n![Roofline chart");
        CHECK(chart_line == std::string::npos);  // render_markdown without a chart file links none
        CHECK(html_words(html.substr(body, fig - body)) == markdown_words(md.substr(0, m_at)));
        // One page: the chart inline, every kernel on it and with its section; nothing fetched.
        CHECK(html.find("<svg ", fig) < fig_end);
        for (std::size_t i = 1; i <= a.kernels.size(); ++i) {
            CAPTURE(i);
            const bool on_chart =
                html.find("class=\"kernel\" data-panel=\"roofline\" data-number=\"" + std::to_string(i) + "\"") !=
                    std::string::npos ||
                html.find("class=\"kernel\" data-panel=\"memory\" data-number=\"" + std::to_string(i) + "\"") !=
                    std::string::npos;
            CHECK(on_chart);
            CHECK(html.find("<h3 id=\"kernel-" + std::to_string(i) + "\">") != std::string::npos);
        }
        CHECK_FALSE(std::regex_search(html, std::regex("<link|(src|href)=\"(https?:|//)")));
    }
}

TEST_CASE("a kernel name cannot become markup in the HTML report, nor end its data block") {
    const std::string csv = read_text(source_path("examples/h100/kernels_raw.csv"));
    const std::string hostile =
        std::regex_replace(csv, std::regex("copy_vec4"), "copy</script><img src=x onerror=alert(1)>\xff");
    std::istringstream in(hostile);
    const std::string html = render_html(analyze(in, "hostile.csv", {}));
    CHECK(html.find("<img src=x") == std::string::npos);
    CHECK(html.find("</script><img") == std::string::npos);
    CHECK(html.find("copy&lt;/script&gt;&lt;img src=x") != std::string::npos);  // as text in the sections
    CHECK(html.find("copy\\u003c/script>\\u003cimg") != std::string::npos);     // and in the panel's data
    // Exactly the page's own three scripts: the panel's data, the panel, sorting.
    std::size_t scripts = 0;
    for (std::size_t at = 0; (at = html.find("<script", at)) != std::string::npos; ++at) ++scripts;
    CHECK(scripts == 3);
}
