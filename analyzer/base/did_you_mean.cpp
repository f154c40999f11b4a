#include "analyzer/base/did_you_mean.hpp"

#include <algorithm>

namespace roofline {

std::size_t edit_distance(const std::string& from_word, const std::string& to_word) {
    std::vector<std::size_t> row(to_word.size() + 1);
    for (std::size_t j = 0; j <= to_word.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= from_word.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= to_word.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (from_word[i - 1] == to_word[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[to_word.size()];
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& known) {
    std::string best;
    std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
    for (const auto& candidate : known) {
        const std::size_t distance =
            candidate.rfind(word, 0) == 0 && !word.empty() ? 1 : edit_distance(word, candidate);
        if (distance < best_distance) best_distance = distance, best = candidate;
    }
    return best.empty() ? "" : "; did you mean \"" + best + "\"?";
}

}  // namespace roofline
