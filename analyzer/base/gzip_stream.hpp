// A gzip-compressed file read as a stream of its expanded bytes (zlib), for exports kept compressed
// (`ncu ... --csv | gzip > report.csv.gz`): the reader sees the CSV text, one buffer at a time, so memory stays
// one buffer whatever the file expands to. A file that expands far more than any export does (a gzip bomb)
// stops the read with an input_error naming it.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

namespace roofline {

// True where the file starts with gzip's magic bytes (1f 8b); false where it does not or cannot be read.
bool is_gzip_file(const std::string& path);

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
