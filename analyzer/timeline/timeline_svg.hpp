// The timeline as an SVG: a lane per device and stream with its busy time, and under each device a
// row of its idle gaps coloured by cause, over one time axis (the trace's clock, from the first op of
// any device). Drawn at the picture's resolution: each lane's intervals are merged to whole pixels,
// so the picture has at most a few thousand shapes however many events the trace holds. The counts
// are data-* attributes on the <svg> (data-devices, data-lanes, data-gaps) for tests.
#pragma once

#include "analyzer/timeline/timeline_model.hpp"

#include <string>

namespace roofline::timeline {

std::string timeline_svg(const timeline_model& model);

}  // namespace roofline::timeline
