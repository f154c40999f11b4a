#include "analyzer/render/document.hpp"

#include "analyzer/render/html_page.hpp"
#include "analyzer/render/html_page.hpp"
#include "analyzer/render/table.hpp"

#include <sstream>

namespace roofline::doc {
namespace {

template <class... Ts>
struct overloaded : Ts... {
    using Ts::operator()...;
};
template <class... Ts>
overloaded(Ts...) -> overloaded<Ts...>;

// Text as the page shows it: line breaks as spaces and every other control character as '?', as the
// markdown printers write them (code_span, markdown_text), so nothing from an input acts on a terminal
// that prints the page, or breaks its lines.
std::string shown(const std::string& text, bool tab_as_space) {
    std::string out;
    out.reserve(text.size());
    for (char ch : text)
        out += (ch == '\n' || ch == '\r' || (tab_as_space && ch == '\t')) ? ' '
               : (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)    ? '?'
                                                                          : ch;
    return out;
}

std::string html(const phrase& text) {
    std::string out;
    for (const auto& part : text.spans()) switch (part.kind) {
            case span_kind::code:
                out += "<code>" + html_escape(shown(part.text, false)) + "</code>";
                break;
            case span_kind::strong:
                out += "<strong>" + html_escape(shown(part.text, true)) + "</strong>";
                break;
            default:
                out += html_escape(shown(part.text, true));
        }
    return out;
}

// Markdown's code span strips one space at each end where both are there; the HTML shows what the
// markdown reader sees.
std::string code_text(const std::string& text) {
    if (text.size() >= 2 && text.front() == ' ' && text.back() == ' ' &&
        text.find_first_not_of(' ') != std::string::npos)
        return text.substr(1, text.size() - 2);
    return text;
}

}  // namespace

phrase& phrase::marked(std::string_view text) {
    bool code_mark = false;
    while (!text.empty()) {
        const std::size_t tick = text.find('`');
        const std::string_view part = text.substr(0, tick);
        add(code_mark ? span_kind::code : span_kind::words, std::string(part));
        if (tick == std::string_view::npos) break;
        code_mark = !code_mark;
        text.remove_prefix(tick + 1);
    }
    return *this;
}

std::string markdown(const phrase& text) {
    std::string out;
    for (const auto& part : text.spans()) switch (part.kind) {
            case span_kind::words:
                out += part.text;
                break;
            case span_kind::input:
                out += markdown_text(part.text);
                break;
            case span_kind::code:
                out += code_span(part.text);
                break;
            case span_kind::strong:
                out += "**" + part.text + "**";
                break;
        }
    return out;
}

std::string plain(const phrase& text) {
    std::string out;
    for (const auto& part : text.spans()) out += part.kind == span_kind::code ? code_text(part.text) : part.text;
    return out;
}

namespace {

void write_markdown(std::ostream& out, const std::vector<block>& blocks);

void write_markdown_block(std::ostream& out, const block& entry) {
    std::visit(overloaded{
                   [&](const heading& title) {
                       std::string text = markdown(title.text);
                       if (title.escape_pipes) {
                           std::string escaped;
                           for (char ch : text) escaped += ch == '|' ? std::string("\\|") : std::string(1, ch);
                           text = std::move(escaped);
                       }
                       out << std::string(std::size_t(title.level), '#') << " " << text << "\n";
                   },
                   [&](const paragraph& para) { out << markdown(para.text) << "\n"; },
                   [&](const bullet_list& bullets) {
                       if (!bullets.lead.empty()) out << markdown(bullets.lead) << "\n";
                       for (std::size_t i = 0; i < bullets.items.size(); ++i) {
                           const std::string marker = bullets.ordered ? std::to_string(i + 1) + ". " : "- ";
                           out << marker << markdown(bullets.items[i].text) << "\n";
                           for (const auto& child : bullets.items[i].children)
                               out << std::string(marker.size(), ' ') << "- " << markdown(child) << "\n";
                       }
                   },
                   [&](const table_block& table_data) {
                       table tb(table_data.header);
                       for (const auto& row : table_data.rows) {
                           std::vector<std::string> cells;
                           for (const auto& cell : row) cells.push_back(markdown(cell));
                           tb.row(std::move(cells));
                       }
                       out << tb.markdown();
                   },
                   [&](const code_block& code) { out << "```" << code.language << "\n"
                                                     << code.text << "```\n"; },
                   [&](const figure& fig) { out << "![" << fig.alt << "](" << fig.src << ")\n"; },
                   [&](const nested_list& nested) {
                       for (const auto& item : nested.items)
                           out << std::string(2 * item.depth, ' ') << "- " << markdown(item.text) << "\n";
                   },
                   [&](const details_block& details) {
                       out << "<details><summary>" << details.summary << "</summary>\n\n";
                       write_markdown(out, details.blocks);
                       out << "\n</details>\n";
                   },
               },
               entry);
}

void write_markdown(std::ostream& out, const std::vector<block>& blocks) {
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (i) out << "\n";
        write_markdown_block(out, blocks[i]);
    }
}

void write_html_blocks(std::ostream& out, const std::vector<block>& blocks);

}  // namespace

