// The roofline of one kernel: for every resource it uses, the work it did, the peak of that
// resource at the clock the capture ran at, and two shares of the kernel's duration:
//   busy   (utilisation): how busy the unit was, as ncu sees it, waste included (replays, excess
//          sectors, bank-conflict wavefronts). It says what limits the kernel now (classify.hpp).
//   useful: the time the kernel's useful work needs at the unit's peak, over the duration. It sets
//          the floors: the useful work at the practical share of the peak (what well-written
//          kernels reach on this GPU) is the time no fix that keeps that work can beat.
// The largest useful share is `pct_of_roof`; the largest practical floor is `practical_floor_ns`.
// Never silent: where the capture lacks a counter a share needs (a details page has no FLOP or waste
// counters), the share is not guessed. A measured resource whose waste is not counted has a useful
// share between bounds (`useful_lo` .. `useful`, with the metrics that would decide it); a resource the
// capture has no counter for at all is `unmeasured`, its shares between 0 and what ncu's speed of light
// allows (the SM's or the memory's busiest unit). Every floor and verdict built on them carries the
// same bounds (the *_hi fields), and decides only what the bounds decide.
// docs/model.md explains each resource; docs/metrics.md each counter it reads.
#pragma once

#include "analyzer/base/pooled_string.hpp"
#include "models/gpu_spec.hpp"
#include "models/metric_view.hpp"
#include "models/resources.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

// One resource of one kernel. What kind of resource it is (memory level, FLOP roof, pipe) and
// whether it carries a floor is in its id's entry of models/resources.hpp.
// One figure a peak is read from, as a value (analyzer/report/text.hpp, peak_source_text, words it): the
// capture's own peak counters, or a spec file's figure scaled to the capture's clock.
struct peak_figure {
    enum class kind : std::uint8_t { none, counters, spec };
    enum class accumulate : std::uint8_t { unsaid, fp16, fp32 };
    kind from = kind::none;
    accumulate acc = accumulate::unsaid;  // spec: a tensor figure for FP16- or FP32-accumulate MMA
    bool estimated = false;               // spec: not published for this GPU, nor measured in the capture
    bool bandwidth = false;               // spec: TB/s (DRAM); TFLOP/s otherwise
    pooled_string what;                   // counters: the expression read (clock included); spec: the file
    pooled_string source;                 // spec: the figure's own source
    double figure = 0.0;                  // spec: as the file writes it
    double at_mhz = 0.0;                  // spec TFLOP/s: the clock it holds at (0: a bandwidth, or `acc` said)
};

// A tensor precision whose FP16- and FP32-accumulate rates differ on the GPU: the peak is the rate the
// kernel's own mix of the two reaches (flop_roofs.cpp, combined_rate).
struct accumulate_mix {
    peak_figure fp16, fp32;             // where each rate comes from
    double rate16 = 0.0, rate32 = 0.0;  // per second
    double ops = 0.0;
    std::optional<double> ops16;  // the ops with FP16 accumulate; nullopt: the capture does not split them
};

// Held by every resource of every kernel: the figure is pooled (one copy per distinct figure for the
// program's life: figures come from the specs and the counter names, never a kernel's own numbers), and
// only a mixed peak, which carries the kernel's op counts, has a copy of its own.
struct peak_origin {
    const peak_figure* figure = nullptr;        // null: no peak
    std::shared_ptr<const accumulate_mix> mix;  // where set, the peak mixes two rates (and `figure` is unused)
    bool empty() const { return !figure && !mix; }
    static const peak_figure* pooled(const peak_figure& wanted);
};

// How a resource's useful share was computed, as a value (analyzer/report/text.hpp, useful_formula_text,
// writes it with its metric names).
enum class useful_basis : std::uint8_t {
    busy,                  // the busy share: all the work it counts is useful
    l2_asked_less_excess,  // the sectors the SMs asked of L2, less the excess sectors of uncoalesced accesses
    l2_at_most_asked,      // at most the sectors asked: the excess is not known
    l2_at_most_busy,       // at most L2's busy share: neither the sectors asked nor the excess is known
    l1_wavefronts,         // LSU data-stage wavefronts less wgmma operand reads and shared-memory excess, with
                           // global wavefronts at what a coalesced pattern needs
    l1_at_most_busy,       // at most the busy share: L1's wavefront counters are missing
    dram_owed_writes,      // at least the busy share, at most that plus the writes its stores still owe
    stated_rate,           // the FLOP rate in whole percent that ncu's SOLFPRoofline rule states: within 0.5 point
};

