#include "models/capture_spec.hpp"

#include "analyzer/base/format.hpp"
#include "models/resources.hpp"

namespace roofline {

std::optional<capture_spec> spec_from_capture(const metric_values& metrics, const gpu_identity& id) {
    auto first = [&](std::initializer_list<const char*> ids) -> std::optional<std::pair<double, std::string>> {
        for (const char* m : ids)
            if (auto v = metrics.find(m); v && *v > 0) return std::make_pair(*v, std::string(m));
        return std::nullopt;
    };
    const auto sms = first({"device__attribute_multiprocessor_count", "launch__sm_count"});
    // The clock the counters were taken at is the one every measured peak is scaled by; the spec's
    // "boost" clock only scales spec figures, of which this spec has none.
    const auto sm_hz = first({"sm__cycles_elapsed.avg.per_second"});
    const auto dram_per_cycle = metrics.find("dram__bytes.sum.peak_sustained");
    const auto dram_hz = metrics.find("dram__cycles_elapsed.avg.per_second");
    if (!sms || !sm_hz || !dram_per_cycle || !dram_hz || *dram_per_cycle <= 0 || *dram_hz <= 0) return std::nullopt;

    capture_spec out;
    gpu_spec& s = out.spec;
    s.id = "from-capture";
    s.name = id.display_name.empty() ? "GPU of compute capability " + (id.cc.empty() ? std::string("?") : id.cc)
                                     : id.display_name;
    s.file = "(no spec file: made from the capture)";
    s.compute_capability = id.cc;
    if (!id.display_name.empty()) s.device_names = {id.display_name};
    s.sm_count = {sms->first, "measured: " + sms->second};
    s.boost_clock_mhz = {sm_hz->first / 1e6,
                         "measured: " + sm_hz->second + " (the clock of this capture, not the GPU's boost clock)"};
    const double dram_tbs = *dram_per_cycle * *dram_hz / 1e12;
    s.dram_bandwidth_tbs = {
        dram_tbs, "measured: dram__bytes.sum.peak_sustained x dram__cycles_elapsed.avg.per_second = " +
                      significant(*dram_per_cycle, 6) + " byte/cycle x " + significant(*dram_hz / 1e9, 4) + " GHz"};
    for (resource p : precisions())
        s.peaks_tflops[p] = {
            std::nullopt, "no spec file: only the capture's own peak counter for this precision, where it has one", {}};
    s.l2_mib = {std::nullopt, "no spec file", {}};
    s.l1_bytes_per_clock_per_sm = {std::nullopt, "no spec file", {}};
    s.l2_bytes_per_clock = {std::nullopt, "no spec file", {}};
    s.min_kernel_ns = {std::nullopt, "no spec file", {}};
    s.notes = "Made from the capture: no spec file matches this GPU.";
    out.unknown =
        "datasheet peaks (a precision the capture has no peak counter for has no roof), the boost clock (every peak is "
        "at the "
        "capture's own clock), and practical shares measured on this GPU (defaults are used)";
    return out;
}

capture_spec spec_without_peaks(const metric_values& metrics, const gpu_identity& id) {
    capture_spec out;
    gpu_spec& s = out.spec;
    s.id = unknown_gpu_id;
    s.name = id.display_name.empty() ? "GPU of compute capability " + (id.cc.empty() ? std::string("?") : id.cc)
                                     : id.display_name;
    s.file = "(none: no spec file could be chosen and the capture holds no peaks)";
    s.compute_capability = id.cc;
    const auto sms = metrics.find("launch__sm_count");
    s.sm_count = {sms.value_or(0.0), sms ? "measured: launch__sm_count" : "unknown"};
    s.boost_clock_mhz = {0.0, "unknown"};
    s.dram_bandwidth_tbs = {0.0, "unknown"};
    for (resource p : precisions()) s.peaks_tflops[p] = {std::nullopt, "unknown", {}};
    s.l2_mib = {std::nullopt, "unknown", {}};
    s.l1_bytes_per_clock_per_sm = {std::nullopt, "unknown", {}};
    s.l2_bytes_per_clock = {std::nullopt, "unknown", {}};
    s.min_kernel_ns = {std::nullopt, "unknown", {}};
    s.notes = "No spec: every peak is unknown";
    out.unknown = "every peak";
    return out;
}

}  // namespace roofline
