// The one SVG writer of both pipelines' pictures (the roofline chart, the timeline): every element and every
// attribute is written here, and every attribute value and every text content is escaped here, once, never at
// a call site. Elements come out in the order written, attributes in the order given, with no whitespace
// between them but the newline() a caller asks for: the same calls give the same bytes.
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace roofline {

// How text is escaped. Both escape &, <, > and ". xml: a control character (XML holds none) shows as '?'
// (the roofline chart). html: ' is escaped too, as html_escape does (the timeline, which its HTML page holds).
enum class svg_escaping { xml, html };

// One attribute's value: text, a whole number (in decimal), or a measure, which the writer formats with the
// number format it was made with.
class svg_value {
public:
    svg_value(std::string text) : text_(std::move(text)) {}
    svg_value(const char* text) : text_(text) {}
    template <std::integral whole>
    requires(!std::same_as<whole, bool> && !std::same_as<whole, char>) svg_value(whole number)
        : text_(std::to_string(number)) {}
    svg_value(double measure) : measure_(measure), is_measure_(true) {}

    bool is_measure() const { return is_measure_; }
    double measure() const { return measure_; }
    const std::string& text() const { return text_; }

private:
    std::string text_;
    double measure_ = 0.0;
    bool is_measure_ = false;
};

struct svg_attribute {
    std::string_view name;
    svg_value value;
};
using svg_attributes = std::vector<svg_attribute>;

class svg_writer {
public:
    using number_format = std::string (*)(double);
    // `format` writes every measure an attribute is given (the chart's pixels to the hundredth, say).
    svg_writer(number_format format, svg_escaping escaping) : format_(format), escaping_(escaping) {}

    void open(std::string_view element, const svg_attributes& attributes = {});  // <element a="v">
    void close();                                                                // </element>, the last one open
    void leaf(std::string_view element, const svg_attributes& attributes = {});  // <element a="v"/>
    // <element a="v">text</element>
    void text_element(std::string_view element, const svg_attributes& attributes, const std::string& content);
    // <element a="v"><title>tooltip</title></element>: a shape with the words a reader hovering it sees.
    void titled(std::string_view element, const svg_attributes& attributes, const std::string& tooltip);
    void text(const std::string& content);  // text inside the element open
    void newline();
    // A part written apart (the chart's panels before the frame that holds them), nothing left open in it.
    void append(const svg_writer& part);

    bool empty() const { return out_.empty(); }
    const std::string& str() const { return out_; }

private:
    void start_tag(std::string_view element, const svg_attributes& attributes);
    void write_escaped(std::string_view text);

    number_format format_;
    svg_escaping escaping_;
    std::string out_;
    std::vector<std::string> open_elements_;
};

}  // namespace roofline
