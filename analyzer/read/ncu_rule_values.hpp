// The counters Nsight Compute's own rules state in words on a details page ("spends 306.6 cycles being
// stalled waiting for a scoreboard dependency on a L1TEX ... operation", "65596758 bank conflicts, which
// represent 96.90% of the overall 67693910 wavefronts for shared loads"): exact values of metrics the
// details page does not list as rows, read back under their metric ids. Only what the text states
// exactly; a rule that did not fire says nothing (ncu's thresholds are its own), except the few checked to
// speak on any value above zero (metrics_of_silent_rules).
#pragma once

#include "analyzer/read/launch_record.hpp"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace roofline {

// (metric id, value in base units) for every counter the rule's description states, on a GPU of compute
// capability `cc` ("9.0"; a reading checked on one generation only is made on it alone).
std::vector<std::pair<std::string, double>> metrics_stated_by(const ncu_rule& rule, std::string_view cc);

// UncoalescedGlobalAccess: the excessive global sectors and all global sectors it states.
struct stated_sectors {
    double excessive = 0.0, total = 0.0;
};
std::optional<stated_sectors> uncoalesced_sectors_stated(const std::vector<ncu_rule>& rules);

// What a rule that did not fire says, where its section was collected: (metric id, 0) for the counters
// ncu's rule states whenever they are above zero. `sections` are the details page's section names seen
// for the launch ("Source Counters"); `rules` its rule rows (none: the rules did not run, and silence says
// nothing). Only rules checked to fire on any non-zero value (ncu_rule_values.cpp says where).
std::vector<std::pair<std::string, double>> metrics_of_silent_rules(const std::set<std::string, std::less<>>& sections,
                                                                    const std::vector<ncu_rule>& rules);

}  // namespace roofline
