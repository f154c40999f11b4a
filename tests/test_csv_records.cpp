#include "analyzer/base/input_error.hpp"
#include "analyzer/read/csv_records.hpp"

#include <doctest/doctest.h>

#include <sstream>

using namespace roofline;

TEST_CASE("quoted fields keep their commas and report their columns") {
    std::istringstream in("\"0\",\"copy_vec4(const float4 *, float4 *, unsigned long)\",\"2,112\"\n");
    csv_records r(in, "x.csv");
    csv_record rec;
    REQUIRE(r.next(rec));
    REQUIRE(rec.fields.size() == 3);
    CHECK(rec.fields[1].text == "copy_vec4(const float4 *, float4 *, unsigned long)");
    CHECK(rec.fields[2].text == "2,112");
    CHECK(rec.fields[2].column == 58);
    CHECK(rec.line == 1);
}

TEST_CASE("a trailing comma, as on details metric rows, ends with an empty field") {
    std::istringstream in("\"a\",\"b\",\n");
    csv_records r(in, "x.csv");
    csv_record rec;
    REQUIRE(r.next(rec));
    CHECK(rec.fields.size() == 3);
    CHECK(rec.fields[2].text.empty());
}

TEST_CASE("lines that are not ncu CSV rows are skipped and counted") {
    std::istringstream in("==PROF== Connected to process 631\nseed 42\n\"ID\",\"x\"\r\n==PROF== Disconnected\n\"1\",\"2\"\n");
    csv_records r(in, "x.csv");
    csv_record rec;
    REQUIRE(r.next(rec));
    CHECK(rec.fields[0].text == "ID");
    CHECK(rec.fields[1].text == "x");
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
    CHECK(rec.fields[0].text == "say \"hi\"");
    CHECK(rec.fields[1].text == "two\nlines");
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