struct resource_use {
    resource id = resource::sm;
    bool peak_estimated = false;     // the peak is a spec figure marked estimated (hwspecs "estimated": true)
    bool practical_default = false;  // the practical share is a default, not measured on this GPU
    double work = 0.0;               // FLOPs or bytes; 0 when only a utilisation is known
    double peak = 0.0;               // per second at the capture's clock; 0 when not applicable
    peak_origin peak_from;           // the capture's counters or the spec's figure
    double utilisation = 0.0;        // busy share (1.0 = busy all the time)
    double useful = 0.0;             // useful work at peak / duration
    pooled_string formula;           // how the busy share was computed, with metric names
    useful_basis useful_from = useful_basis::busy;  // how the useful share was computed
    double practical = 1.0;                         // share of the peak real kernels reach on this GPU
    double floor_ns = 0.0;                          // useful x duration / practical
    // Where the capture lacks what separates useful work from waste, `useful` (and `floor_ns`) is an
    // upper bound and these the lower one; `missing` names the metrics that would decide it.
    double useful_lo = 0.0, floor_lo_ns = 0.0;
    std::vector<pooled_string> missing;
    bool exact() const { return missing.empty(); }
    // The lower bounds to read: the values themselves where exact.
    double useful_min() const { return exact() ? useful : useful_lo; }
    double floor_min_ns() const { return exact() ? floor_ns : floor_lo_ns; }
};

// A resource of the GPU the capture has no counter for (a details page: no FLOP, pipe or waste
// counters): its busy and useful shares lie between 0 and `hi`, the busy share of ncu's speed of light
// that contains it (sm__throughput for compute, gpu__compute_memory_throughput for memory; 1 where the
// capture lacks that too).
struct unmeasured_resource {
    resource id = resource::sm;
    double hi = 1.0;
    double practical = 1.0;  // its practical share on this GPU: its floor is at most hi x duration / practical
    std::vector<pooled_string> missing;  // the metrics that would measure it
    double floor_hi_ns(double duration_ns) const { return hi * duration_ns / practical; }
};

// What L1's LSU data stage carried, in percent of its peak wavefront rate (one wavefront, up to
// 128 bytes, per cycle per SM), from l1tex__data_pipe_lsu_wavefronts and its shared-memory parts.
struct l1_traffic {
    double lsu = 0;     // every LSU data-stage wavefront, replays included
    double shared = 0;  // shared-memory wavefronts (loads, stores, atomics, wgmma operand reads)
    double shared_ld = 0, shared_atom = 0;
    double gmma_feed = 0;            // wgmma's operand reads from shared memory (the tensor pipe's feed)
    double shared_excess = 0;        // bank-conflict replays of shared loads, stores and atomics
    double shared_ld_conflicts = 0;  // the share of those that are shared-load conflicts
    double global = 0;               // global and local wavefronts (lsu - shared)
    // Global wavefronts a coalesced pattern would need over those measured: max(requests, ideal
    // sectors / 4) over the measured count (1 where unknown). A warp request needs at least one
    // wavefront, and a wavefront carries four sectors.
    double global_ideal_share = 1.0;
};

// What the capture lacks where a kernel is not placed on the roofline.
enum class lacking_input {
    nothing,    // placed
    duration,   // gpu__time_duration.sum
    gpu_peaks,  // no spec could be chosen for the GPU and the capture holds no peak counters
};

// What the model warns of, as values: analyzer/report/text.hpp (warning_text) words them.
enum class roof_warning_kind {
    peak_differs,  // resource's measured peak (value) differs from the spec's (spec_value) by over 10%
    above_roof,    // resource's useful share is above 1 even at its lower bound (value); against: what it
                   // was measured against (the peak's source, or the busy share's formula without a peak)
    no_peak,       // resource (a precision) did `value` FLOPs, but neither the capture nor the spec gives a peak
};

struct roof_warning {
    roof_warning_kind kind = roof_warning_kind::above_roof;
    resource id = resource::sm;
    double value = 0.0, spec_value = 0.0;
    pooled_string against;  // above_roof: the busy share's formula, where the resource has no peak
    peak_origin peak;       // above_roof: the peak it is above, where it has one
};

