#include "analyzer/diagnose/fusion.hpp"

#include "analyzer/pipeline/analysis.hpp"
#include "analyzer/diagnose/diagnose.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::rules {
namespace {

// How close one kernel's DRAM writes and the next one's DRAM reads must be to count as the
// same buffer passed along.
constexpr double same_buffer_tolerance = 0.25;

std::optional<double> number(const kernel_result& k, const char* id) {
    auto it = k.group.numbers.find(id);
    return it == k.group.numbers.end() ? std::nullopt : std::optional<double>(it->second);
}

bool dram_bound(const kernel_result& k) { return k.verdict.bound == "memory" && k.verdict.limiter == "dram"; }

bool passes_buffer(const kernel_result& from, const kernel_result& to) {
    if (from.group.launches != to.group.launches || from.group.grid_size != to.group.grid_size ||
        from.group.block_size != to.group.block_size)
        return false;
    auto written = number(from, "dram__bytes_write.sum"), read = number(to, "dram__bytes_read.sum");
    if (!written || !read || *written <= 0 || *read <= 0) return false;
    return std::abs(*read - *written) <= same_buffer_tolerance * *written;
}

std::string short_name(const std::string& n) { return n.substr(0, n.find('(')); }

}  // namespace

void add_fusion_candidates(std::vector<kernel_result>& kernels, const gpu_spec& spec) {
    auto practical = spec.practical_fraction.find("dram");
    for (std::size_t i = 0; i < kernels.size();) {
        std::size_t j = i;
        while (j + 1 < kernels.size() && dram_bound(kernels[j]) && dram_bound(kernels[j + 1]) && passes_buffer(kernels[j], kernels[j + 1])) ++j;
        if (j == i) {
            ++i;
            continue;
        }
        kernel_result& first = kernels[i];
        double chain_ns = 0.0, chain_bytes = 0.0, kept_on_chip = 0.0;
        std::string names;
        for (std::size_t k = i; k <= j; ++k) {
            chain_ns += kernels[k].roof.duration_ns;
            chain_bytes += kernels[k].roof.bytes_dram.value_or(0.0);
            names += (names.empty() ? "" : " + ") + short_name(kernels[k].group.name);
            // The buffer passed from k to k+1 is written once and read once: both trips go.
            if (k < j) kept_on_chip += 2.0 * std::min(*number(kernels[k], "dram__bytes_write.sum"), *number(kernels[k + 1], "dram__bytes_read.sum"));
        }
        finding f;
        f.id = "fusion-candidate";
        f.tree = "workload";
        f.node = "fusion-candidate";
        f.title = "Consecutive DRAM-bound kernels pass a buffer through DRAM";
        f.explain = "The next " + std::to_string(j - i) + " kernel(s) (" + names +
                    ") run right after this one on the same grid, each bound by DRAM, and each reads about as many bytes as the one before "
                    "wrote: the shape of a chain of passes over one buffer. If each does read the previous one's output (the counters cannot "
                    "tell; the source can), one fused kernel keeps the intermediates in registers and only the first read and the last "
                    "write touch DRAM. The estimate is for the whole run of kernels.";
        f.evidence = {{"kernels in the run", double(j - i + 1)},
                      {"DRAM bytes of the run", chain_bytes},
                      {"DRAM bytes through the intermediate buffers (written once, read once)", kept_on_chip},
                      {"time of the run (ns)", chain_ns}};
        f.fixes = {"Fuse the run into one kernel that reads the input once, applies every step in registers, and writes the result once.",
                   "If the steps come from a framework, let its compiler fuse them (torch.compile, XLA, a fused epilogue)."};
        const resource_use* dram = first.roof.find("dram");
        if (dram && dram->peak > 0 && practical != spec.practical_fraction.end() && practical->second.value && chain_bytes > kept_on_chip) {
            f.estimate_why = "Fused, the run reads its input once and writes its result once: the DRAM bytes of the run less both trips of every "
                             "intermediate buffer, at the practical DRAM share. The estimate is for the whole run.";
            f.estimate_changes = {"dram (whole run) = DRAM bytes of the run - bytes through the intermediates"};
            f.binds_after = "dram";
            double after = std::min(1e9 * (chain_bytes - kept_on_chip) / (dram->peak * *practical->second.value), chain_ns);
            f.est_time_after_ns = after;
            f.est_speedup = chain_ns / after;
            f.est_time_saved_ns = chain_ns - after;
        }
        visited_node v;
        v.tree = "workload";
        v.node = "fusion-candidate";
        v.title = f.title;
        v.result = visited_node::outcome::fired;
        for (const auto& e : f.evidence) v.values.push_back(e);
        first.diagnosis.path.push_back(std::move(v));
        first.diagnosis.findings.push_back(std::move(f));
        settle_findings(first.diagnosis, first, spec);
        i = j + 1;
    }
}

}  // namespace roofline::rules
