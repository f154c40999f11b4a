// The metric catalogue (analyzer/base/metrics.json, compiled in): every quantity the engine reads or a
// rule may name, by its ncu metric id, with its unit, meaning, pitfalls, the section that collects it,
// and how each chip counts it. Ids are Hopper's names; a chip that names a quantity otherwise (GB20x's
// dram__bytes_op_read), sums it from several counters (FP16 tensor ops by accumulate type), lacks the
// unit (no wgmma before or after Hopper: the value is 0) or lacks a counter for it (the value is
// unknown there) says so in the entry's `on`. The reader maps every chip's names onto the ids
// (analyzer/read/chip_names.hpp), so nothing downstream knows which chip named what. Rule files are
// type-checked against the ids; `roofline explain` and docs/metrics.md (analyzer/report/reference.hpp)
// read them; tests/test_metric_names.cpp holds every name against ncu's own listing for each chip.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

// A chip family whose counter names the catalogue knows: one compute capability. ncu chooses names by
// CC alone (its section files filter with MinArch / MaxArch), so one chip's listing covers the CC.
struct chip {
    std::string id;                                 // "gh100"
    std::vector<std::string> compute_capabilities;  // as the CC column writes them: "9.0"
    std::string ncu_arch;                           // as section files write it: "CC_90"
    std::string listing;                            // the chip of tests/data/ncu_metric_names/<listing>.txt
    std::string gpus;                               // "H100, H200, GH200"
    int arch_number() const;                        // 90 for CC_90: ncu's filters compare these
};

// How one chip counts a catalogue quantity.
struct chip_form {
    enum class kind {
        same,      // the catalogue id itself
        counters,  // scale x the sum of `counters` (another name where there is one)
        zero,      // the chip has no such unit: the value is 0
        none,      // the chip has the unit but no counter for it: unknown on this chip
    };
    kind what = kind::same;
    std::vector<std::string> counters;
    double scale = 1.0;
    std::string why;  // zero, none
};

enum class metric_kind {
    counter,    // a hardware counter with its rollup: in `ncu --query-metrics` for every chip that has it
    attribute,  // a launch or device attribute or ncu's occupancy calculator: no counter, present for every chip
    derived,    // an ncu MetricDefinition (derived__*): computed from `from`, or defined by a section file
};

// A derived metric that ncu computes from SASS-level source metrics (SourceCounters): a section file
// defines it, --metrics cannot ask for it.
struct source_definition {
    std::vector<std::string> inputs;  // source metrics ("memory_l2_theoretical_sectors_global")
    std::string expression;           // ncu's MetricDefinition expression over them
    std::string stock_section;        // the stock section that defines it ("SourceCounters")
};

struct metric_entry {
    std::string id;    // exactly as the raw page's header writes it on a GH100
    std::string unit;  // base unit ("" for counts and ratios)
    std::string meaning;
    std::string pitfall;       // "" when none is known
    std::string collected_by;  // the Nsight Compute section(s)
    metric_kind kind = metric_kind::counter;
    std::optional<chip_form> from;        // derived: the base counters it is computed from on every chip
    std::map<std::string, chip_form> on;  // by chip id: where a chip counts it otherwise
    std::optional<source_definition> source;
    // The ncu rule whose sentence on a details page states it (analyzer/read/ncu_rule_values.hpp): never a
    // column, so never planned; "" for every metric a page lists.
    std::string stated_by;

    // How `target_chip` counts it (nullptr: a chip the catalogue does not know, read by the ids themselves).
    const chip_form& form_on(const chip* target_chip) const;
};

// Metrics the engine reads by prefix, because which exist differs by chip (one per tensor path).
struct metric_family {
    std::string prefix;
    std::string suffix;  // "" for any ending
    std::string example;
    std::string meaning;
    std::string collected_by;
    std::string not_planned;  // why `roofline metrics` leaves the family out ("" where it plans it)
    std::map<std::string, std::vector<std::string>> members;  // by chip id: the family's metrics on that chip
    bool matches(std::string_view id) const;
};

const std::vector<chip>& chips();
const chip* find_chip(std::string_view id);
// The chip of a capture's CC column ("9.0"); nullptr for a CC the catalogue has no names for.
const chip* chip_for_cc(std::string_view cc);
// "9.0" for a spec's compute capability written "9.0" or "9"; as given otherwise.
std::string normal_cc(std::string_view cc);

// In id order.
const std::vector<metric_entry>& metric_catalogue();
const metric_entry* find_metric(const std::string& id);
const std::vector<metric_family>& metric_families();
// Whether any stage reads the metric: a catalogue id, a counter some chip counts a catalogue quantity
// with, or a member of a family. The kernel table keeps only these (a --set full capture has some
// 2,200 metrics; the engine reads ~160).
bool engine_reads(std::string_view id);
// The metric ids a chip's capture holds a catalogue quantity under: the id itself, or the counters
// of its form on that chip; empty where the chip has no counter for it (zero or none).
std::vector<std::string> names_on(const metric_entry& entry, const chip* target_chip);

}  // namespace roofline
