#include "analyzer/render/svg_writer.hpp"

#include <cassert>

namespace roofline {

void svg_writer::open(std::string_view element, const svg_attributes& attributes) {
    start_tag(element, attributes);
    out_ += '>';
    open_elements_.emplace_back(element);
}

void svg_writer::close() {
    assert(!open_elements_.empty());
    out_ += "</";
    out_ += open_elements_.back();
    out_ += '>';
    open_elements_.pop_back();
}

void svg_writer::leaf(std::string_view element, const svg_attributes& attributes) {
    start_tag(element, attributes);
    out_ += "/>";
}

void svg_writer::text_element(std::string_view element, const svg_attributes& attributes, const std::string& content) {
    open(element, attributes);
    text(content);
    close();
}

void svg_writer::titled(std::string_view element, const svg_attributes& attributes, const std::string& tooltip) {
    open(element, attributes);
    text_element("title", {}, tooltip);
    close();
}

void svg_writer::text(const std::string& content) { write_escaped(content); }

void svg_writer::newline() { out_ += '\n'; }

void svg_writer::append(const svg_writer& part) {
    assert(part.open_elements_.empty());
    out_ += part.out_;
}

void svg_writer::start_tag(std::string_view element, const svg_attributes& attributes) {
    out_ += '<';
    out_ += element;
    for (const auto& [name, value] : attributes) {
        out_ += ' ';
        out_ += name;
        out_ += "=\"";
        write_escaped(value.is_measure() ? format_(value.measure()) : value.text());
        out_ += '"';
    }
}

void svg_writer::write_escaped(std::string_view text) {
    for (char ch : text) {
        switch (ch) {
            case '&':
                out_ += "&amp;";
                break;
            case '<':
                out_ += "&lt;";
                break;
            case '>':
                out_ += "&gt;";
                break;
            case '"':
                out_ += "&quot;";
                break;
            case '\'':
                out_ += escaping_ == svg_escaping::html ? "&#39;" : "'";
                break;
            default: {
                const bool control = static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f;
                out_ += control && escaping_ == svg_escaping::xml ? '?' : ch;
            }
        }
    }
}

}  // namespace roofline
