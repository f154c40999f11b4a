#include "analyzer/base/gzip_stream.hpp"

#include "analyzer/base/format.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <zlib.h>

namespace roofline {
namespace {

constexpr std::size_t block_bytes = std::size_t(1) << 18;

// An Nsight Compute CSV export packs 5-21-fold with gzip -9 (every CSV of examples/ over 100 kB: the details
// pages and --print-summary exports the most, their rows repeating section and rule texts). One that expands
// more than 200-fold is a bomb, not an export; the ratio is checked once 64 MiB have expanded.
gzip_limits export_limits() {
    gzip_limits limits;
    limits.max_ratio = 200;
    limits.ratio_checked_from = std::uint64_t(64) << 20;
    limits.past_ratio_words = "a compressed file that expands without end, not an export";
    limits.bomb_code = error_code::unknown_format;
    return limits;
}

}  // namespace

bool is_gzip_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[2] = {0, 0};
    in.read(magic, 2);
    return in.gcount() == 2 && magic[0] == '\x1f' && magic[1] == '\x8b';
}

gzip_reader::gzip_reader(const std::string& path, const gzip_limits& limits, unsigned zlib_buffer_bytes)
    : path_(path), limits_(limits) {
    errno = 0;
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file)
        throw input_error(
            error_code::io, path, 0, 0,
            std::string("cannot open the ") + limits.noun + ": " + (errno ? std::strerror(errno) : "out of memory"));
    gzbuffer(file, zlib_buffer_bytes);
    file_ = file;
}

gzip_reader::~gzip_reader() { gzclose(static_cast<gzFile>(file_)); }

std::size_t gzip_reader::read(char* into, std::size_t size) {
    const auto file = static_cast<gzFile>(file_);
    const int got = gzread(file, into, static_cast<unsigned>(size));
    int code = Z_OK;
    const char* why = gzerror(file, &code);
    // A file cut short ends without gzip's trailer: zlib says so (Z_BUF_ERROR) rather than ending quietly.
    if (got < 0 || (code != Z_OK && code != Z_STREAM_END))
        throw input_error(
            error_code::io, path_, 0, 0,
            std::string("cannot read the ") + limits_.noun + " (" + why + "): a truncated or damaged .gz file?");
    expanded_ += std::uint64_t(got);
    if (expanded_ > limits_.max_bytes)
        throw input_error(
            limits_.bomb_code, path_, 0, 0,
            "expands to more than " + format_si(double(limits_.max_bytes), "B") + ": " + limits_.past_max_words);
    if (expanded_ > limits_.ratio_checked_from && !gzdirect(file)) {
        const auto packed = gzoffset(file);
        if (packed > 0 && expanded_ / std::uint64_t(packed) > limits_.max_ratio)
            throw input_error(limits_.bomb_code, path_, 0, 0,
                              "expands more than " + std::to_string(limits_.max_ratio) + "-fold (" +
                                  format_si(double(packed), "B") + " to " + format_si(double(expanded_), "B") +
                                  " so far): " + limits_.past_ratio_words);
    }
    return std::size_t(got);
}

class gzip_istream::buffer : public std::streambuf {
public:
    explicit buffer(const std::string& path) : reader_(path, export_limits(), 1u << 17), data_(block_bytes) {}

protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        const std::size_t got = reader_.read(data_.data(), data_.size());
        if (got == 0) return traits_type::eof();
        setg(data_.data(), data_.data(), data_.data() + got);
        return traits_type::to_int_type(*gptr());
    }

private:
    gzip_reader reader_;
    std::vector<char> data_;
};

gzip_istream::gzip_istream(const std::string& path) : std::istream(nullptr), buffer_(std::make_unique<buffer>(path)) {
    rdbuf(buffer_.get());
    // A damaged file or a bomb throws from the buffer: a stream rethrows that only where badbit is an
    // exception; otherwise the reader would see an early end of file and take a part for the whole.
    exceptions(std::ios::badbit);
}

gzip_istream::~gzip_istream() = default;

}  // namespace roofline
