#include "analyzer/base/did_you_mean.hpp"

#include <algorithm>

namespace roofline {

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& known) {
    std::string best;
    std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
    for (const auto& k : known) {
        const std::size_t d = k.rfind(word, 0) == 0 && !word.empty() ? 1 : edit_distance(word, k);
        if (d < best_distance) best_distance = d, best = k;
    }
    return best.empty() ? "" : "; did you mean \"" + best + "\"?";
}

}  // namespace roofline
