// Splits Nsight Compute CSV text into records of quoted fields, one record at a time.
// Lines that do not start with a quote are not CSV rows of ncu's: a live run's stdout mixes
// `==PROF==` lines and the program's own output with them, so they are skipped and counted.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

namespace roofline {

struct csv_field {
    std::string text;
    std::size_t column = 0;  // 1-based character column where the field starts
};

struct csv_record {
    std::vector<csv_field> fields;
    std::size_t line = 0;  // 1-based line where the record starts
};

// The longest record the reader takes. A raw-page launch with every metric of --set full is about
// 60 KB; a line a thousand times longer is not an ncu export.
constexpr std::size_t max_record_bytes = std::size_t(64) << 20;

class csv_records {
public:
    csv_records(std::istream& in, std::string file_name);
    // Reads the next record; false at end of input. Throws input_error on a broken quote.
    bool next(csv_record& out);
    const std::string& file_name() const { return file_; }
    std::size_t skipped_lines() const { return skipped_; }
    // The first skipped line that looked like data (held a comma), for "unknown format" errors.
    const std::string& first_skipped() const { return first_skipped_; }
    std::size_t first_skipped_line() const { return first_skipped_line_; }

private:
    void split(const std::string& text, std::size_t first_line, csv_record& out);
    bool read_line();

    std::istream& in_;
    std::string file_;
    std::string line_;
    std::size_t line_no_ = 0;
    std::size_t skipped_ = 0;
    std::string first_skipped_;
    std::size_t first_skipped_line_ = 0;
};

}  // namespace roofline
