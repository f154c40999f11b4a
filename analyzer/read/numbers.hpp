// Reads the numbers ncu writes: grouped in either locale style ("2,822,202,090,592.33" or
// "27.595.520" / "65,77"), plain ("2618107741.06"), with metric instances appended
// ("9,961,472 (2,097,152; 1,572,864)"), or not numbers at all ("n/a", "no data", names).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace roofline {

enum class number_style {
    unknown,
    point,  // ',' groups thousands, '.' marks decimals (ncu's default, and LC_ALL=C without groups)
    comma,  // '.' groups thousands, ',' marks decimals (European locales)
};

const char* number_style_name(number_style style);

// What a cell holds once read.
struct cell_value {
    enum class kind { number, missing, text } what = kind::missing;
    double number = 0.0;
};

// What a single token says about the style, if anything: "1,056" says nothing.
number_style style_evidence(std::string_view token);

// Parses one cell under a known style. Missing markers ("", "n/a", "nan", "no data") give
// `missing`; anything else that is not a number gives `text`.
cell_value read_cell(std::string_view cell, number_style style);

// Keeps the style of one input consistent: the first unambiguous number fixes it, and a later
// contradiction is an error naming both places.
class number_reader {
public:
    explicit number_reader(number_style forced = number_style::unknown)
        : style_(forced), forced_(forced != number_style::unknown) {}
    // Looks at a cell before it is read; throws input_error on a contradiction.
    void observe(std::string_view cell, const std::string& file, std::size_t line, std::size_t column);
    cell_value read(std::string_view cell) const {
        return read_cell(cell, style_ == number_style::unknown ? number_style::point : style_);
    }
    // observe(), then read(): the cell's shape is found once.
    cell_value take(std::string_view cell, const std::string& file, std::size_t line, std::size_t column);
    number_style style() const { return style_; }
    // True when some value was read before the style was known (ncu's default, point, assumed).
    bool assumed() const { return assumed_; }
    void note_read_while_unknown(std::string_view cell);

private:
    // What the evidence `evidence` of a cell says: fixes the style, or contradicts it (an error).
    void settle(number_style evidence, std::string_view cell, const std::string& file, std::size_t line,
                std::size_t column);
    number_style style_;
    bool forced_;
    bool assumed_ = false;
    std::string first_ambiguous_;
    std::string evidence_where_;
};

}  // namespace roofline
