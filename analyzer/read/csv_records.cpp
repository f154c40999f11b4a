#include "analyzer/read/csv_records.hpp"

#include "analyzer/base/input_error.hpp"

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
        // A quoted field may hold a line break: keep reading until the quotes balance.
        std::size_t first_line = line_no_;
        std::string text = line_;
        auto quotes = [](const std::string& s) {
            std::size_t n = 0;
            for (char c : s) n += c == '"';
            return n;
        };
        std::size_t count = quotes(text);
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
    out.fields.clear();
    out.line = first_line;
    std::size_t i = 0;
    const std::size_t n = text.size();
    while (true) {
        csv_field field;
        field.column = i + 1;
        if (i < n && text[i] == '"') {
            ++i;
            while (true) {
                if (i >= n) throw input_error(error_code::bad_quote, file_, first_line, field.column, "a quoted field is not closed");
                if (text[i] == '"') {
                    if (i + 1 < n && text[i + 1] == '"') {
                        field.text += '"';
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                field.text += text[i++];
            }
            if (i < n && text[i] != ',')
                throw input_error(error_code::bad_quote, file_, first_line, i + 1, "unexpected text after the closing quote of a field");
        } else {
            while (i < n && text[i] != ',') field.text += text[i++];
        }
        out.fields.push_back(std::move(field));
        if (i >= n) break;
        ++i;           // the comma
        if (i == n) {  // a trailing comma ends the record with one empty field, as ncu writes
            out.fields.push_back(csv_field{"", i + 1});
            break;
        }
    }
}

}  // namespace roofline
