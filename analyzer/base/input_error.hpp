// The one error type for bad input: it names the file, the line and (where there is one) the
// column, so every message reads `report.csv:1843:27: expected a number ...`.
#pragma once

#include <stdexcept>
#include <string>

namespace roofline {

// The catalogue of error codes; `roofline explain` and the docs read the same table.
enum class error_code {
    io,              // the file cannot be opened or read
    empty_input,     // no CSV rows at all
    unknown_format,  // the header is not one of the Nsight Compute forms
    header_only,     // a header (and units row) but no kernel rows
    column_count,    // a row with a different number of fields than the header
    bad_quote,       // an unterminated or misplaced quote
    bad_number,      // a cell that must be a number is not
    bad_unit,        // a unit string the engine cannot convert
    unknown_gpu,  // no spec matches (nor do the capture's own peaks), --gpu names none or contradicts the capture, GPUs
                  // mixed
    bad_spec,     // a spec file is malformed or misses a field
    bad_rule,     // a rule tree file is malformed, or an expression in it does not parse or type-check
    no_kernels,   // filters left nothing to analyse
    bad_trace,    // a timeline trace's event misses a field the analysis needs, or holds the wrong type
    usage,        // command-line misuse
};

const char* error_code_name(error_code code);
const char* error_code_summary(error_code code);

class input_error : public std::runtime_error {
public:
    // line and column are 1-based; 0 means "not applicable".
    input_error(error_code code, std::string file, std::size_t line, std::size_t column, const std::string& what);
    error_code code() const { return code_; }
    const std::string& file() const { return file_; }
    std::size_t line() const { return line_; }
    std::size_t column() const { return column_; }
    // The message without the location prefix.
    const std::string& detail() const { return detail_; }

private:
    error_code code_;
    std::string file_;
    std::size_t line_;
    std::size_t column_;
    std::string detail_;
};

}  // namespace roofline
