// A file read in 1 MiB blocks, gzip-compressed or not (zlib reads both), as an input iterator for
// nlohmann's SAX parser: the trace is never held whole. The source counts the bytes it has handed
// out, so an event can be located (`line_column` turns that count into a line and column).
//
// Every run of whitespace outside a JSON string reaches the parser as its first byte alone: nlohmann's
// lexer keeps every byte since the last token for its error messages (lexer::token_string, cleared only
// when the next token starts), so a trace of one event and 1 GiB of whitespace took 2.1 GB. One byte of
// each run keeps the tokens apart as the file has them (`[1 2]` stays invalid), and `line_column` maps a
// count of handed-out bytes back to the file's own line and column.
#pragma once

#include "analyzer/base/gzip_stream.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace roofline::timeline {

// The most a trace may expand to: 16 GiB of JSON (the largest whole-run traces seen are 1-2 GB; HTA takes
// 5.7 GB of memory per GB). The reader keeps about 0.25 MiB per MB of events, so a trace at the cap takes
// about 4 GB; a file that expands past it (a gzip bomb) stops with one line naming it.
inline constexpr std::uint64_t max_trace_bytes = std::uint64_t(16) << 30;
// A compressed trace that expands more than this many times is a bomb, not a trace: a profiler's JSON events
// each carry their own times and ids, and gzip packs them 10-35-fold (the traces of examples/: 11-32). Checked
// once 256 MiB have expanded, so a small file's ratio never matters.
inline constexpr std::uint64_t max_expansion = 100;
inline constexpr std::uint64_t expansion_checked_from = std::uint64_t(256) << 20;

class byte_source {
public:
    // Throws input_error (io) naming the path when it cannot be opened. `collapse`: whitespace runs outside
    // strings to their first byte (above); off, the file's bytes as they are.
    explicit byte_source(const std::string& path, bool collapse = true, std::uint64_t limit = max_trace_bytes);
    ~byte_source();
    byte_source(const byte_source&) = delete;
    byte_source& operator=(const byte_source&) = delete;

    // The first bytes of the (decompressed) content, without consuming them.
    std::string_view peek() const { return {buffer_.data(), length_}; }
    // Bytes handed out so far.
    std::uint64_t offset() const { return before_ + position_; }

    // The parser's iterator: a pointer into the block, the block refilled when it runs out; the end
    // iterator (and an exhausted one) holds no pointer. It does not tell the source where it is: the
    // parse runs at the speed of a pointer walk, and a location is found by a second, tracking pass.
    class iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = char;
        using difference_type = std::ptrdiff_t;
        using pointer = const char*;
        using reference = const char&;
        iterator() = default;
        explicit iterator(byte_source* source) : s_(source) {
            if (source->position_ < source->length_)
                cur_ = source->buffer_.data() + source->position_, end_ = source->buffer_.data() + source->length_;
        }
        const char& operator*() const { return *cur_; }
        iterator& operator++() {
            if (++cur_ == end_) {
                s_->position_ = s_->length_;
                cur_ = s_->fill() ? s_->buffer_.data() : nullptr;
                end_ = cur_ ? cur_ + s_->length_ : nullptr;
            }
            return *this;
        }
        bool operator==(const iterator& other) const { return cur_ == other.cur_; }
        bool operator!=(const iterator& other) const { return cur_ != other.cur_; }

    private:
        byte_source* s_ = nullptr;
        const char* cur_ = nullptr;
        const char* end_ = nullptr;
    };
    iterator begin() { return iterator(this); }
    iterator end() { return iterator(); }

    // The same walk, keeping the source's position up to date, so offset() says where it is.
    class tracking_iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = char;
        using difference_type = std::ptrdiff_t;
        using pointer = const char*;
        using reference = const char&;
        tracking_iterator() = default;
        explicit tracking_iterator(byte_source* source)
            : s_(source && source->position_ < source->length_ ? source : nullptr) {}
        const char& operator*() const { return s_->buffer_[s_->position_]; }
        tracking_iterator& operator++() {
            if (++s_->position_ == s_->length_ && !s_->fill()) s_ = nullptr;
            return *this;
        }
        bool operator==(const tracking_iterator& other) const { return s_ == other.s_; }
        bool operator!=(const tracking_iterator& other) const { return s_ != other.s_; }

    private:
        byte_source* s_ = nullptr;
    };
    tracking_iterator begin_tracking() { return tracking_iterator(this); }
    tracking_iterator end_tracking() { return tracking_iterator(); }

private:
    bool fill();
    gzip_reader file_;
    std::vector<char> buffer_;
    std::size_t length_ = 0, position_ = 0;
    std::uint64_t before_ = 0;  // bytes of the blocks before this one
    bool collapse_ = true;
    bool in_string_ = false, escaped_ = false, in_space_ = false;  // where the filter is, across blocks
};

// The filter's step for one byte of the file: whether the parser sees it. State is a JSON string's
// (in it, after a backslash) and a whitespace run's.
struct whitespace_filter {
    bool in_string = false, escaped = false, in_space = false;
    bool keep(char ch) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (ch == '\\')
                escaped = true;
            else if (ch == '"')
                in_string = false;
            return true;
        }
        if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') {
            if (in_space) return false;
            in_space = true;
            return true;
        }
        in_space = false;
        if (ch == '"') in_string = true;
        return true;
    }
};

// The 1-based line and column in the file's (decompressed) content of the byte a collapsing source
// handed out `offset`-th.
std::pair<std::size_t, std::size_t> line_column(const std::string& path, std::uint64_t offset);

}  // namespace roofline::timeline
