// A chip's counter names mapped onto the metric catalogue's ids (analyzer/base/metrics.json, `on`):
// after it, one kernel's metrics hold every quantity under its catalogue id whichever chip ran it, so
// the model and the rules read one name for one meaning on every chip.
#pragma once

#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/read/metric_values.hpp"

namespace roofline {

// For every catalogue quantity, by its form on `target_chip`:
//   another name or a sum of counters: where the capture lacks the id, it gets scale x the sum if the
//     capture holds every counter of it (a derived__ metric from its base counters); where the id is
//     itself one part of the sum, the sum replaces it, and without every part the quantity is
//     unknown (a part is not the whole) and the id is left out;
//   zero (the chip has no such unit): the id is 0;
//   none (no counter on this chip) and the id itself: as captured.
// A quantity the capture lacks both under its id and in this chip's own form (or with no chip: a CC the
// catalogue has no names for) is taken from the first other chip's form whose counters the capture all
// holds: chips name their counters apart, so one form at most fits.
void resolve_chip_names(metric_values& metrics, const chip* target_chip);

}  // namespace roofline
