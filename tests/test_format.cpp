// The one number style of every report: three significant digits, SI prefixes, no exponent.
#include "analyzer/base/format.hpp"

#include <doctest/doctest.h>

using namespace roofline;

TEST_CASE("numbers have three significant digits and an SI prefix, never an exponent") {
    CHECK(format_number(996376) == "996k");
    CHECK(format_number(1.13e6) == "1.13M");
    CHECK(format_number(3.352e12) == "3.35T");
    CHECK(format_number(16389) == "16.4k");
    CHECK(format_number(999.6) == "1.00k");  // the prefix is chosen after rounding
    CHECK(format_number(0.15) == "0.150");
    CHECK(format_number(0.00081) == "0.000810");
    CHECK(format_number(-2.5) == "-2.50");
    CHECK(format_number(4) == "4");  // a count under a thousand is written whole
    CHECK(format_number(132) == "132");
    CHECK(format_number(0) == "0");
}

TEST_CASE("quantities with units share the prefix, and round before choosing it") {
    CHECK(format_si(117964800, "B") == "118 MB");
    CHECK(format_si(3.352e12, "B/s") == "3.35 TB/s");
    CHECK(format_si(999600, "B") == "1.00 MB");
    CHECK(format_si(3, "B") == "3.00 B");
    CHECK(format_duration_ns(0) == "0 ns");
    CHECK(format_duration_ns(999.7) == "1.00 us");
    CHECK(format_duration_ns(1.81e6) == "1.81 ms");
    CHECK(format_percent(0.853) == "85.3%");
    CHECK(format_times(36.29) == "36.3x");
}
