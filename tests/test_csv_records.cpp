#include "analyzer/base/input_error.hpp"
#include "analyzer/read/csv_records.hpp"
#include "analyzer/read/field_scan.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <random>
#include <sstream>

using namespace roofline;

TEST_CASE("quoted fields keep their commas and report their columns") {
    std::istringstream in("\"0\",\"copy_vec4(const float4 *, float4 *, unsigned long)\",\"2,112\"\n");
    csv_records r(in, "x.csv");
    csv_record rec;
    REQUIRE(r.next(rec));
    REQUIRE(rec.size() == 3);
    CHECK(rec.text(1) == "copy_vec4(const float4 *, float4 *, unsigned long)");
    CHECK(rec.text(2) == "2,112");
    CHECK(rec.column(2) == 58);
    CHECK(rec.line == 1);
}

TEST_CASE("a trailing comma, as on details metric rows, ends with an empty field") {
    std::istringstream in("\"a\",\"b\",\n");
    csv_records r(in, "x.csv");
    csv_record rec;
    REQUIRE(r.next(rec));
    CHECK(rec.size() == 3);
    CHECK(rec.text(2).empty());
}

TEST_CASE("lines that are not ncu CSV rows are skipped and counted") {
    std::istringstream in(
        "==PROF== Connected to process 631\nseed 42\n\"ID\",\"x\"\r\n==PROF== Disconnected\n\"1\",\"2\"\n");
    csv_records r(in, "x.csv");
    csv_record rec;
    REQUIRE(r.next(rec));
    CHECK(rec.text(0) == "ID");
    CHECK(rec.text(1) == "x");
    REQUIRE(r.next(rec));
    CHECK(rec.line == 5);
    CHECK_FALSE(r.next(rec));
    CHECK(r.skipped_lines() == 3);
}

TEST_CASE("doubled quotes and line breaks inside a field are kept") {
    std::istringstream in("\"say \"\"hi\"\"\",\"two\nlines\"\n\"next\"\n");
    csv_records r(in, "x.csv");
    csv_record rec;
    REQUIRE(r.next(rec));
    CHECK(rec.text(0) == "say \"hi\"");
    CHECK(rec.text(1) == "two\nlines");
    REQUIRE(r.next(rec));
    CHECK(rec.line == 3);
}

TEST_CASE("text after a closing quote is an error at its column") {
    std::istringstream in("\"ok\",\"bad\"x,\"z\"\n");
    csv_records r(in, "x.csv");
    csv_record rec;
    try {
        r.next(rec);
        FAIL("expected an error");
    } catch (const input_error& e) {
        CHECK(e.code() == error_code::bad_quote);
        CHECK(std::string(e.what()).rfind("x.csv:1:11:", 0) == 0);
    }
}

TEST_CASE("an unclosed quote at the end of the file is an error naming its line") {
    std::istringstream in("\"a\",\"b\nc\n");
    csv_records r(in, "x.csv");
    csv_record rec;
    CHECK_THROWS_WITH_AS(r.next(rec), doctest::Contains("x.csv:1: a quoted field is not closed"), input_error);
}

TEST_CASE("a record's texts stay valid until the next record, across the reader's block boundaries") {
    // Rows of 3,000 bytes, enough of them to cross several 1 MiB reads: every field must come back whole.
    std::string text, field(2990, 'x');
    for (int i = 0; i < 1200; ++i) text += "\"" + std::to_string(i) + "\",\"" + field + "\"\n";
    std::istringstream in(text);
    csv_records r(in, "x.csv");
    csv_record rec;
    for (int i = 0; i < 1200; ++i) {
        REQUIRE(r.next(rec));
        REQUIRE(rec.size() == 2);
        CHECK(rec.text(0) == std::to_string(i));
        CHECK(rec.text(1) == field);
        CHECK(rec.line == std::size_t(i + 1));
    }
    CHECK_FALSE(r.next(rec));
}

namespace {

// A plain reference splitter for lines of quoted fields: the fields, or nothing when some field is
// not "..." with no quote inside (the shape the block splitter takes).
std::optional<std::vector<std::pair<std::string, std::size_t>>> reference_split(const std::string& line) {
    std::vector<std::pair<std::string, std::size_t>> out;
    std::size_t i = 0;
    while (true) {
        if (i >= line.size() || line[i] != '"') return std::nullopt;
        const std::size_t close = line.find('"', i + 1);
        if (close == std::string::npos) return std::nullopt;
        out.emplace_back(line.substr(i + 1, close - i - 1), i + 1);
        i = close + 1;
        if (i == line.size()) return out;
        if (line[i] != ',') return std::nullopt;
        ++i;
    }
}

}  // namespace

TEST_CASE("the 64-byte masks match a byte-by-byte scan") {
    std::mt19937 rng(7);
    const char alphabet[] = "\",a1 .\n";
    for (int trial = 0; trial < 2000; ++trial) {
        char block[64];
        for (char& c : block) c = alphabet[rng() % (sizeof alphabet - 1)];
        const auto fast = detail::scan_block(block), slow = detail::scan_block_bytes(block);
        CHECK(fast.quote == slow.quote);
        CHECK(fast.comma == slow.comma);
    }
    CHECK(detail::prefix_xor(0b1001) == 0b0111);
}

TEST_CASE("the block splitter agrees with a plain splitter on random lines, and declines every other shape") {
    std::mt19937 rng(11);
    const char alphabet[] = "\"\",,ab 1(";  // quotes and commas often, to make broken shapes
    std::size_t taken = 0, declined = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        std::string line;
        if (trial % 2 == 0) {  // well-formed: quoted fields with commas inside, of lengths around the 64-byte blocks
            const int fields = 1 + int(rng() % 40);
            for (int f = 0; f < fields; ++f) {
                line += f ? ",\"" : "\"";
                const int len = int(rng() % 70);
                for (int k = 0; k < len; ++k) line += "ab, 1("[rng() % 6];
                line += '"';
            }
            if (rng() % 4 == 0)
                line[rng() % line.size()] = alphabet[rng() % (sizeof alphabet - 1)];  // sometimes broken
        } else {
            const int len = int(rng() % 200);
            for (int k = 0; k < len; ++k) line += alphabet[rng() % (sizeof alphabet - 1)];
        }
        csv_record rec;
        const bool ok = detail::split_quoted_line(line, rec);
        const auto expected = reference_split(line);
        REQUIRE_MESSAGE(ok == expected.has_value(), line);
        if (!ok) {
            ++declined;
            continue;
        }
        ++taken;
        REQUIRE(rec.size() == expected->size());
        for (std::size_t f = 0; f < rec.size(); ++f) {
            CHECK(rec.text(f) == (*expected)[f].first);
            CHECK(rec.column(f) == (*expected)[f].second);
        }
    }
    CHECK(taken > 5000);
    CHECK(declined > 5000);
}
