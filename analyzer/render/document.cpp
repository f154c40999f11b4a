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
    for (char c : text)
        out += (c == '\n' || c == '\r' || (tab_as_space && c == '\t')) ? ' '
               : (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)   ? '?'
                                                                       : c;
    return out;
}

std::string html(const phrase& p) {
    std::string out;
    for (const auto& s : p.spans()) switch (s.kind) {
            case span_kind::code:
                out += "<code>" + html_escape(shown(s.text, false)) + "</code>";
                break;
            case span_kind::strong:
                out += "<strong>" + html_escape(shown(s.text, true)) + "</strong>";
                break;
            default:
                out += html_escape(shown(s.text, true));
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

std::string markdown(const phrase& p) {
    std::string out;
    for (const auto& s : p.spans()) switch (s.kind) {
            case span_kind::words:
                out += s.text;
                break;
            case span_kind::input:
                out += markdown_text(s.text);
                break;
            case span_kind::code:
                out += code_span(s.text);
                break;
            case span_kind::strong:
                out += "**" + s.text + "**";
                break;
        }
    return out;
}

std::string plain(const phrase& p) {
    std::string out;
    for (const auto& s : p.spans()) out += s.kind == span_kind::code ? code_text(s.text) : s.text;
    return out;
}

namespace {

void write_markdown(std::ostream& o, const std::vector<block>& blocks);

void write_markdown_block(std::ostream& o, const block& b) {
    std::visit(overloaded{
                   [&](const heading& h) {
                       std::string text = markdown(h.text);
                       if (h.escape_pipes) {
                           std::string escaped;
                           for (char c : text) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
                           text = std::move(escaped);
                       }
                       o << std::string(std::size_t(h.level), '#') << " " << text << "\n";
                   },
                   [&](const paragraph& p) { o << markdown(p.text) << "\n"; },
                   [&](const bullet_list& l) {
                       if (!l.lead.empty()) o << markdown(l.lead) << "\n";
                       for (std::size_t i = 0; i < l.items.size(); ++i) {
                           const std::string marker = l.ordered ? std::to_string(i + 1) + ". " : "- ";
                           o << marker << markdown(l.items[i].text) << "\n";
                           for (const auto& c : l.items[i].children)
                               o << std::string(marker.size(), ' ') << "- " << markdown(c) << "\n";
                       }
                   },
                   [&](const table_block& t) {
                       table tb(t.header);
                       for (const auto& r : t.rows) {
                           std::vector<std::string> cells;
                           for (const auto& c : r) cells.push_back(markdown(c));
                           tb.row(std::move(cells));
                       }
                       o << tb.markdown();
                   },
                   [&](const code_block& c) { o << "```" << c.language << "\n"
                                                << c.text << "```\n"; },
                   [&](const figure& f) { o << "![" << f.alt << "](" << f.src << ")\n"; },
                   [&](const nested_list& l) {
                       for (const auto& item : l.items)
                           o << std::string(2 * item.depth, ' ') << "- " << markdown(item.text) << "\n";
                   },
                   [&](const details_block& d) {
                       o << "<details><summary>" << d.summary << "</summary>\n\n";
                       write_markdown(o, d.blocks);
                       o << "\n</details>\n";
                   },
               },
               b);
}

void write_markdown(std::ostream& o, const std::vector<block>& blocks) {
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (i) o << "\n";
        write_markdown_block(o, blocks[i]);
    }
}

void write_html_blocks(std::ostream& o, const std::vector<block>& blocks);

}  // namespace

std::string markdown(const document& d) {
    std::ostringstream o;
    write_markdown(o, d.blocks());
    return o.str();
}

void markdown_writer::write(const document& part) {
    for (const auto& b : part.blocks()) {
        if (started_) out_ << "\n";
        started_ = true;
        write_markdown_block(out_, b);
    }
}

namespace {

void write_html_blocks(std::ostream& o, const std::vector<block>& blocks) {
    for (const auto& b : blocks)
        std::visit(
            overloaded{
                [&](const heading& h) {
                    const std::string id = page_heading_id(h.level, plain(h.text));
                    o << "<h" << h.level << (id.empty() ? "" : " id=\"" + html_escape(id) + "\"") << ">" << html(h.text)
                      << "</h" << h.level << ">\n";
                },
                [&](const paragraph& p) { o << "<p>" << html(p.text) << "</p>\n"; },
                [&](const bullet_list& l) {
                    if (!l.lead.empty()) o << "<p>" << html(l.lead) << "</p>\n";
                    if (l.items.empty()) return;
                    o << (l.ordered ? "<ol>\n" : "<ul>\n");
                    for (std::size_t i = 0; i < l.items.size(); ++i) {
                        o << (i ? "</li>\n" : "") << "<li>" << html(l.items[i].text);
                        const auto& c = l.items[i].children;
                        if (c.empty()) continue;
                        o << "<ul>\n";
                        for (std::size_t j = 0; j < c.size(); ++j) o << (j ? "</li>\n" : "") << "<li>" << html(c[j]);
                        o << "</li>\n</ul>\n";
                    }
                    o << (l.ordered ? "</li>\n</ol>\n" : "</li>\n</ul>\n");
                },
                [&](const table_block& t) {
                    o << "<table" << (t.css.empty() ? "" : " class=\"" + html_escape(t.css) + "\"") << ">\n<thead><tr>";
                    for (const auto& h : t.header) o << "<th>" << html_escape(h) << "</th>";
                    o << "</tr></thead>\n<tbody>\n";
                    for (const auto& r : t.rows) {
                        o << "<tr>";
                        for (const auto& c : r) o << "<td>" << html(c) << "</td>";
                        o << "</tr>\n";
                    }
                    o << "</tbody>\n</table>\n";
                },
                [&](const figure& f) {
                    o << (f.html.empty()
                              ? "<p><img src=\"" + html_escape(f.src) + "\" alt=\"" + html_escape(f.alt) + "\"></p>\n"
                              : f.html);
                },
                [&](const nested_list& l) {
                    // As indented "- " lines read in markdown: a level opens a list inside the open item,
                    // and closing one leaves its parent item open for the next line.
                    std::size_t open = 0;
                    for (const auto& item : l.items) {
                        const std::size_t depth = item.depth + 1;
                        while (open > depth) {
                            o << "</li>\n</ul>\n";
                            --open;
                        }
                        if (open == depth) o << "</li>\n";
                        while (open < depth) {
                            o << "<ul>\n";
                            ++open;
                        }
                        o << "<li>" << html(item.text);
                    }
                    for (; open > 0; --open) o << "</li>\n</ul>\n";
                },
                [&](const details_block& d) {
                    o << "<details><summary>" << html_escape(d.summary) << "</summary>\n";
                    write_html_blocks(o, d.blocks);
                    o << "</details>\n";
                },
                [&](const code_block& c) {
                    o << "<pre><code"
                      << (c.language.empty() ? "" : " class=\"language-" + html_escape(c.language) + "\"") << ">"
                      << html_escape(c.text) << "</code></pre>\n";
                },
            },
            b);
}

}  // namespace

void write_html(std::ostream& o, const document& d) { write_html_blocks(o, d.blocks()); }

std::string html_page(const document& d, const std::string& title) {
    std::string heading_text = title;
    if (heading_text.empty())
        for (const auto& b : d.blocks())
            if (const auto* h = std::get_if<heading>(&b)) {
                heading_text = plain(h->text);
                break;
            }
    std::ostringstream out;
    write_page_shell(out, heading_text, [&](std::ostream& body) { write_html(body, d); });
    return out.str();
}

}  // namespace roofline::doc
