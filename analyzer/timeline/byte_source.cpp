#include "analyzer/timeline/byte_source.hpp"

#include "analyzer/base/input_error.hpp"

#include <string>

namespace roofline::timeline {
namespace {

constexpr std::size_t block_bytes = std::size_t(1) << 20;

gzip_limits trace_limits(std::uint64_t limit) {
    gzip_limits limits;
    limits.noun = "trace";
    limits.max_bytes = limit;
    limits.past_max_words = "past what one run's trace holds (a compressed file that expands without end?)";
    limits.max_ratio = max_expansion;
    limits.ratio_checked_from = expansion_checked_from;
    limits.past_ratio_words =
        "a compressed file built to expand, not a profiler's trace (their events compress 10-35-fold)";
    limits.bomb_code = error_code::bad_trace;
    return limits;
}

}  // namespace

byte_source::byte_source(const std::string& path, bool collapse, std::uint64_t limit)
    : file_(path, trace_limits(limit), 1u << 18), buffer_(block_bytes), collapse_(collapse) {
    fill();
}

byte_source::~byte_source() = default;

bool byte_source::fill() {
    before_ += length_;
    position_ = 0;
    length_ = file_.read(buffer_.data(), buffer_.size());
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
