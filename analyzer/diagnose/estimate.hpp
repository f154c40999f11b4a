// The one estimator behind every finding's gain (rules/README.md, "Gain estimates"). Each resource
// carries the work it is busy with now (its busy share x duration, waste included). A fix changes
// some of that work (bytes at a level, instructions on a pipe, FLOPs of a precision); everything
// it does not change still bounds the kernel, at its practical share. A fix that changes work
// shortens the kernel in proportion to the work it takes off the current limiter (the resource
// under the most pressure): the kernel keeps the latency it shows now, and a fix to a unit that
// does not limit buys nothing. A fix that changes no work (more bytes in flight, more warps, a
// fuller grid) closes the gap between the kernel and its floors. Never under the fix's own bound
// nor under the GPU's shortest launch (unless the fix removes the launch).
#pragma once

#include "analyzer/diagnose/diagnosis.hpp"
#include "analyzer/diagnose/rule_tree.hpp"
#include "models/kernel_result.hpp"

#include <map>
#include <string>

namespace roofline::diagnose {

// Work per resource as time at raw peak (ns): busy share x duration, for the resources that carry
// a floor.
std::map<resource, double> current_work(const kernel_roofline& roof);
// Useful work per resource (ns at raw peak): useful share x duration, the least a fix can leave.
std::map<resource, double> useful_work(const kernel_roofline& roof);

struct estimate_outcome {
    double after_ns = 0.0;
    after_bound binds_after;
};

// The estimate of a fix from its spec: the changed work, the time after, the speedup and the saving, whole.
// Leaves the figures empty (and lists the metrics that would decide them in `missing`) when an expression is
// not exact on this capture, or a resource the capture has no counter for may bound the time after the fix;
// the least time the fix can leave is then set where the capture bounds it.
finding_estimate estimate_fix(const estimate_spec& spec, const kernel_result& kernel, const gpu_spec& gpu,
                              const name_values& facts, std::vector<std::string>* missing);
// estimate_fix, kept on the finding (its est_* figures, its words, and the estimator's effect) at once.
void estimate_finding(finding& target, const estimate_spec& spec, const kernel_result& kernel, const gpu_spec& gpu,
                      const name_values& facts, std::vector<std::string>* missing);

// The time left once the changes of several findings are all in: per resource the least work any
// of them leaves. Their own bounds (at_least) describe the kernel as it is and are not combined.
estimate_outcome combined_after(const kernel_result& kernel, const gpu_spec& gpu,
                                const std::vector<const finding*>& fixes);

}  // namespace roofline::diagnose
