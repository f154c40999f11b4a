// One self-contained HTML page for every command that writes HTML: the house style, sortable tables (the
// sorting script), no network. The body comes from a report's document (render/document.hpp).
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace roofline {

// Text with &, <, >, " and ' as entities.
std::string html_escape(const std::string& text);

// The page: `title`, the HTML body `write_body` writes, then `extra` (HTML: data blocks and scripts of the
// page's own) and the sorting script.
void write_page_shell(std::ostream& out, const std::string& title, const std::function<void(std::ostream&)>& write_body,
                      const std::string& extra = "");
// The id a page gives a heading: "kernel-3" for a kernel section "### 3. name", a slug of the words for a
// "## " heading, none otherwise.
std::string page_heading_id(int level, const std::string& text);

}  // namespace roofline
