// One self-contained HTML page around a markdown document, for every command that writes markdown:
// the same style and sortable tables as the analyze report (html.cpp), no network.
#pragma once

#include "analyzer/render/markdown_html.hpp"

#include <functional>
#include <ostream>
#include <string>

namespace roofline {

// The page: `title`, the markdown `write_markdown` writes (converted as it is written), then `extra`
// (HTML: data blocks and scripts of the page's own) and the sorting script. Hooks not set get the
// defaults: ids for "## " headings and "### N. " kernel sections, every table sortable.
void write_html_page(std::ostream& out, const std::string& title,
                     const std::function<void(std::ostream&)>& write_markdown, const markdown_html_hooks& hooks = {},
                     const std::string& extra = "");

// The shell alone: the page around the HTML body `write_body` writes (a document's: render/document.hpp).
void write_page_shell(std::ostream& out, const std::string& title, const std::function<void(std::ostream&)>& write_body,
                      const std::string& extra = "");
// The id a page gives a heading: "kernel-3" for a kernel section "### 3. name", a slug of the words for a
// "## " heading, none otherwise.
std::string page_heading_id(int level, const std::string& text);

// The page of a markdown text already made; an empty title takes the text's first "# " heading.
std::string markdown_page(const std::string& title, const std::string& markdown, const markdown_html_hooks& hooks = {});

}  // namespace roofline