// Corrections the model made, as values: analyzer/report/text.hpp (note_text) words them.
enum class roof_note_kind {
    fp16_moves,    // value: the FP16 "FLOPs" of the HFMA/HADD/HMUL counters, all HFMA2.MMA register moves
    bf16_rate,     // the fp16 roof is the FP16 rate (value, TFLOP/s at boost); this GPU runs BF16 on the CUDA
                   // cores at spec_value (source), and the counters cannot tell the two apart
    l1_gmma_feed,  // value: the percent of L1's data-path peak that are wgmma operand reads from shared memory
};

struct roof_note {
    roof_note_kind kind = roof_note_kind::fp16_moves;
    double value = 0.0, spec_value = 0.0;
    pooled_string source;
};

struct kernel_roofline {
    bool placed = false;                             // false: no duration in the capture, or no peaks
    lacking_input missing = lacking_input::nothing;  // what is missing when not placed
    double duration_ns = 0.0;
    double sm_clock_hz = 0.0;
    const char* sm_clock_counter = nullptr;  // the counter the SM clock was read from; null: the spec's boost clock
    double dram_clock_hz = 0.0;
    std::vector<resource_use> resources;  // in a fixed order: precisions, pipes, issue, sm, memory levels
    double flops = 0.0;                   // all precisions together
    bool flops_counted = false;           // the capture holds every precision's FLOP counters (the details page none)
    std::optional<double> bytes_dram, bytes_l2, bytes_l1;
    // DRAM bytes read and written apart (dram__bytes_read.sum, dram__bytes_write.sum), where the
    // capture has them: the fusion finding matches one kernel's writes to the next one's reads.
    std::optional<double> bytes_dram_read, bytes_dram_written;
    // The bytes the kernel's global stores put in L2 (l1tex__t_sectors_pipe_lsu_mem_global_op_st x 32),
    // and the DRAM writes it owes: max(dram__bytes_write, stored bytes up to L2's capacity beyond it),
    // since stores still dirty in L2 at the kernel's end are written back after it. DRAM's work is
    // read + owed bytes.
    std::optional<double> bytes_stored, bytes_dram_owed_write;
    double floor_ns = 0.0;                      // the largest useful time at raw peak
    double pct_of_roof = 0.0;                   // floor / duration, in percent
    std::optional<resource> binding;            // the resource with the largest useful share
    double practical_floor_ns = 0.0;            // the largest floor at practical shares
    std::optional<resource> binding_practical;  // the resource that sets it
    // The tensor floor a Hopper details page proves without any tensor precision's op count: on the
    // wgmma path (derived__tensor_pipe_wgmma, sm__inst_executed_pipe_tensor_op_gmma, or the name) the kernel's
    // tensor precision ran at the MMA cycles' share of its peak; its floor is at least that share x
    // duration over the largest practical share of a tensor precision this GPU lists. Where it is the
    // largest proven floor it sets practical_floor_ns, with pipe_tensor as binding_practical.
    std::optional<double> stated_tensor_floor_ns;
    // What the capture does not decide: the resources it has no counter for, and the upper bounds of
    // the floors above (equal to them where every resource is measured exactly). The floors above are
    // then what the counters prove: the kernel needs at least that long.
    std::vector<unmeasured_resource> unmeasured;
    double floor_hi_ns = 0.0, pct_of_roof_hi = 0.0, practical_floor_hi_ns = 0.0;
    bool floors_exact() const { return practical_floor_hi_ns <= practical_floor_ns; }
    // Some work the capture leaves open: a floor between bounds, a share between bounds, or a resource without a
    // counter (roof_reading::least_work reads the same roofline otherwise).
    bool work_open() const {
        return !floors_exact() || !unmeasured.empty() ||
               std::any_of(resources.begin(), resources.end(), [](const resource_use& use) { return !use.exact(); });
    }
    // The metrics whose absence leaves a share or a floor open, sorted, each once.
    std::vector<std::string> missing_metrics() const;
    // Ceilings the chart draws beside the floors: L2 and L1 bandwidth from ncu's peak counters
    // (bytes per cycle x their clocks), and the issue rate with the warp instructions executed.
    std::optional<double> peak_l2_bytes_per_s, peak_l1_bytes_per_s;
    std::optional<double> warp_instructions;  // smsp__inst_executed.sum
    double issue_peak_per_s = 0.0;            // one warp instruction per scheduler per cycle: 4 x SMs x SM clock
    std::vector<roof_warning> warnings;       // above-roof points, spec disagreements
    std::vector<roof_note> notes;             // corrections the model made (HFMA2.MMA moves, wgmma operand feed)
    std::optional<l1_traffic> l1;             // where the raw page has the LSU wavefront counters
    // The excess global sectors that reached L2 (those L1 did not absorb), over the sectors the SMs
    // asked of L2; where the raw page has the counters.
    std::optional<double> l2_excess_share;

