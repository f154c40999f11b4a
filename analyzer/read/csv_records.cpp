#include "analyzer/read/csv_records.hpp"

#include "analyzer/base/input_error.hpp"
#include "analyzer/read/field_scan.hpp"

#include <algorithm>
#include <cstring>

namespace roofline {
namespace {

// Bytes asked of the stream at a time: large enough that a read costs little per byte, small
// enough to stay in cache while it is split.
constexpr std::size_t read_block = std::size_t(1) << 20;

std::size_t quotes_in(std::string_view text) { return std::size_t(std::count(text.begin(), text.end(), '"')); }

}  // namespace

csv_records::csv_records(std::istream& in, std::string file_name) : in_(in), file_(std::move(file_name)) {}

// Appends up to read_block bytes after the unread ones, first moving those to the front.
bool csv_records::fill() {
    if (eof_) return false;
    if (begin_ > 0) {
        std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
    }
    if (capacity_ < end_ + read_block) {  // a line longer than the block: room for one more block
        auto bigger = std::make_unique_for_overwrite<char[]>(end_ + read_block);
        if (end_ > 0) std::memcpy(bigger.get(), buf_.get(), end_);
        buf_ = std::move(bigger);
        capacity_ = end_ + read_block;
    }
    in_.read(buf_.get() + end_, std::streamsize(read_block));
    const auto got = std::size_t(in_.gcount());
    end_ += got;
    if (got == 0) eof_ = true;
    return got != 0;
}

void csv_records::resume(std::string_view bytes, std::size_t lines_before) {
    auto fresh = std::make_unique_for_overwrite<char[]>(bytes.size() + read_block);
    if (!bytes.empty()) std::memcpy(fresh.get(), bytes.data(), bytes.size());
    buf_ = std::move(fresh);
    capacity_ = bytes.size() + read_block;
    begin_ = 0;
    end_ = bytes.size();
    line_no_ = lines_before;
}

// The next line without its line break ("\n" or "\r\n"), viewing the buffer until the next call.
// A line longer than max_record_bytes (binary input, /dev/zero) is an error at that line, not a
// buffer that grows until memory runs out.
bool csv_records::next_line(std::string_view& line) {
    std::size_t searched = 0;  // bytes after begin_ known to hold no line break
    std::size_t length = 0;
    bool found = false;
    while (true) {
        const char* data = buf_.get();
        if (const void* nl = end_ > begin_ + searched
                                 ? std::memchr(data + begin_ + searched, '\n', end_ - begin_ - searched)
                                 : nullptr) {
            length = std::size_t(static_cast<const char*>(nl) - (data + begin_));
            found = true;
            break;
        }
        searched = end_ - begin_;
        if (searched > max_record_bytes) break;
        if (!fill()) break;
    }
    length = found ? length : end_ - begin_;
    if (length > max_record_bytes)
        throw input_error(
            error_code::unknown_format, file_, line_no_ + 1, 0,
            "a line longer than " + std::to_string(max_record_bytes >> 20) + " MiB: not a CSV export (binary data?)");
    if (!found && length == 0) return false;
    line = std::string_view(buf_.get() + begin_, length);
    begin_ += length + (found ? 1 : 0);
    ++line_no_;
    if (line_no_ == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);  // a UTF-8 byte-order mark
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return true;
}

bool csv_records::next(csv_record& out) {
    std::string_view line;
    while (next_line(line)) {
        if (line.empty()) continue;
        if (line.front() != '"') {
            ++skipped_;
            if (first_skipped_.empty() && line.find(',') != std::string_view::npos) {
                first_skipped_ = std::string(line);
                first_skipped_line_ = line_no_;
            }
            continue;
        }
        const std::size_t first_line = line_no_;
        out.line = first_line;
        if (detail::split_quoted_line(line, out)) return true;  // the common shape, at block speed
        // A quoted field may hold a line break: keep reading until the quotes balance.
        std::size_t count = quotes_in(line);
        if (count % 2 == 0) {
            split_exact(line, first_line, out);
            return true;
        }
        joined_.assign(line);
        while (count % 2 == 1 && next_line(line)) {
            if (joined_.size() + line.size() > max_record_bytes)
                throw input_error(error_code::bad_quote, file_, first_line, 0,
                                  "a quoted field runs on for more than " + std::to_string(max_record_bytes >> 20) +
                                      " MiB: is a quote missing?");
            joined_ += '\n';
            joined_ += line;
            count += quotes_in(line);
        }
        if (count % 2 == 1)
            throw input_error(error_code::bad_quote, file_, first_line, 0,
                              "a quoted field is not closed before the end of the file");
        split_exact(joined_, first_line, out);
        return true;
    }
    return false;
}

// Character by character: "" inside a field is a quote, an unquoted field runs to the next comma,
// and a broken quote is an error at its column. The field texts are copied into unquoted_.
void csv_records::split_exact(std::string_view text, std::size_t first_line, csv_record& out) {
    unquoted_.clear();
    out.columns_.clear();
    std::vector<std::uint32_t>& starts =
        out.starts_;  // where each field's text starts in unquoted_ (records are < 4 GiB)
    starts.clear();
    auto next_field = [&](std::size_t column) {
        out.columns_.push_back(column);
        starts.push_back(std::uint32_t(unquoted_.size()));
    };
    std::size_t pos = 0;
    const std::size_t length = text.size();
    while (true) {
        next_field(pos + 1);
        if (pos < length && text[pos] == '"') {
            ++pos;
            while (true) {
                const std::size_t quote = text.find('"', pos);
                if (quote == std::string_view::npos)
                    throw input_error(error_code::bad_quote, file_, first_line, out.columns_.back(),
                                      "a quoted field is not closed");
                unquoted_.append(text, pos, quote - pos);
                pos = quote + 1;
                if (pos < length && text[pos] == '"') {  // "" is a quote inside the field
                    unquoted_ += '"';
                    ++pos;
                    continue;
                }
                break;
            }
            if (pos < length && text[pos] != ',')
                throw input_error(error_code::bad_quote, file_, first_line, pos + 1,
                                  "unexpected text after the closing quote of a field");
        } else {
            const std::size_t comma = std::min(text.find(',', pos), length);
            unquoted_.append(text, pos, comma - pos);
            pos = comma;
        }
        if (pos >= length) break;
        ++pos;                // the comma
        if (pos == length) {  // a trailing comma ends the record with one empty field, as ncu writes
            next_field(pos + 1);
            break;
        }
    }
    out.count_ = starts.size();
    starts.push_back(std::uint32_t(unquoted_.size()));
    out.base_ = unquoted_;
    out.quoted_ = false;
}

}  // namespace roofline
