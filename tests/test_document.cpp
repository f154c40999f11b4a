// The document model (render/document.hpp): one document, printed as markdown and as HTML, neither
// parsed back from the other.
#include "analyzer/read/nsys_kernsum.hpp"
#include "analyzer/render/document.hpp"
#include "analyzer/render/html_page.hpp"
#include "analyzer/timeline/triage.hpp"
#include "analyzer/cli/cli_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <sstream>

using namespace roofline;
using namespace roofline::test;

TEST_CASE("a document prints as markdown blocks one blank line apart and as the HTML of the same structure") {
    doc::document d;
    d.add_heading(1, doc::phrase("Report of ").code("a|b.csv"));
    d.add_paragraph(doc::phrase("Read from ").input("my *file*").words(", ").strong("twice").words("."));
    d.add_table({{"kernel", "time"}, {{doc::phrase().code("k<1>"), "1 ms"}, {"plain", "2 ms"}}});
    d.add_list({"one", doc::phrase("two ").code("x")});
    d.add_code("sh", "echo 'a < b'\n");
    const std::string md = doc::markdown(d);
    CHECK(md ==
          "# Report of `a|b.csv`\n\n"
          "Read from my \\*file\\*, **twice**.\n\n"
          "| kernel | time |\n|---|---|\n| `k<1>` | 1 ms |\n| plain | 2 ms |\n\n"
          "- one\n- two `x`\n\n"
          "```sh\necho 'a < b'\n```\n");
    std::ostringstream html;
    doc::write_html(html, d);
    // Input text reads as written: no markdown escape in the HTML, every special character an entity.
    CHECK(html.str() ==
          "<h1>Report of <code>a|b.csv</code></h1>\n"
          "<p>Read from my *file*, <strong>twice</strong>.</p>\n"
          "<table class=\"sortable\">\n<thead><tr><th>kernel</th><th>time</th></tr></thead>\n<tbody>\n"
          "<tr><td><code>k&lt;1&gt;</code></td><td>1 ms</td></tr>\n<tr><td>plain</td><td>2 ms</td></tr>\n"
          "</tbody>\n</table>\n"
          "<ul>\n<li>one</li>\n<li>two <code>x</code></li>\n</ul>\n"
          "<pre><code class=\"language-sh\">echo &#39;a &lt; b&#39;\n</code></pre>\n");
}

TEST_CASE("triage's page comes from its document: the words of its markdown, code as <code>, no markdown left") {
    for (const char* f : {"tests/data/nsys/training_step_kern_sum.csv", "tests/data/nsys/quoted_names_kern_sum.csv"}) {
        CAPTURE(f);
        const auto summary = read_nsys_kernsum_file(source_path(f));
        const auto t = make_triage(summary, {}, cli::collection_of(gh100_plan()));
        const std::string html = triage_html(t);
        const std::string body = html.substr(html.find("<main>"), html.find("</main>") - html.find("<main>"));
        CHECK(body.find('`') == std::string::npos);  // every code span became <code>
        CHECK(body.find("<h1>Triage of <code>") != std::string::npos);
        for (const auto& r : t.ranked)
            if (&r - t.ranked.data() < std::ptrdiff_t(t.selected))
                CHECK(body.find("<code>" + html_escape(r.kernel->name) + "</code>") != std::string::npos);
        CHECK(body.find("<pre><code class=\"language-sh\">") != std::string::npos);
    }
}
