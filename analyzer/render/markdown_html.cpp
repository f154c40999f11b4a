#include "analyzer/render/markdown_html.hpp"

#include <cstddef>
#include <vector>

namespace roofline {
namespace {

// The text of a line with its markup removed, for ids and sort keys: code fences and ** dropped.
std::string plain(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '`') continue;
        if (s[i] == '*' && i + 1 < s.size() && s[i + 1] == '*') {
            ++i;
            continue;
        }
        out += s[i];
    }
    return out;
}

// A code span opened by `n` backticks at `from` ends at the next run of exactly `n`; npos if none.
std::size_t closing_fence(const std::string& s, std::size_t from, std::size_t n) {
    for (std::size_t i = from; i < s.size();) {
        if (s[i] != '`') {
            ++i;
            continue;
        }
        std::size_t run = 0;
        while (i + run < s.size() && s[i + run] == '`') ++run;
        if (run == n) return i;
        i += run;
    }
    return std::string::npos;
}

// Inline markup: code spans first (their content is literal), then ** pairs outside them.
std::string inline_html(const std::string& s) {
    std::string out;
    bool strong = false;
    for (std::size_t i = 0; i < s.size();) {
        if (s[i] == '`') {
            std::size_t n = 0;
            while (i + n < s.size() && s[i + n] == '`') ++n;
            const std::size_t end = closing_fence(s, i + n, n);
            if (end == std::string::npos) {  // no span: the backticks are text
                out += std::string(n, '`');
                i += n;
                continue;
            }
            std::string body = s.substr(i + n, end - i - n);
            // CommonMark strips one space on each side where both are there and the body is not all spaces.
            if (body.size() >= 2 && body.front() == ' ' && body.back() == ' ' &&
                body.find_first_not_of(' ') != std::string::npos)
                body = body.substr(1, body.size() - 2);
            out += "<code>" + html_escape(body) + "</code>";
            i = end + n;
            continue;
        }
        if (s[i] == '*' && i + 1 < s.size() && s[i + 1] == '*') {
            // Opens only where a closing pair follows; a lone ** is text.
            if (strong || s.find("**", i + 2) != std::string::npos) {
                out += strong ? "</strong>" : "<strong>";
                strong = !strong;
                i += 2;
                continue;
            }
        }
        out += html_escape(std::string(1, s[i]));
        ++i;
    }
    if (strong) out += "</strong>";
    return out;
}

// The cells of a table row "| a | b \| c |": split at '|' not escaped, outer pipes dropped, trimmed.
std::vector<std::string> cells_of(const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    for (std::size_t i = 1; i < line.size(); ++i) {  // line[0] is the opening '|'
        if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
            cell += '|';
            ++i;
        } else if (line[i] == '|') {
            cells.push_back(cell);
            cell.clear();
        } else {
            cell += line[i];
        }
    }
    for (auto& c : cells) {
        const std::size_t a = c.find_first_not_of(' '), b = c.find_last_not_of(' ');
        c = a == std::string::npos ? std::string() : c.substr(a, b - a + 1);
    }
    return cells;
}

bool is_separator(const std::string& line) { return line.find_first_not_of("|-: ") == std::string::npos; }

}  // namespace

// Named, not anonymous: markdown_html_stream's sink holds one (a member of a type with internal
// linkage would break -Wsubobject-linkage in a unity build).
namespace markdown_html_detail {

class converter {
public:
    converter(std::ostream& out, const markdown_html_hooks& hooks) : out_(out), hooks_(hooks) {}

    void line(const std::string& l) {
        if (fenced_) {
            if (l.rfind("```", 0) == 0) {
                out_ << "</code></pre>\n";
                fenced_ = false;
            } else {
                out_ << html_escape(l) << "\n";
            }
            return;
        }
        if (!l.empty() && l[0] == '|') return table_line(l);
        end_table();
        if (l.empty()) return end_blocks();
        if (l.rfind("```", 0) == 0) {
            end_blocks();
            const std::string lang = l.substr(3);
            out_ << "<pre><code" << (lang.empty() ? "" : " class=\"language-" + html_escape(lang) + "\"") << ">";
            fenced_ = true;
            return;
        }
        if (l.rfind("<details><summary>", 0) == 0 && l.size() > 28 && l.compare(l.size() - 10, 10, "</summary>") == 0 &&
            l.find('<', 18) == l.size() - 10) {
            end_blocks();
            out_ << "<details><summary>" << html_escape(l.substr(18, l.size() - 28)) << "</summary>\n";
            return;
        }
        if (l == "</details>") {
            end_blocks();
            out_ << "</details>\n";
            return;
        }
        if (l[0] == '#') {
            std::size_t level = l.find_first_not_of('#');
            if (level != std::string::npos && level <= 6 && l[level] == ' ')
                return heading(int(level), l.substr(level + 1));
        }
        if (l.rfind("![", 0) == 0 && l.back() == ')') {
            const std::size_t mid = l.find("](");
            if (mid != std::string::npos) {
                end_blocks();
                const std::string alt = l.substr(2, mid - 2), src = l.substr(mid + 2, l.size() - mid - 3);
                const std::string custom = hooks_.image ? hooks_.image(alt, src) : std::string();
                out_ << (custom.empty()
                             ? "<p><img src=\"" + html_escape(src) + "\" alt=\"" + html_escape(alt) + "\"></p>\n"
                             : custom);
                return;
            }
        }
        const std::size_t indent = l.find_first_not_of(' ');
        if (l.compare(indent, 2, "- ") == 0) return item(indent / 2 + 1, l.substr(indent + 2), false);
        // "1. text": an ordered list's item (the timeline's findings, the full names of its top kernels).
        const std::size_t digits = l.find_first_not_of("0123456789", indent);
        if (digits != std::string::npos && digits > indent && l.compare(digits, 2, ". ") == 0)
            return item(indent / 2 + 1, l.substr(digits + 2), true);
        if (!lists_.empty()) {  // a continuation of the open item
            out_ << "\n" << inline_html(l.substr(indent));
            return;
        }
        out_ << (paragraph_ ? "\n" : "<p>") << inline_html(l);
        paragraph_ = true;
    }

