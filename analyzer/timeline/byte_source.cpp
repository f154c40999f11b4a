#include "analyzer/timeline/byte_source.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/base/input_error.hpp"

#include <cerrno>
#include <cstring>
#include <string>

#include <zlib.h>

namespace roofline::timeline {
namespace {

constexpr std::size_t block_bytes = std::size_t(1) << 20;

}  // namespace

byte_source::byte_source(const std::string& path, bool collapse, std::uint64_t limit)
    : path_(path), buffer_(block_bytes), limit_(limit), collapse_(collapse) {
    errno = 0;
    gzFile gz_file = gzopen(path.c_str(), "rb");
    if (!gz_file)
        throw input_error(error_code::io, path, 0, 0,
                          std::string("cannot open the trace: ") + (errno ? std::strerror(errno) : "out of memory"));
    file_ = gz_file;
    gzbuffer(gz_file, 1u << 18);
    try {
        fill();
    } catch (...) {  // a constructor that throws runs no destructor: close the file here
        gzclose(gz_file);
        file_ = nullptr;
        throw;
    }
}

byte_source::~byte_source() {
    if (file_) gzclose(static_cast<gzFile>(file_));
}

bool byte_source::fill() {
    before_ += length_;
    position_ = length_ = 0;
    const int got = gzread(static_cast<gzFile>(file_), buffer_.data(), static_cast<unsigned>(buffer_.size()));
    if (got < 0) {
        int code = 0;
        const char* why = gzerror(static_cast<gzFile>(file_), &code);
        throw input_error(error_code::io, path_, 0, 0,
                          std::string("cannot read the trace (") + why + "): a truncated or damaged .gz file?");
    }
    length_ = static_cast<std::size_t>(got);
    expanded_ += length_;
    if (expanded_ > limit_)
        throw input_error(error_code::bad_trace, path_, 0, 0,
                          "expands to more than " + format_si(double(limit_), "B") +
                              ": past what one run's trace holds (a compressed file that expands without end?)");
    if (expanded_ > expansion_checked_from && !gzdirect(static_cast<gzFile>(file_))) {
        const auto packed = gzoffset(static_cast<gzFile>(file_));
        if (packed > 0 && expanded_ / std::uint64_t(packed) > max_expansion)
            throw input_error(error_code::bad_trace, path_, 0, 0,
                              "expands more than " + std::to_string(max_expansion) + "-fold (" +
                                  format_si(double(packed), "B") + " to " + format_si(double(expanded_), "B") +
                                  " so far): a compressed file built to expand, not a profiler's trace (their events "
                                  "compress 10-35-fold)");
    }
    if (!collapse_ || length_ == 0) return length_ > 0;
    whitespace_filter filter{in_string_, escaped_, in_space_};
    std::size_t kept = 0;
    for (std::size_t i = 0; i < length_; ++i)
        if (filter.keep(buffer_[i])) buffer_[kept++] = buffer_[i];
    in_string_ = filter.in_string, escaped_ = filter.escaped, in_space_ = filter.in_space;
    length_ = kept;
    // A block of whitespace alone hands out nothing: the next one.
    return length_ > 0 || fill();
}

std::pair<std::size_t, std::size_t> line_column(const std::string& path, std::uint64_t offset) {
    byte_source source(path, false);
    whitespace_filter filter;
    std::uint64_t handed = 0;  // bytes the collapsing source would have handed out before this one
    std::size_t line = 1, column = 1;
    for (auto it = source.begin_tracking(); it != source.end_tracking(); ++it) {
        const bool kept = filter.keep(*it);
        if (kept && handed == offset) break;
        handed += kept;
        if (*it == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

}  // namespace roofline::timeline
