#include "analyzer/read/units.hpp"

#include <doctest/doctest.h>

using namespace roofline;

namespace {
void check_unit(const char* unit, double factor, const char* base) {
    CAPTURE(unit);
    auto s = to_base_unit(unit);
    REQUIRE(s.has_value());
    CHECK(s->factor == doctest::Approx(factor));
    CHECK(s->base == base);
}
}  // namespace

TEST_CASE("durations go to ns, in every spelling ncu has used") {
    check_unit("ns", 1, "ns");
    check_unit("us", 1e3, "ns");
    check_unit("ms", 1e6, "ns");
    check_unit("s", 1e9, "ns");
    check_unit("nsecond", 1, "ns");
    check_unit("usecond", 1e3, "ns");
    check_unit("msecond", 1e6, "ns");
}

TEST_CASE("sizes and frequencies use decimal prefixes") {
    check_unit("byte", 1, "byte");
    check_unit("Kbyte", 1e3, "byte");
    check_unit("Mbyte", 1e6, "byte");
    check_unit("Gbyte", 1e9, "byte");
    check_unit("Tbyte", 1e12, "byte");
    check_unit("hz", 1, "hz");
    check_unit("Khz", 1e3, "hz");
    check_unit("Mhz", 1e6, "hz");
    check_unit("Ghz", 1e9, "hz");
}

TEST_CASE("rates are per second and per-cycle forms keep their cycle") {
    check_unit("byte/s", 1, "byte/s");
    check_unit("Gbyte/s", 1e9, "byte/s");
    check_unit("Tbyte/s", 1e12, "byte/s");
    check_unit("byte/second", 1, "byte/s");
    check_unit("sector/ns", 1e9, "sector/s");
    check_unit("sector/us", 1e6, "sector/s");
    check_unit("cycle/nsecond", 1e9, "cycle/s");
    check_unit("Kbyte/cycle", 1e3, "byte/cycle");
    check_unit("inst/cycle", 1, "inst/cycle");
    check_unit("warp/cycle", 1, "warp/cycle");
    check_unit("Kbyte/block", 1e3, "byte/block");
    check_unit("%/Kbyte", 1e-3, "%/byte");
}

TEST_CASE("counts and percentages stay as they are") {
    for (const char* u :
         {"%", "cycle", "inst", "sector", "request", "warp", "thread", "block", "SM", "pass", "sample", "branches"})
        check_unit(u, 1, u);
    check_unit("sectors", 1, "sector");
    check_unit("", 1, "");
}

TEST_CASE("unknown units are reported, not guessed") {
    CHECK_FALSE(to_base_unit("furlong").has_value());
    CHECK_FALSE(to_base_unit("byte/fortnight").has_value());
}
