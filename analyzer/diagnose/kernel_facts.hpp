// The names a rule can read for one kernel: every metric of its capture (by ncu id, listed in the
// metric catalogue) and the engine's derived values (roofline, classification, launch shape,
// traffic shares), with their types. One table holds each derived name's type, meaning and value.
#pragma once

#include "analyzer/diagnose/diagnosis.hpp"
#include "analyzer/diagnose/expression.hpp"
#include "models/kernel_result.hpp"

#include <string>
#include <vector>

namespace roofline::diagnose {

// The type of a name for the loader: a derived name, a family name (util_<r>, useful_<r>, ...) over
// the resources of models/resources.hpp, or an
// ncu metric id the catalogue knows. Unknown names give nullopt.
std::optional<value_type> fact_type(const std::string& name);
// The derived names (families written NAME_<resource>) with a one-line meaning, for `roofline
// explain` and rules/README.md.
const std::vector<std::pair<std::string, std::string>>& derived_fact_docs();
// A lookup over one analysed kernel on the GPU of `spec`.
name_values kernel_facts(const kernel_result& kernel, const gpu_spec& spec);
// Evidence shown on one kernel, evaluated on another (a lesson shows both sides); nullopt for a
// label, which no rule can evaluate, or where the kernel lacks a name.
std::optional<double> evaluate_evidence(const evidence_value& evidence, const kernel_result& kernel,
                                        const gpu_spec& spec);

}  // namespace roofline::diagnose
