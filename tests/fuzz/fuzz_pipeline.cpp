// libFuzzer target: the whole pipeline on one input (the H100 spec forced, so inputs without a
// device name still reach the model), then every printer. Bad input may only end in input_error.
#include "analyzer/base/input_error.hpp"
#include "analyzer/pipeline/analysis.hpp"
#include "analyzer/report/report.hpp"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    roofline::analyze_options options;
    options.gpu = "h100-sxm";
    try {
        const roofline::analysis a = roofline::analyze(in, "fuzz.csv", options);
        for (const auto& f : roofline::report_formats()) (void)f.print(a, {});
    } catch (const roofline::input_error&) {
    }
    return 0;
}
