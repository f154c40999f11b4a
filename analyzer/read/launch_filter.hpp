// Filters like ncu's own: --kernel-name (a substring, or regex:...), then --launch-skip and
// --launch-count over the launches that match, in capture order.
#pragma once

#include "analyzer/read/launch_record.hpp"

#include <optional>
#include <regex>
#include <string>

namespace roofline {

struct launch_filter_options {
    std::string kernel_name;  // "" matches every kernel
    std::size_t launch_skip = 0;
    std::optional<std::size_t> launch_count;
};

class launch_filter {
public:
    // Throws input_error (usage) on a malformed regex.
    explicit launch_filter(launch_filter_options options);
    // True when the launch is to be analysed; call once per launch, in capture order. Throws
    // input_error (usage) naming `file` and the launch's line when a regex would run on a name
    // longer than max_regex_subject.
    bool accept(const launch_record& launch, const std::string& file);
    static constexpr std::size_t max_regex_subject = 4096;

private:
    launch_filter_options options_;
    std::optional<std::regex> regex_;
    std::size_t matched_ = 0;
    std::size_t taken_ = 0;
};

}  // namespace roofline