    void finish() {
        if (fenced_) out_ << "</code></pre>\n";
        end_table();
        end_blocks();
    }

private:
    void heading(int level, const std::string& text) {
        end_blocks();
        const std::string id = hooks_.heading_id ? hooks_.heading_id(level, plain(text)) : std::string();
        out_ << "<h" << level << (id.empty() ? "" : " id=\"" + html_escape(id) + "\"") << ">" << inline_html(text)
             << "</h" << level << ">\n";
    }

    void item(std::size_t depth, const std::string& text, bool ordered) {
        end_paragraph();
        while (lists_.size() > depth) close_list();
        // A list of the other kind at this depth ends here and the new one begins.
        if (lists_.size() == depth && ordered_.back() != ordered) close_list();
        if (lists_.size() == depth) out_ << "</li>\n";
        while (lists_.size() < depth) {
            out_ << (ordered ? "<ol>\n" : "<ul>\n");
            lists_.push_back(depth);
            ordered_.push_back(ordered);
        }
        out_ << "<li>" << inline_html(text);
    }

    void close_list() {
        out_ << (ordered_.back() ? "</li>\n</ol>\n" : "</li>\n</ul>\n");
        lists_.pop_back();  // the parent item, if any, stays open for its next line or sibling
        ordered_.pop_back();
    }

    void table_line(const std::string& l) {
        end_blocks();
        if (!table_) {
            header_ = cells_of(l);
            table_ = true;
            body_ = false;
            return;
        }
        if (!body_ && is_separator(l)) {
            std::vector<std::string> plain_header;
            for (const auto& h : header_) plain_header.push_back(plain(h));
            const std::string cls = hooks_.table_class ? hooks_.table_class(plain_header) : std::string();
            out_ << "<table" << (cls.empty() ? "" : " class=\"" + html_escape(cls) + "\"") << ">\n<thead><tr>";
            for (const auto& h : header_) out_ << "<th>" << inline_html(h) << "</th>";
            out_ << "</tr></thead>\n<tbody>\n";
            body_ = true;
            return;
        }
        if (!body_) {  // a second line that is no separator: the first was no header; both are text
            out_ << "<p>" << html_escape(join_header()) << "\n" << html_escape(l) << "</p>\n";
            table_ = false;
            return;
        }
        out_ << "<tr>";
        for (const auto& c : cells_of(l)) out_ << "<td>" << inline_html(c) << "</td>";
        out_ << "</tr>\n";
    }

    std::string join_header() const {
        std::string s = "|";
        for (const auto& h : header_) s += " " + h + " |";
        return s;
    }

    void end_table() {
        if (!table_) return;
        if (body_)
            out_ << "</tbody>\n</table>\n";
        else
            out_ << "<p>" << html_escape(join_header()) << "</p>\n";
        table_ = false;
    }

    void end_paragraph() {
        if (paragraph_) out_ << "</p>\n";
        paragraph_ = false;
    }

    void end_blocks() {
        end_paragraph();
        while (!lists_.empty()) close_list();
    }

    std::ostream& out_;
    const markdown_html_hooks hooks_;
    bool paragraph_ = false, fenced_ = false, table_ = false, body_ = false;
    std::vector<std::size_t> lists_;
    std::vector<bool> ordered_;  // per open list: <ol> or <ul>
    std::vector<std::string> header_;
};

}  // namespace markdown_html_detail

std::string html_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

void markdown_to_html(std::istream& in, std::ostream& out, const markdown_html_hooks& hooks) {
    markdown_html_stream html(out, hooks);
    html << in.rdbuf();
    html.finish();
}

// Collects characters into a line and hands each whole line to the converter.
class markdown_html_stream::sink : public std::streambuf {
public:
    sink(std::ostream& out, const markdown_html_hooks& hooks) : converter_(out, hooks) {}
    void finish() {
        if (finished_) return;
        if (!line_.empty()) flush_line();
        converter_.finish();
        finished_ = true;
    }

protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        put(traits_type::to_char_type(c));
        return c;
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        for (std::streamsize i = 0; i < n; ++i) put(s[i]);
        return n;
    }

private:
    void put(char c) {
        if (c != '\n') {
            line_ += c;
            return;
        }
        flush_line();
    }
    void flush_line() {
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        converter_.line(line_);
        line_.clear();
    }
    markdown_html_detail::converter converter_;
    std::string line_;
    bool finished_ = false;
};

markdown_html_stream::markdown_html_stream(std::ostream& out, const markdown_html_hooks& hooks)
    : std::ostream(nullptr), sink_(std::make_unique<sink>(out, hooks)) {
    rdbuf(sink_.get());
}

markdown_html_stream::~markdown_html_stream() {
    try {
        sink_->finish();
    } catch (...) {  // a destructor does not throw; finish() is called where errors matter
    }
}

void markdown_html_stream::finish() { sink_->finish(); }

}  // namespace roofline
