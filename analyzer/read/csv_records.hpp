// Splits Nsight Compute CSV text into records of quoted fields, one record at a time.
// Lines that do not start with a quote are not CSV rows of ncu's: a live run's stdout mixes
// `==PROF==` lines and the program's own output with them, so they are skipped and counted.
//
// Speed: the input is read in large blocks, and a record's fields are views into the block, so
// a cell costs no copy and no allocation. ncu writes every field as "...", with no quote inside:
// such a line is split 64 bytes at a time (field_scan.hpp), and anything else (a doubled quote, an
// unquoted field, a field that runs over a line break, a broken quote) takes the exact
// character-by-character splitter, which also makes every error message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

class csv_record;
namespace detail {
bool split_quoted_line(std::string_view line, csv_record& out);  // field_scan.hpp
}

// One record: its fields' texts view the reader's buffer (or its own copy of a record it had to
// unquote) and change with the next record read. Fields are found by their boundaries; a text is
// cut out only when asked for, so a 2,000-column row of which the engine reads 150 costs 150 views.
class csv_record {
public:
    std::size_t line = 0;  // 1-based line where the record starts

    std::size_t size() const { return count_; }
    std::string_view text(std::size_t i) const {
        return quoted_ ? std::string_view(base_.data() + starts_[i] + 1, starts_[i + 1] - starts_[i] - 3)
                       : std::string_view(base_.data() + starts_[i], starts_[i + 1] - starts_[i]);
    }
    // The 1-based character column where field i starts (its opening quote, if it has one).
    std::size_t column(std::size_t i) const { return quoted_ ? starts_[i] + 1 : columns_[i]; }

private:
    friend class csv_records;
    friend bool detail::split_quoted_line(std::string_view, csv_record&);
    std::string_view base_;
    bool quoted_ = true;
    std::size_t count_ = 0;
    // quoted_: where each field's opening quote is in base_, then one past the line's end + 1 (as
    // if another field followed its comma). Otherwise: where each field's text starts in base_,
    // then the end of the last one; columns_ holds the columns.
    std::vector<std::uint32_t> starts_;
    std::vector<std::size_t> columns_;
};

// The longest record the reader takes. A raw-page launch with every metric of --set full is about
// 60 KB; a line a thousand times longer is not an ncu export.
constexpr std::size_t max_record_bytes = std::size_t(64) << 20;

class csv_records {
public:
    csv_records(std::istream& in, std::string file_name);
    // Reads the next record; false at end of input. Throws input_error on a broken quote. The
    // record's field texts view the reader's buffer: they change at the next call.
    bool next(csv_record& out);
    const std::string& file_name() const { return file_; }
    std::size_t skipped_lines() const { return skipped_; }
    // The first skipped line that looked like data (held a comma), for "unknown format" errors.
    const std::string& first_skipped() const { return first_skipped_; }
    std::size_t first_skipped_line() const { return first_skipped_line_; }

    // Hand-over to and from another reader of the same stream (parallel_rows.hpp): the bytes read
    // from the stream but not yet consumed, and the lines consumed so far.
    std::istream& stream() const { return in_; }
    std::string_view unread() const { return {buf_.get() + begin_, end_ - begin_}; }
    std::size_t lines_read() const { return line_no_; }
    // Drops what is unread and goes on with `bytes`, as if they were the stream's next bytes, the
    // first of them on line `lines_before + 1`; then with the stream.
    void resume(std::string_view bytes, std::size_t lines_before);

private:
    bool next_line(std::string_view& line);
    bool fill();
    void split_exact(std::string_view text, std::size_t first_line, csv_record& out);

    std::istream& in_;
    std::string file_;
    // Not a std::vector: growing one zero-fills it, a 1 MiB memset for every input read, which only
    // the stream then overwrites.
    std::unique_ptr<char[]> buf_;
    std::size_t capacity_ = 0;
    std::size_t begin_ = 0, end_ = 0;  // unread bytes are buf_[begin_, end_)
    bool eof_ = false;
    std::size_t line_no_ = 0;
    std::size_t skipped_ = 0;
    std::string first_skipped_;
    std::size_t first_skipped_line_ = 0;
    std::string joined_;    // a record over several lines
    std::string unquoted_;  // the exact splitter's field texts
};

}  // namespace roofline
