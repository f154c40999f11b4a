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

TEST_CASE("triage's page comes from its document, and is the page the markdown converter made of its markdown") {
    // The migration's check: where the report's text holds no markdown escape of input text, the two
    // routes give the same bytes (tests/data/nsys: plain names, and names with quotes and commas).
    for (const char* f : {"tests/data/nsys/training_step_kern_sum.csv", "tests/data/nsys/quoted_names_kern_sum.csv"}) {
        CAPTURE(f);
        const auto summary = read_nsys_kernsum_file(source_path(f));
        for (const bool by_cover : {false, true}) {
            triage_options o;
            if (by_cover) o.cover = 0.8;
            const auto t = make_triage(summary, o, cli::collection_of(gh100_plan()));
            CHECK(triage_html(t) == markdown_page("", triage_markdown(t)));
        }
    }
}
