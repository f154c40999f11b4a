#include "analyzer/diagnose/fusion.hpp"

#include "analyzer/diagnose/fact_table.hpp"
#include "analyzer/read/kernel_names.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::diagnose {
namespace {

bool dram_bound(const kernel_result& k) {
    return k.verdict.bound == bound::memory && k.verdict.limiter == resource::dram;
}

bool passes_buffer(const kernel_result& from, const kernel_result& to) {
    if (from.group.launches != to.group.launches || from.group.grid_size != to.group.grid_size ||
        from.group.block_size != to.group.block_size)
        return false;
    auto written = from.roof.bytes_dram_owed_write ? from.roof.bytes_dram_owed_write : from.roof.bytes_dram_written;
    auto read = to.roof.bytes_dram_read;
    if (!written || !read || *written <= 0 || *read <= 0) return false;
    return std::abs(*read - *written) <= fusion_rule::same_buffer_tolerance * *written;
}

bool close(double a, double b) { return std::abs(a - b) <= fusion_rule::same_buffer_tolerance * std::max(a, b); }

// Variants of one operation (several implementations captured side by side, the normal way to compare
// them) read about the same bytes as each other and write about the same bytes as each other. A chain
// of passes over one buffer can look the same (each reads what the last wrote, of the same size): the
// counters cannot tell them apart, so such a run is named, but below every finding of its own kernel.
bool look_like_variants(const kernel_result& a, const kernel_result& b) {
    auto ra = a.roof.bytes_dram_read, rb = b.roof.bytes_dram_read;
    auto wa = a.roof.bytes_dram_owed_write ? a.roof.bytes_dram_owed_write : a.roof.bytes_dram_written;
    auto wb = b.roof.bytes_dram_owed_write ? b.roof.bytes_dram_owed_write : b.roof.bytes_dram_written;
    return ra && rb && wa && wb && close(*ra, *rb) && close(*wa, *wb);
}

evidence_value figure(evidence_kind k, double v) { return {"", v, value_type::number, k}; }

// The finding for kernels[i..j], a run that passes a buffer along.
finding run_finding(const std::vector<const kernel_result*>& kernels, std::size_t i, std::size_t j,
                    const gpu_spec& spec) {
    double chain_ns = 0.0, chain_bytes = 0.0, kept_on_chip = 0.0;
    finding f;
    for (std::size_t k = i; k <= j; ++k) {
        chain_ns += kernels[k]->roof.duration_ns;
        chain_bytes += kernels[k]->roof.bytes_dram.value_or(0.0);
        f.run_kernels.push_back(short_name(kernels[k]->group.name));
        // The buffer passed from k to k+1 is written once and read once: both trips go.
        if (k < j)
            kept_on_chip +=
                2.0 * std::min(kernels[k]->roof.bytes_dram_owed_write.value_or(*kernels[k]->roof.bytes_dram_written),
                               *kernels[k + 1]->roof.bytes_dram_read);
    }
    f.id = fusion_rule::id;
    f.tree = "workload";
    f.node = fusion_rule::id;
    f.engine = engine_finding::fusion_run;
    // A run of a framework's kernels (ATen, Triton, CuPy) is fused by its compiler, not by hand.
    f.framework_run = std::all_of(
        kernels.begin() + std::ptrdiff_t(i), kernels.begin() + std::ptrdiff_t(j) + 1, [](const kernel_result* k) {
            const auto o = k->origin.kind;
            return o == origin_kind::aten || o == origin_kind::triton || o == origin_kind::cupy;
        });
    bool variants = false;
    for (std::size_t k = i; k < j; ++k) variants = variants || look_like_variants(*kernels[k], *kernels[k + 1]);
    f.below_kernel_findings = variants;
    f.evidence = {
        figure(evidence_kind::run_kernels, double(j - i + 1)), figure(evidence_kind::run_dram_bytes, chain_bytes),
        figure(evidence_kind::run_intermediate_bytes, kept_on_chip), figure(evidence_kind::run_time_ns, chain_ns)};
    const resource_use* dram = kernels[i]->roof.find(resource::dram);
    const double practical = practical_share_of(spec, resource::dram).share;  // measured, or the default
    if (dram && dram->peak > 0 && chain_bytes > kept_on_chip) {
        f.binds_after = {after_bound_kind::resource, resource::dram};
        double after = std::min(1e9 * (chain_bytes - kept_on_chip) / (dram->peak * practical), chain_ns);
        f.est_time_after_ns = after;
        f.est_speedup = chain_ns / after;
        f.est_time_saved_ns = chain_ns - after;
    }
    return f;
}

}  // namespace

std::vector<workload_finding> fusion_candidates(const std::vector<const kernel_result*>& kernels,
                                                const gpu_spec& spec) {
    std::vector<workload_finding> out;
    for (std::size_t i = 0; i < kernels.size();) {
        std::size_t j = i;
        while (j + 1 < kernels.size() && dram_bound(*kernels[j]) && dram_bound(*kernels[j + 1]) &&
               passes_buffer(*kernels[j], *kernels[j + 1]))
            ++j;
        if (j == i) {
            ++i;
            continue;
        }
        workload_finding w;
        w.kernel = i;
        w.what = run_finding(kernels, i, j, spec);
        w.path.tree = "workload";
        w.path.node = fusion_rule::id;
        w.path.result = visited_node::outcome::fired;
        w.path.values = w.what.evidence;
        out.push_back(std::move(w));
        i = j + 1;
    }
    return out;
}

}  // namespace roofline::diagnose
