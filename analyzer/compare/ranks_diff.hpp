// Two runs of one distributed job, rank by rank (`roofline diff DIR DIR`): each run's ranks summarised as
// `roofline timeline DIR` summarises them (analyzer/timeline/ranks.hpp), then matched by rank: the step, GPU
// utilisation, the exposed wait for other ranks and the first finding on each side, the straggler of each
// run, and the job's step (the longest rank's) for the regression gate.
#pragma once

#include "analyzer/timeline/ranks.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline::timeline {

struct ranks_diff {
    ranks_model base, next;
    std::optional<double> change_pct;  // of the job's step
    std::optional<double> fail_if_slower_pct;
    double noise_pct = 2.0;
    bool gate_failed() const {
        return fail_if_slower_pct && change_pct && *change_pct > std::max(*fail_if_slower_pct, noise_pct);
    }
};

ranks_diff diff_ranks(ranks_model base, ranks_model next, std::optional<double> fail_if_slower_pct, double noise_pct);

std::string ranks_diff_markdown(const ranks_diff& diff);
// The same document as one HTML page (render/document.hpp).
std::string ranks_diff_html(const ranks_diff& diff);
std::string ranks_diff_json(const ranks_diff& diff);

}  // namespace roofline::timeline