std::string markdown(const document& content) {
    std::ostringstream out;
    write_markdown(out, content.blocks());
    return out.str();
}

void markdown_writer::write(const document& part) {
    for (const auto& entry : part.blocks()) {
        if (started_) out_ << "\n";
        started_ = true;
        write_markdown_block(out_, entry);
    }
}

namespace {

void write_html_blocks(std::ostream& out, const std::vector<block>& blocks) {
    for (const auto& entry : blocks)
        std::visit(
            overloaded{
                [&](const heading& title) {
                    const std::string id = page_heading_id(title.level, plain(title.text));
                    out << "<h" << title.level << (id.empty() ? "" : " id=\"" + html_escape(id) + "\"") << ">"
                        << html(title.text) << "</h" << title.level << ">\n";
                },
                [&](const paragraph& para) { out << "<p>" << html(para.text) << "</p>\n"; },
                [&](const bullet_list& bullets) {
                    if (!bullets.lead.empty()) out << "<p>" << html(bullets.lead) << "</p>\n";
                    if (bullets.items.empty()) return;
                    out << (bullets.ordered ? "<ol>\n" : "<ul>\n");
                    for (std::size_t i = 0; i < bullets.items.size(); ++i) {
                        out << (i ? "</li>\n" : "") << "<li>" << html(bullets.items[i].text);
                        const auto& children = bullets.items[i].children;
                        if (children.empty()) continue;
                        out << "<ul>\n";
                        for (std::size_t j = 0; j < children.size(); ++j)
                            out << (j ? "</li>\n" : "") << "<li>" << html(children[j]);
                        out << "</li>\n</ul>\n";
                    }
                    out << (bullets.ordered ? "</li>\n</ol>\n" : "</li>\n</ul>\n");
                },
                [&](const table_block& table_data) {
                    out << "<table" << (table_data.css.empty() ? "" : " class=\"" + html_escape(table_data.css) + "\"")
                        << ">\n<thead><tr>";
                    for (const auto& column_name : table_data.header)
                        out << "<th>" << html_escape(column_name) << "</th>";
                    out << "</tr></thead>\n<tbody>\n";
                    for (const auto& row : table_data.rows) {
                        out << "<tr>";
                        for (const auto& cell : row) out << "<td>" << html(cell) << "</td>";
                        out << "</tr>\n";
                    }
                    out << "</tbody>\n</table>\n";
                },
                [&](const figure& fig) {
                    out << (fig.html.empty() ? "<p><img src=\"" + html_escape(fig.src) + "\" alt=\"" +
                                                   html_escape(fig.alt) + "\"></p>\n"
                                             : fig.html);
                },
                [&](const nested_list& nested) {
                    // As indented "- " lines read in markdown: a level opens a list inside the open item,
                    // and closing one leaves its parent item open for the next line.
                    std::size_t open = 0;
                    for (const auto& item : nested.items) {
                        const std::size_t depth = item.depth + 1;
                        while (open > depth) {
                            out << "</li>\n</ul>\n";
                            --open;
                        }
                        if (open == depth) out << "</li>\n";
                        while (open < depth) {
                            out << "<ul>\n";
                            ++open;
                        }
                        out << "<li>" << html(item.text);
                    }
                    for (; open > 0; --open) out << "</li>\n</ul>\n";
                },
                [&](const details_block& details) {
                    out << "<details><summary>" << html_escape(details.summary) << "</summary>\n";
                    write_html_blocks(out, details.blocks);
                    out << "</details>\n";
                },
                [&](const code_block& code) {
                    out << "<pre><code"
                        << (code.language.empty() ? "" : " class=\"language-" + html_escape(code.language) + "\"")
                        << ">" << html_escape(code.text) << "</code></pre>\n";
                },
            },
            entry);
}

}  // namespace

void write_html(std::ostream& out, const document& content) { write_html_blocks(out, content.blocks()); }

std::string html_page(const document& content, const std::string& title) {
    std::string heading_text = title;
    if (heading_text.empty())
        for (const auto& entry : content.blocks())
            if (const auto* first_heading = std::get_if<heading>(&entry)) {
                heading_text = plain(first_heading->text);
                break;
            }
    std::ostringstream out;
    write_page_shell(out, heading_text, [&](std::ostream& body) { write_html(body, content); });
    return out.str();
}

}  // namespace roofline::doc
