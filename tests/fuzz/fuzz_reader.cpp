// libFuzzer target: the ncu CSV reader, every form. Bad input may only end in input_error.
#include "analyzer/base/input_error.hpp"
#include "analyzer/read/ncu_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        roofline::read_ncu_csv(in, "fuzz.csv", {}, [](roofline::launch_record&&) {});
    } catch (const roofline::input_error&) {
    }
    return 0;
}
