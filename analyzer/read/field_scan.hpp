// Splits a line of ncu's quoted CSV fields 64 bytes at a time.
//
// Every field ncu writes is "..." with no quote inside, so a comma outside quotes ends a field,
// and whether a byte is inside quotes is the parity of the quotes before it: the prefix XOR of the
// block's quote mask (the technique of simdjson's string scanner, Langdale & Lemire 2019). One
// pass finds every field boundary of a 2,000-column raw-page row without a branch per byte.
#pragma once

#include "analyzer/read/csv_records.hpp"

#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string_view>
#include <vector>

namespace roofline::detail {

// Bit i of `quote` (`comma`) is set where byte i of a 64-byte block is '"' (',').
struct block_masks {
    std::uint64_t quote = 0;
    std::uint64_t comma = 0;
};
block_masks scan_block_bytes(const char* block);  // byte by byte: the reference, and the fallback

// SSE2 where the target has it (every x86-64); inline, as it runs once per 64 bytes of input.
inline block_masks scan_block(const char* block) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i comma = _mm_set1_epi8(',');
    block_masks masks;
    for (int i = 0; i < 4; ++i) {
        const __m128i lanes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * i));
        masks.quote |= std::uint64_t(std::uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(lanes, quote)))) << (16 * i);
        masks.comma |= std::uint64_t(std::uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(lanes, comma)))) << (16 * i);
    }
    return masks;
#else
    return scan_block_bytes(block);
#endif
}

// Bit i of the result is the XOR of bits 0..i of `bits`: 1 from an opening quote up to (not
// including) its closing quote.
constexpr std::uint64_t prefix_xor(std::uint64_t bits) {
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits ^= bits << 32;
    return bits;
}

// Splits `line` (no line break) into `out`'s fields when every field is "..." with no quote
// inside; false for any other shape, leaving `out` unspecified: the caller then uses the exact
// splitter, which also makes the error messages. The shape is checked on the masks, not per field:
// the line starts and ends with a quote, each comma outside quotes has a quote on both sides, no
// quote is left open, and every quote is one of those (so none is inside a field).
bool split_quoted_line(std::string_view line, csv_record& out);

}  // namespace roofline::detail
