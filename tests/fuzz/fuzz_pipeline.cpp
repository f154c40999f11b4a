// libFuzzer target: the whole pipeline on one input, then every printer. Bad input may only end in
// input_error. The last byte picks the GPU: none (the capture's own device, or its peaks), or one of
// several forced specs, so inputs without a device name still reach the model on every chip family.
#include "analyzer/base/input_error.hpp"
#include "analyzer/pipeline/analysis.hpp"
#include "analyzer/report/report.hpp"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    static const char* const gpus[] = {"",     "h100-sxm", "h200",     "a100-sxm4-80gb",
                                       "b200", "rtx-5090", "rtx-4090", "l40s"};
    roofline::analyze_options options;
    options.gpu = gpus[size ? data[size - 1] % (sizeof gpus / sizeof gpus[0]) : 0];
    try {
        const roofline::analysis a = roofline::analyze(in, "fuzz.csv", options);
        for (const auto& f : roofline::report_formats()) (void)f.print(a, {});
    } catch (const roofline::input_error&) {
    }
    return 0;
}
