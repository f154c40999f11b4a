// libFuzzer target: the GPU spec loader. Bad input may only end in input_error.
#include "analyzer/base/input_error.hpp"
#include "models/gpu_spec.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)roofline::parse_gpu_spec(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    } catch (const roofline::input_error&) {
    }
    return 0;
}
