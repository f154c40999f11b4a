#include "analyzer/base/input_error.hpp"
#include "analyzer/read/numbers.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <charconv>
#include <cstdint>
#include <random>
#include <string>

using namespace roofline;

namespace {
double num(const char* s, number_style st = number_style::point) {
    cell_value v = read_cell(s, st);
    REQUIRE(v.what == cell_value::kind::number);
    return v.number;
}
}  // namespace

TEST_CASE("grouped numbers as ncu prints them by default are read whole") {
    CHECK(num("2,112") == 2112);
    CHECK(num("294,760") == 294760);
    CHECK(num("2,822,202,090,592.33") == doctest::Approx(2822202090592.33));
    CHECK(num("16.000000") == 16.0);
    CHECK(num("-0.5") == -0.5);
}

TEST_CASE("plain numbers from an LC_ALL=C export read the same") {
    CHECK(num("2618107741.06") == doctest::Approx(2618107741.06));
    CHECK(num("1056") == 1056);
}

TEST_CASE("European grouping and decimal commas read under the comma style") {
    CHECK(num("27.595.520", number_style::comma) == 27595520);
    CHECK(num("65,77", number_style::comma) == doctest::Approx(65.77));
    CHECK(num("1.234,5", number_style::comma) == doctest::Approx(1234.5));
}

TEST_CASE("metric-instance cells give their aggregate") {
    CHECK(num("9,961,472 (2,097,152; 1,572,864; 0)") == 9961472);
    CHECK(num("9,961,472 (LDC: 2,097,152; ULDC: 1,572,864)") == 9961472);
    // --print-metric-instances values with no aggregate, as in examples/h100/kernels_raw_instances.csv
    CHECK(read_cell("(0.00; 0; 0)", number_style::point).what == cell_value::kind::missing);
}

TEST_CASE("missing markers and strings are not numbers") {
    for (const char* m : {"", "n/a", "nan", "no data", "N/A"})
        CHECK(read_cell(m, number_style::point).what == cell_value::kind::missing);
    for (const char* t : {"NVIDIA H100 80GB HBM3", "PolicySpread", "No-CC", "all", "12,3x", "1,23,4"})
        CHECK(read_cell(t, number_style::point).what == cell_value::kind::text);
}

TEST_CASE("style evidence: only unambiguous values decide") {
    CHECK(style_evidence("1,056") == number_style::unknown);
    CHECK(style_evidence("1.056") == number_style::unknown);
    CHECK(style_evidence("84.21") == number_style::point);
    CHECK(style_evidence("65,77") == number_style::comma);
    CHECK(style_evidence("2,822,202") == number_style::point);
    CHECK(style_evidence("27.595.520") == number_style::comma);
    CHECK(style_evidence("1.234,5") == number_style::comma);
    CHECK(style_evidence("42") == number_style::unknown);
}

TEST_CASE("a style contradiction inside one file is an error with both places") {
    number_reader r;
    r.observe("84.21", "a.csv", 3, 12);
    CHECK(r.style() == number_style::point);
    try {
        r.observe("65,77", "a.csv", 9, 4);
        FAIL("expected an error");
    } catch (const input_error& e) {
        CHECK(e.code() == error_code::bad_number);
        CHECK(std::string(e.what()).find("a.csv:9:4:") == 0);
        CHECK(std::string(e.what()).find("a.csv:3:12") != std::string::npos);
    }
}

TEST_CASE("a forced style rejects values of the other style") {
    number_reader r(number_style::comma);
    CHECK_THROWS_AS(r.observe("84.21", "a.csv", 1, 1), input_error);
    CHECK(r.read("1.056").number == 1056);
}

TEST_CASE("the one-pass reading of grouped and plain cells gives std::from_chars's double, bit for bit") {
    // Up to 20 digits with up to 12 decimals: the fast path (15 digits, 10^22) and past it.
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 100000; ++trial) {
        const int digits = 1 + int(rng() % 20);
        std::string plain;
        for (int d = 0; d < digits; ++d) plain += char('0' + rng() % 10);
        const int decimals = int(rng() % std::min(digits, 13));
        if (decimals) plain.insert(plain.size() - std::size_t(decimals), ".");
        if (plain[0] == '.') plain.insert(0, "0");
        if (rng() % 5 == 0) plain.insert(0, "-");
        double expected = 0;
        std::from_chars(plain.data(), plain.data() + plain.size(), expected);
        // The same value grouped as ncu prints it, in both styles.
        const std::size_t point = plain.find('.'), begin = plain[0] == '-' ? 1 : 0;
        std::string integer = plain.substr(0, point),
                    fraction = point == std::string::npos ? "" : plain.substr(point + 1);
        for (std::size_t at = integer.size(); at > begin + 3; at -= 3) integer.insert(at - 3, ",");
        const std::string grouped = integer + (fraction.empty() ? "" : "." + fraction);
        std::string european = grouped;
        for (char& c : european) c = c == ',' ? '.' : c == '.' ? ',' : c;
        INFO(plain, " ", grouped, " ", european);
        CHECK(std::bit_cast<std::uint64_t>(num(plain.c_str())) == std::bit_cast<std::uint64_t>(expected));
        CHECK(std::bit_cast<std::uint64_t>(num(grouped.c_str())) == std::bit_cast<std::uint64_t>(expected));
        CHECK(std::bit_cast<std::uint64_t>(num(european.c_str(), number_style::comma)) ==
              std::bit_cast<std::uint64_t>(expected));
    }
}
