#include "analyzer/base/gzip_stream.hpp"

#include "analyzer/base/input_error.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <zlib.h>

namespace roofline {
namespace {

constexpr std::size_t block_bytes = std::size_t(1) << 18;
// An Nsight Compute CSV export packs 5-21-fold with gzip -9 (every CSV of examples/ over 100 kB: the details
// pages and --print-summary exports the most, their rows repeating section and rule texts). One that expands
// more than 200-fold is a bomb, not an export; the ratio is checked once 64 MiB have expanded, so a small
// file's never matters.
constexpr std::uint64_t max_expansion = 200;
constexpr std::uint64_t expansion_checked_from = std::uint64_t(64) << 20;

}  // namespace

bool is_gzip_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[2] = {0, 0};
    in.read(magic, 2);
    return in.gcount() == 2 && magic[0] == '\x1f' && magic[1] == '\x8b';
}

class gzip_istream::buffer : public std::streambuf {
public:
    explicit buffer(const std::string& path) : path_(path), data_(block_bytes) {
        errno = 0;
        file_ = gzopen(path.c_str(), "rb");
        if (!file_)
            throw input_error(error_code::io, path, 0, 0,
                              std::string("cannot open the file: ") + (errno ? std::strerror(errno) : "out of memory"));
        gzbuffer(file_, 1u << 17);
    }
    ~buffer() override {
        if (file_) gzclose(file_);
    }
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        const int got = gzread(file_, data_.data(), static_cast<unsigned>(data_.size()));
        int code = Z_OK;
        const char* why = gzerror(file_, &code);
        // A file cut short ends without gzip's trailer: zlib says so (Z_BUF_ERROR) rather than ending quietly.
        if (got < 0 || (code != Z_OK && code != Z_STREAM_END))
            throw input_error(
                error_code::io, path_, 0, 0,
                std::string("cannot read the compressed file (") + why + "): a truncated or damaged .gz file?");
        if (got == 0) return traits_type::eof();
        expanded_ += std::uint64_t(got);
        if (expanded_ > expansion_checked_from) {
            const auto packed = gzoffset(file_);
            if (packed > 0 && expanded_ / std::uint64_t(packed) > max_expansion)
                throw input_error(error_code::unknown_format, path_, 0, 0,
                                  "expands more than " + std::to_string(max_expansion) +
                                      "-fold: a compressed file that expands without end, not an export");
        }
        setg(data_.data(), data_.data(), data_.data() + got);
        return traits_type::to_int_type(*gptr());
    }

private:
    std::string path_;
    gzFile file_ = nullptr;
    std::vector<char> data_;
    std::uint64_t expanded_ = 0;
};

gzip_istream::gzip_istream(const std::string& path) : std::istream(nullptr), buffer_(std::make_unique<buffer>(path)) {
    rdbuf(buffer_.get());
    // A damaged file or a bomb throws from the buffer: a stream rethrows that only where badbit is an
    // exception; otherwise the reader would see an early end of file and take a part for the whole.
    exceptions(std::ios::badbit);
}

gzip_istream::~gzip_istream() = default;

}  // namespace roofline
