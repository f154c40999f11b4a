#include "models/capture_spec.hpp"

#include "analyzer/base/format.hpp"
#include "models/resources.hpp"

namespace roofline {

std::optional<capture_spec> spec_from_capture(const metric_values& metrics, const gpu_identity& id) {
    auto first = [&](std::initializer_list<const char*> ids) -> std::optional<std::pair<double, std::string>> {
        for (const char* metric_id : ids)
            if (auto value = metrics.find(metric_id); value && *value > 0)
                return std::make_pair(*value, std::string(metric_id));
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
    gpu_spec& spec = out.spec;
    spec.id = "from-capture";
    spec.name = id.display_name.empty() ? "GPU of compute capability " + (id.cc.empty() ? std::string("?") : id.cc)
                                        : id.display_name;
    spec.file = "(no spec file: made from the capture)";
    spec.compute_capability = id.cc;
    if (!id.display_name.empty()) spec.device_names = {id.display_name};
    spec.sm_count = {sms->first, "measured: " + sms->second};
    spec.boost_clock_mhz = {sm_hz->first / 1e6,
                            "measured: " + sm_hz->second + " (the clock of this capture, not the GPU's boost clock)"};
    const double dram_tbs = *dram_per_cycle * *dram_hz / 1e12;
    spec.dram_bandwidth_tbs = {
        dram_tbs, "measured: dram__bytes.sum.peak_sustained x dram__cycles_elapsed.avg.per_second = " +
                      significant(*dram_per_cycle, 6) + " byte/cycle x " + significant(*dram_hz / 1e9, 4) + " GHz"};
    for (resource precision : precisions())
        spec.peaks_tflops[precision] = {
            std::nullopt, "no spec file: only the capture's own peak counter for this precision, where it has one", {}};
    spec.l2_mib = {std::nullopt, "no spec file", {}};
    spec.l1_bytes_per_clock_per_sm = {std::nullopt, "no spec file", {}};
    spec.l2_bytes_per_clock = {std::nullopt, "no spec file", {}};
    spec.min_kernel_ns = {std::nullopt, "no spec file", {}};
    spec.notes = "Made from the capture: no spec file matches this GPU.";
    out.unknown =
        "datasheet peaks (a precision the capture has no peak counter for has no roof), the boost clock (every peak is "
        "at the "
        "capture's own clock), and practical shares measured on this GPU (defaults are used)";
    return out;
}

capture_spec spec_without_peaks(const metric_values& metrics, const gpu_identity& id) {
    capture_spec out;
    gpu_spec& spec = out.spec;
    spec.id = unknown_gpu_id;
    spec.name = id.display_name.empty() ? "GPU of compute capability " + (id.cc.empty() ? std::string("?") : id.cc)
                                        : id.display_name;
    spec.file = "(none: no spec file could be chosen and the capture holds no peaks)";
    spec.compute_capability = id.cc;
    const auto sms = metrics.find("launch__sm_count");
    spec.sm_count = {sms.value_or(0.0), sms ? "measured: launch__sm_count" : "unknown"};
    spec.boost_clock_mhz = {0.0, "unknown"};
    spec.dram_bandwidth_tbs = {0.0, "unknown"};
    for (resource precision : precisions()) spec.peaks_tflops[precision] = {std::nullopt, "unknown", {}};
    spec.l2_mib = {std::nullopt, "unknown", {}};
    spec.l1_bytes_per_clock_per_sm = {std::nullopt, "unknown", {}};
    spec.l2_bytes_per_clock = {std::nullopt, "unknown", {}};
    spec.min_kernel_ns = {std::nullopt, "unknown", {}};
    spec.notes = "No spec: every peak is unknown";
    out.unknown = "every peak";
    return out;
}

}  // namespace roofline