    const resource_use* find(resource id) const;
    const unmeasured_resource* find_unmeasured(resource id) const;
    const resource_use* find(const std::optional<resource>& id) const { return id ? find(*id) : nullptr; }
    // FLOP per byte at a memory level (dram, l2, l1); nullopt without FLOP counters or bytes.
    std::optional<double> intensity(resource level) const;
    // practical_floor_ns / duration: 1 = the kernel runs as fast as the best kernels reach.
    double roof_share() const { return duration_ns > 0 ? practical_floor_ns / duration_ns : 0.0; }
    double roof_share_hi() const { return duration_ns > 0 ? practical_floor_hi_ns / duration_ns : 0.0; }
};

// What a library kernel's name says that the model can use where the counters are missing
// (analyzer/read/kernel_origin.hpp): it issues warpgroup MMA (wgmma_named), which proves the tensor floor on
// a details page as the gmma counter or ncu's high-latency sentence does; and the one tensor precision its
// math runs in (a bf16 GEMM does no FP16, TF32 or FP8 MMA), whose practical share the floor then uses.
struct name_hints {
    bool wgmma = false;
    std::optional<resource> tensor_precision;
    bool no_mma = false;  // a kind of kernel that runs no tensor-core instruction (ATen's own)
};

// Which values an open share takes. `bounds`: its bounds, and every floor and verdict decides only what the
// bounds decide (the roofline the report shows). `least_work`: each resource at the least work its counters
// prove and no more: a share open between bounds at its lower bound (DRAM at the bytes it moved, no writes still
// owed; L1 and L2 at the useful work proven, none where the page has only their busy share; a FLOP rate at
// ncu's stated percent less its rounding), a resource the capture has no counter for at no work (the facts that
// ask whether it did any stay open). Only a provisional first finding reads it, where the bounds fire no rule
// node and leave some undecided (analyzer/diagnose/diagnose.cpp); the nodes they left undecided are named
// beside it.
enum class roof_reading : std::uint8_t { bounds, least_work };

// Builds the roofline from a kernel's metrics and the spec of the GPU it ran on.
kernel_roofline build_roofline(const metric_view& metrics, const gpu_spec& spec, const name_hints& named = {},
                               roof_reading reading = roof_reading::bounds);

// A precision's peak from the spec (TFLOP/s at the clock it holds at), scaled to `sm_clock_hz`, per
// second; nullopt where the spec gives none.
std::optional<double> spec_peak_per_second(const gpu_spec& spec, resource precision, double sm_clock_hz);

// The practical share of a resource on a GPU and where it comes from: the spec's measured
// figure; else, for a tensor precision, the mean of the GPU's measured tensor shares (same pipe,
// same operand feed); else a default, the H100 SXM's measured share of the same roof (the table and
// its reason are in roofline_model.cpp); else 1 (the raw peak: estimates stay upper bounds).
// Where a practical share comes from (analyzer/report/text.hpp, practical_source_text, words it).
enum class practical_origin : unsigned char {
    spec,                 // measured on this GPU: hwspecs practical_fraction (`source` cites it)
    tensor_mean,          // none measured for this tensor precision: the mean of this GPU's measured tensor
                          // shares (`from`): the same pipe and the same operand feed
    default_share,        // not measured on this GPU: the default (models/roofline_model.cpp, default_practical)
    default_tensor_mean,  // no default either: the mean of the default tensor shares
    raw_peak,             // measured nowhere: the raw peak (estimates stay upper bounds)
};

struct practical_choice {
    double share = 1.0;
    practical_origin origin = practical_origin::raw_peak;
    std::string source;          // spec: the hwspecs file's source of the figure
    std::vector<resource> from;  // tensor_mean: the measured tensor precisions averaged
    bool is_default = false;     // a stand-in measured on another GPU, not on this one
};
practical_choice practical_share_of(const gpu_spec& spec, resource id);

// The resources whose practical share on this GPU is a default, in resource order.
std::vector<resource> default_practical_resources(const gpu_spec& spec);

}  // namespace roofline
