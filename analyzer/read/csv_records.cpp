#include "analyzer/read/csv_records.hpp"

#include "analyzer/base/input_error.hpp"

#include <algorithm>

namespace roofline {

csv_records::csv_records(std::istream& in, std::string file_name) : in_(in), file_(std::move(file_name)) {}

// std::getline with a bound: a line longer than max_record_bytes (binary input, /dev/zero) is an
// error at that line, not a buffer that grows until memory runs out.
bool csv_records::read_line() {
    line_.clear();
    char chunk[1 << 16];
    bool any = false;
    while (true) {
        in_.getline(chunk, sizeof chunk);
        const std::streamsize got = in_.gcount();
        if (got == 0 && !in_.good()) break;
        any = true;
        const bool full = in_.fail() && !in_.eof() && got == std::streamsize(sizeof chunk - 1);
        const bool delimited = !in_.fail() && !in_.eof();
        line_.append(chunk, std::size_t(got) - (delimited ? 1 : 0));
        if (line_.size() > max_record_bytes)
            throw input_error(error_code::unknown_format, file_, line_no_ + 1, 0,
                              "a line longer than " + std::to_string(max_record_bytes >> 20) + " MiB: not a CSV export (binary data?)");
        if (!full) break;
        in_.clear(in_.rdstate() & ~std::ios::failbit);
    }
    if (!any) return false;
    ++line_no_;
    if (line_no_ == 1 && line_.rfind("\xEF\xBB\xBF", 0) == 0) line_.erase(0, 3);  // a UTF-8 byte-order mark
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    return true;
}

bool csv_records::next(csv_record& out) {
    while (read_line()) {
        if (line_.empty()) continue;
        if (line_.front() != '"') {
            ++skipped_;
            if (first_skipped_.empty() && line_.find(',') != std::string::npos) {
                first_skipped_ = line_;
                first_skipped_line_ = line_no_;
            }
            continue;
        }
        // A quoted field may hold a line break: keep reading until the quotes balance. Most records
        // are one line, split where they lie.
        std::size_t first_line = line_no_;
        auto quotes = [](const std::string& t) { return std::size_t(std::count(t.begin(), t.end(), '"')); };
        std::size_t count = quotes(line_);
        if (count % 2 == 0) {
            split(line_, first_line, out);
            return true;
        }
        std::string text = line_;
        while (count % 2 == 1 && read_line()) {
            if (text.size() + line_.size() > max_record_bytes)
                throw input_error(
                    error_code::bad_quote, file_, first_line, 0,
                    "a quoted field runs on for more than " + std::to_string(max_record_bytes >> 20) + " MiB: is a quote missing?");
            text += '\n';
            text += line_;
            count += quotes(line_);
        }
        if (count % 2 == 1)
            throw input_error(error_code::bad_quote, file_, first_line, 0, "a quoted field is not closed before the end of the file");
        split(text, first_line, out);
        return true;
    }
    return false;
}

void csv_records::split(const std::string& text, std::size_t first_line, csv_record& out) {
    // The fields' strings are reused from record to record: a raw-page row has thousands.
    std::size_t count = 0;
    auto next_field = [&](std::size_t column) -> csv_field& {
        if (count == out.fields.size()) out.fields.emplace_back();
        csv_field& f = out.fields[count++];
        f.text.clear();
        f.column = column;
        return f;
    };
    out.line = first_line;
    std::size_t i = 0;
    const std::size_t n = text.size();
    while (true) {
        csv_field& field = next_field(i + 1);
        if (i < n && text[i] == '"') {
            ++i;
            while (true) {
                const std::size_t quote = text.find('"', i);
                if (quote == std::string::npos)
                    throw input_error(error_code::bad_quote, file_, first_line, field.column, "a quoted field is not closed");
                field.text.append(text, i, quote - i);
                i = quote + 1;
                if (i < n && text[i] == '"') {  // "" is a quote inside the field
                    field.text += '"';
                    ++i;
                    continue;
                }
                break;
            }
            if (i < n && text[i] != ',')
                throw input_error(error_code::bad_quote, file_, first_line, i + 1, "unexpected text after the closing quote of a field");
        } else {
            const std::size_t comma = std::min(text.find(',', i), n);
            field.text.assign(text, i, comma - i);
            i = comma;
        }
        if (i >= n) break;
        ++i;           // the comma
        if (i == n) {  // a trailing comma ends the record with one empty field, as ncu writes
            next_field(i + 1);
            break;
        }
    }
    out.fields.resize(count);
}

}  // namespace roofline
