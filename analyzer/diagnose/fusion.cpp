#include "analyzer/diagnose/fusion.hpp"

#include "analyzer/diagnose/fact_table.hpp"
#include "analyzer/read/kernel_names.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::diagnose {
namespace {

bool dram_bound(const kernel_result& kernel) {
    return kernel.verdict.bound == bound::memory && kernel.verdict.limiter == resource::dram;
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

bool close(double first, double second) {
    return std::abs(first - second) <= fusion_rule::same_buffer_tolerance * std::max(first, second);
}

// Variants of one operation (several implementations captured side by side, the normal way to compare
// them) read about the same bytes as each other and write about the same bytes as each other. A chain
// of passes over one buffer can look the same (each reads what the last wrote, of the same size): the
// counters cannot tell them apart, so such a run is named, but below every finding of its own kernel.
bool look_like_variants(const kernel_result& first, const kernel_result& second) {
    auto read_first = first.roof.bytes_dram_read, read_second = second.roof.bytes_dram_read;
    auto written_first =
        first.roof.bytes_dram_owed_write ? first.roof.bytes_dram_owed_write : first.roof.bytes_dram_written;
    auto written_second =
        second.roof.bytes_dram_owed_write ? second.roof.bytes_dram_owed_write : second.roof.bytes_dram_written;
    return read_first && read_second && written_first && written_second && close(*read_first, *read_second) &&
           close(*written_first, *written_second);
}

evidence_value figure(evidence_kind kind, double value) { return {"", value, value_type::number, kind}; }

// The finding for kernels[first..last], a run that passes a buffer along.
finding run_finding(const std::vector<const kernel_result*>& kernels, std::size_t first, std::size_t last,
                    const gpu_spec& spec) {
    double chain_ns = 0.0, chain_bytes = 0.0, kept_on_chip = 0.0;
    finding found;
    for (std::size_t i = first; i <= last; ++i) {
        chain_ns += kernels[i]->roof.duration_ns;
        chain_bytes += kernels[i]->roof.bytes_dram.value_or(0.0);
        found.run_kernels.push_back(short_name(kernels[i]->group.name));
        // The buffer passed from i to i+1 is written once and read once: both trips go.
        if (i < last)
            kept_on_chip +=
                2.0 * std::min(kernels[i]->roof.bytes_dram_owed_write.value_or(*kernels[i]->roof.bytes_dram_written),
                               *kernels[i + 1]->roof.bytes_dram_read);
    }
    found.id = fusion_rule::id;
    found.tree = "workload";
    found.node = fusion_rule::id;
    found.engine = engine_finding::fusion_run;
    // A run of a framework's kernels (ATen, Triton, CuPy) is fused by its compiler, not by hand.
    found.framework_run = std::all_of(kernels.begin() + std::ptrdiff_t(first),
                                      kernels.begin() + std::ptrdiff_t(last) + 1, [](const kernel_result* run_kernel) {
                                          const auto origin = run_kernel->origin.kind;
                                          return origin == origin_kind::aten || origin == origin_kind::triton ||
                                                 origin == origin_kind::cupy;
                                      });
    bool variants = false;
    for (std::size_t i = first; i < last; ++i) variants = variants || look_like_variants(*kernels[i], *kernels[i + 1]);
    found.below_kernel_findings = variants;
    found.evidence = {figure(evidence_kind::run_kernels, double(last - first + 1)),
                      figure(evidence_kind::run_dram_bytes, chain_bytes),
                      figure(evidence_kind::run_intermediate_bytes, kept_on_chip),
                      figure(evidence_kind::run_time_ns, chain_ns)};
    const resource_use* dram = kernels[first]->roof.find(resource::dram);
    const double practical = practical_share_of(spec, resource::dram).share;  // measured, or the default
    if (dram && dram->peak > 0 && chain_bytes > kept_on_chip) {
        found.binds_after = {after_bound_kind::resource, resource::dram};
        double after = std::min(1e9 * (chain_bytes - kept_on_chip) / (dram->peak * practical), chain_ns);
        found.est_time_after_ns = after;
        found.est_speedup = chain_ns / after;
        found.est_time_saved_ns = chain_ns - after;
    }
    return found;
}

}  // namespace

std::vector<workload_finding> fusion_candidates(const std::vector<const kernel_result*>& kernels,
                                                const gpu_spec& spec) {
    std::vector<workload_finding> out;
    for (std::size_t i = 0; i < kernels.size();) {
        std::size_t last = i;
        while (last + 1 < kernels.size() && dram_bound(*kernels[last]) && dram_bound(*kernels[last + 1]) &&
               passes_buffer(*kernels[last], *kernels[last + 1]))
            ++last;
        if (last == i) {
            ++i;
            continue;
        }
        workload_finding fused_run;
        fused_run.kernel = i;
        fused_run.what = run_finding(kernels, i, last, spec);
        fused_run.path.tree = "workload";
        fused_run.path.node = fusion_rule::id;
        fused_run.path.result = visited_node::outcome::fired;
        fused_run.path.values = fused_run.what.evidence;
        out.push_back(std::move(fused_run));
        i = last + 1;
    }
    return out;
}

}  // namespace roofline::diagnose
