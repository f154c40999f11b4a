// A gzip-compressed file read as a stream of its expanded bytes (zlib), for exports kept compressed
// (`ncu ... --csv | gzip > report.csv.gz`): the reader sees the CSV text, one buffer at a time, so memory stays
// one buffer whatever the file expands to. A file that expands far more than any export does (a gzip bomb)
// stops the read with an input_error naming it.
#pragma once

#include "analyzer/base/input_error.hpp"

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

namespace roofline {

// True where the file starts with gzip's magic bytes (1f 8b); false where it does not or cannot be read.
bool is_gzip_file(const std::string& path);

// What a compressed input may expand to, and the words its errors use: a CSV export (gzip_istream) and a trace
// (timeline/byte_source.hpp) keep to their own.
struct gzip_limits {
    const char* noun = "file";             // "cannot open the file", "cannot read the file (...)"
    std::uint64_t max_bytes = UINT64_MAX;  // expanded bytes at most; past them: `bomb_code`, `past_max_words`
    const char* past_max_words = "";
    // Expanded over compressed at most, checked once `ratio_checked_from` bytes have expanded (a small file's
    // ratio never matters); past it: `bomb_code`, `past_ratio_words`.
    std::uint64_t max_ratio = 200;
    std::uint64_t ratio_checked_from = std::uint64_t(64) << 20;
    const char* past_ratio_words = "";
    error_code bomb_code = error_code::unknown_format;
};

// A file read in blocks through zlib, gzip-compressed or not (zlib reads a plain file as it is): an error that
// names the file where it cannot be opened, where it is cut short or damaged, and where it expands past its
// limits.
class gzip_reader {
public:
    gzip_reader(const std::string& path, const gzip_limits& limits, unsigned zlib_buffer_bytes);
    ~gzip_reader();
    gzip_reader(const gzip_reader&) = delete;
    gzip_reader& operator=(const gzip_reader&) = delete;
    // Up to `size` expanded bytes into `into`; 0 at the end of the file.
    std::size_t read(char* into, std::size_t size);

private:
    std::string path_;
    gzip_limits limits_;
    void* file_ = nullptr;  // gzFile
    std::uint64_t expanded_ = 0;
};

class gzip_istream : public std::istream {
public:
    // Throws input_error (error_code::io) where the file cannot be opened.
    explicit gzip_istream(const std::string& path);
    ~gzip_istream() override;
    gzip_istream(const gzip_istream&) = delete;
    gzip_istream& operator=(const gzip_istream&) = delete;

private:
    class buffer;
    std::unique_ptr<buffer> buffer_;
};

}  // namespace roofline
