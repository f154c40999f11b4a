// libFuzzer target: the trace reader (any form trace_file tells apart; a gzip header goes through
// zlib), then the model, the findings and the JSON and markdown reports of what it read. Bad input
// may only end in input_error.
#include "analyzer/base/input_error.hpp"
#include "analyzer/timeline/timeline_report.hpp"
#include "analyzer/timeline/trace_file.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // The readers take a path (they stream the file): one file per fuzzing process, rewritten each run.
    static const std::string path = "/tmp/roofline-fuzz-timeline-" + std::to_string(::getpid()) + ".json";
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        auto t = roofline::timeline::read_trace_file(path);
        const auto model = roofline::timeline::model_timeline(t, 10'000);
        roofline::timeline::timeline_report r;
        r.model = &model;
        r.findings = roofline::timeline::timeline_findings(model);
        (void)roofline::timeline::timeline_json(r);
        (void)roofline::timeline::timeline_markdown(r);
    } catch (const roofline::input_error&) {
    }
    std::remove(path.c_str());  // nothing left in /tmp once the fuzzer stops
    return 0;
}
