// The markdown the report stage writes, as HTML: the HTML report is the markdown report rendered, so
// the two never say different things. Only the subset the report's writers emit is understood
// (ATX headings, "- " lists nested by two spaces, pipe tables, ``` fences, paragraphs, `code` spans
// of any fence length, **bold**, ![alt](src) on a line of its own, and the report's own
// <details><summary>...</summary> / </details> lines); every other character is text and is escaped,
// so a kernel name or an input path can never become markup.
#pragma once

#include <functional>
#include <memory>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace roofline {

struct markdown_html_hooks {
    // The HTML of an image line ![alt](src); "" keeps the default <img>.
    std::function<std::string(const std::string& alt, const std::string& src)> image;
    // The id of a heading from its level and plain text; "" gives the heading none.
    std::function<std::string(int level, const std::string& text)> heading_id;
    // The class of a table from its header cells (plain text); "" for none.
    std::function<std::string(const std::vector<std::string>& header)> table_class;
};

// Text with &, <, >, " and ' as entities.
std::string html_escape(const std::string& text);

// Converts `in` line by line, writing as it goes.
void markdown_to_html(std::istream& in, std::ostream& out, const markdown_html_hooks& hooks = {});

// The same as a stream to write markdown into: each line is converted as it ends, so a report of
// 10,000 kernels is never held whole. finish() closes what is open (and converts a last line
// without its line break); the destructor calls it where it was not called.
class markdown_html_stream : public std::ostream {
public:
    markdown_html_stream(std::ostream& out, const markdown_html_hooks& hooks);
    ~markdown_html_stream() override;
    void finish();

private:
    class sink;
    std::unique_ptr<sink> sink_;
};

}  // namespace roofline
