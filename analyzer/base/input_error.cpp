#include "analyzer/base/input_error.hpp"

#include <sstream>

namespace roofline {
namespace {

struct entry {
    error_code code;
    const char* name;
    const char* summary;
};

constexpr entry catalogue[] = {
    {error_code::io, "io", "the file cannot be opened or read"},
    {error_code::empty_input, "empty_input", "the input holds no CSV rows"},
    {error_code::unknown_format, "unknown_format", "the header is not an Nsight Compute CSV form the engine reads"},
    {error_code::header_only, "header_only", "the input has a header but no kernel rows"},
    {error_code::column_count, "column_count", "a row has a different number of fields than the header"},
    {error_code::bad_quote, "bad_quote", "a quoted field is not closed, or text follows its closing quote"},
    {error_code::bad_number, "bad_number", "a cell that must hold a number does not"},
    {error_code::bad_unit, "bad_unit", "a unit the engine cannot convert to base units"},
    {error_code::unknown_gpu, "unknown_gpu",
     "no GPU spec matches the capture and it cannot stand in for one, --gpu names none or contradicts the capture, or "
     "the capture mixes GPUs"},
    {error_code::bad_spec, "bad_spec", "a GPU spec file is malformed or misses a field"},
    {error_code::bad_rule, "bad_rule",
     "a rule tree file is malformed, or one of its expressions does not parse or type-check"},
    {error_code::no_kernels, "no_kernels", "no kernel launch is left after the filters"},
    {error_code::bad_trace, "bad_trace",
     "a timeline trace's event misses a field the analysis needs (a GPU op without ts or dur), holds the wrong type, "
     "or the trace holds no GPU activity"},
    {error_code::usage, "usage", "the command line is not valid"},
};

const entry& find(error_code code) {
    for (const auto& known : catalogue)
        if (known.code == code) return known;
    return catalogue[0];
}

std::string locate(const std::string& file, std::size_t line, std::size_t column) {
    std::ostringstream where;
    where << file;
    if (line > 0) where << ':' << line;
    if (line > 0 && column > 0) where << ':' << column;
    return where.str();
}

}  // namespace

const char* error_code_name(error_code code) { return find(code).name; }
const char* error_code_summary(error_code code) { return find(code).summary; }

input_error::input_error(error_code code, std::string file, std::size_t line, std::size_t column,
                         const std::string& what)
    : std::runtime_error(locate(file, line, column) + ": " + what),
      code_(code),
      file_(std::move(file)),
      line_(line),
      column_(column),
      detail_(what) {}

}  // namespace roofline
