#include "analyzer/read/field_scan.hpp"

#include <bit>
#include <cstring>
#include <limits>

namespace roofline::detail {

block_masks scan_block_bytes(const char* block) {
    block_masks masks;
    for (int i = 0; i < 64; ++i) {
        masks.quote |= std::uint64_t(block[i] == '"') << i;
        masks.comma |= std::uint64_t(block[i] == ',') << i;
    }
    return masks;
}

bool split_quoted_line(std::string_view line, csv_record& out) {
    const std::size_t length = line.size();
    if (length < 2 || length >= std::numeric_limits<std::uint32_t>::max() || line.front() != '"' || line.back() != '"')
        return false;
    // A valid line has at most one field per 3 bytes ("x",); more commas than that is another shape.
    const std::size_t most = length / 3 + 2;
    if (out.starts_.size() < most + 1) out.starts_.resize(most + 1);
    std::uint32_t* starts = out.starts_.data();
    std::size_t count = 0;
    starts[count++] = 0;
    std::uint64_t inside_carry = 0;  // all ones when the previous block ended inside quotes
    std::uint64_t quote_carry = 0;   // 1 when the previous block's last byte was a quote
    std::uint64_t comma_carry = 0;   // 1 when the previous block's last byte was a field's comma
    std::uint64_t stray_carry = 0;   // 1 when the previous block's last byte was a quote not yet explained
    std::uint64_t bad = 0;
    char tail[64];
    for (std::size_t at = 0; at < length; at += 64) {
        const char* block = line.data() + at;
        if (length - at < 64) {  // the last, partial block, padded with bytes that are neither quote nor comma
            std::memset(tail, ' ', sizeof tail);
            std::memcpy(tail, block, length - at);
            block = tail;
        }
        const block_masks masks = scan_block(block);
        const std::uint64_t inside = prefix_xor(masks.quote) ^ inside_carry;
        inside_carry = std::uint64_t(0) - (inside >> 63);
        const std::uint64_t ends = masks.comma & ~inside;
        // A field's comma has its closing quote before it and the next field's opening quote after.
        bad |= ends & ~((masks.quote << 1) | quote_carry);
        const std::uint64_t opening = (ends << 1) | comma_carry | (at == 0 ? 1 : 0);
        bad |= opening & ~masks.quote;
        // Every quote opens or closes a field: none is inside one. A quote in the block's last byte
        // may close a field whose comma starts the next block.
        std::uint64_t closing = ends >> 1;
        if (length - at <= 64) closing |= std::uint64_t(1) << (length - 1 - at);  // the line's last byte
        const std::uint64_t stray = masks.quote & ~(opening | closing);
        bad |= stray_carry & ~(ends & 1);
        bad |= stray & ~(std::uint64_t(1) << 63);
        stray_carry = stray >> 63;
        quote_carry = masks.quote >> 63;
        comma_carry = ends >> 63;
        for (std::uint64_t remaining = ends; remaining != 0; remaining &= remaining - 1) {
            if (count == most) return false;
            starts[count++] = std::uint32_t(at + std::size_t(std::countr_zero(remaining)) + 1);
        }
    }
    if (bad != 0 || stray_carry != 0 || inside_carry != 0 || comma_carry != 0) return false;
    starts[count] = std::uint32_t(length + 1);
    out.base_ = line;
    out.quoted_ = true;
    out.count_ = count;
    return true;
}

}  // namespace roofline::detail
