// A report as a document: the report's code builds it once, from its values; the printers here write it
// as markdown and as HTML, so neither format is parsed back out of the other. Blocks: headings,
// paragraphs, lists, tables of phrase cells, code, collapsible details. Inline content is a phrase of
// typed spans: the report's own words, text from an input (escaped by each printer as its format needs),
// code and strong emphasis.
//
// Every command's markdown and HTML come from here (the markdown-to-HTML converter they went through
// before is gone): the markdown is what the reports wrote by hand before, byte for byte, and the HTML what
// the converter made of it, except that text from an input reads as written (the converter showed
// markdown's backslash escapes of it).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace roofline::doc {

enum class span_kind {
    words,   // the report's own words: markdown as written (they hold no markup), HTML escaped
    input,   // text from an input (a file name, a GPU's name): markdown escapes what markdown acts on
    code,    // a code span
    strong,  // strong emphasis
};

struct span {
    span_kind kind = span_kind::words;
    std::string text;
};

// Inline content: spans in order. A plain string converts to one span of words.
class phrase {
public:
    phrase() = default;
    phrase(const char* words) { add(span_kind::words, words); }
    phrase(std::string words) { add(span_kind::words, std::move(words)); }
    phrase& words(std::string text) { return add(span_kind::words, std::move(text)); }
    phrase& input(std::string text) { return add(span_kind::input, std::move(text)); }
    phrase& code(std::string text) { return add(span_kind::code, std::move(text)); }
    phrase& strong(std::string text) { return add(span_kind::strong, std::move(text)); }
    // The report's own sentence with its code marked by single backticks, as the sentences are written in
    // the source ("use `torch.compile`"): words and code spans. Only for the engine's own text, never for
    // input (names go in through code() or input()).
    phrase& marked(std::string_view text);
    phrase& append(const phrase& more) {
        spans_.insert(spans_.end(), more.spans_.begin(), more.spans_.end());
        return *this;
    }
    const std::vector<span>& spans() const { return spans_; }
    bool empty() const { return spans_.empty(); }

private:
    phrase& add(span_kind kind, std::string text) {
        if (!text.empty()) spans_.push_back({kind, std::move(text)});
        return *this;
    }
    std::vector<span> spans_;
};

struct heading {
    int level = 1;
    phrase text;
    bool escape_pipes = false;  // markdown: '|' as "\\|" (a kernel name in a heading, as in its table row)
};
struct paragraph {
    phrase text;
};
struct list_item {
    phrase text;
    std::vector<phrase> children;  // a list of its own under the item (never numbered)
    list_item(phrase item_text = {}, std::vector<phrase> item_children = {})
        : text(std::move(item_text)), children(std::move(item_children)) {}
    list_item(const char* item_text) : text(item_text) {}
    list_item(std::string item_text) : text(std::move(item_text)) {}
};
struct bullet_list {
    std::vector<list_item> items;
    phrase lead;           // a line the items follow directly, with no blank line between (a paragraph in HTML)
    bool ordered = false;  // "1. ", "2. ", ... in markdown, <ol> in HTML
};
struct table_block {
    std::vector<std::string> header;  // the report's words
    std::vector<std::vector<phrase>> rows;
    std::string css = "sortable";  // the HTML table's class
};
// A list whose items each sit at a depth (0: top; markdown indents two spaces a level): a tree walk, a
// finding with its evidence and fixes under it.
struct nested_item {
    std::size_t depth = 0;
    phrase text;
};
struct nested_list {
    std::vector<nested_item> items;
};
struct code_block {
    std::string language;  // "" for none
    std::string text;      // lines, each ending in a line break
};

// A picture: "![alt](src)" in markdown; in HTML the markup the report made for it (an inline SVG), or an
// <img> where it made none.
struct figure {
    std::string alt, src;
    std::string html;
};
struct details_block;

using block =
    std::variant<heading, paragraph, bullet_list, table_block, code_block, figure, details_block, nested_list>;

// Blocks a reader opens on demand: <details> with its summary in both formats.
struct details_block {
    std::string summary;  // the report's words
    std::vector<block> blocks;
};

class document {
public:
    document& add_heading(int level, phrase text) { return add(heading{level, std::move(text)}); }
    document& add_paragraph(phrase text) { return add(paragraph{std::move(text)}); }
    document& add_list(std::vector<phrase> items, phrase lead = {}) {
        return add(bullet_list{std::vector<list_item>(items.begin(), items.end()), std::move(lead), false});
    }
    document& add_list(bullet_list list) { return add(std::move(list)); }
    document& add_table(table_block table_data) { return add(std::move(table_data)); }
    document& add_code(std::string language, std::string text) {
        return add(code_block{std::move(language), std::move(text)});
    }
    document& add_figure(figure picture) { return add(std::move(picture)); }
    document& add_nested(nested_list list) { return add(std::move(list)); }
    document& add_heading(heading title) { return add(std::move(title)); }
    document& add_details(std::string summary, const document& inner) {
        return add(details_block{std::move(summary), inner.blocks_});
    }
    const std::vector<block>& blocks() const { return blocks_; }

private:
    document& add(block item) {
        blocks_.push_back(std::move(item));
        return *this;
    }
    std::vector<block> blocks_;
};

// The phrase as markdown inline text, and as the plain text it reads as (ids, titles).
std::string markdown(const phrase& text);
std::string plain(const phrase& text);
// The document as markdown: each block ends its line, blocks one blank line apart.
std::string markdown(const document& content);
// The document as HTML body elements (headings with ids, sortable tables), for a page shell.
void write_html(std::ostream& out, const document& content);
// A long report printed part by part (a document per section, each dropped once printed): the parts read
// as one document, blocks one blank line apart across them.
class markdown_writer {
public:
    explicit markdown_writer(std::ostream& out) : out_(out) {}
    void write(const document& part);

private:
    std::ostream& out_;
    bool started_ = false;
};
// One self-contained page: the house style and sorting script around the document (render/html_page).
// An empty title takes the first heading's text.
std::string html_page(const document& content, const std::string& title = "");

}  // namespace roofline::doc
