// "Did you mean" for names a user typed: an option value, a command, a key of `roofline predict`.
// In base so that any stage that validates a name (the op models as well as the CLI) suggests the
// same way.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace roofline {

// Levenshtein distance.
std::size_t edit_distance(const std::string& first, const std::string& second);

// "; did you mean \"x\"?" for the closest of `known` when it is close enough to be a typo (at most a
// third of the word's letters, at least 2) or the word is a prefix of it; "" otherwise.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& known);

}  // namespace roofline
