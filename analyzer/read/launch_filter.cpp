#include "analyzer/read/launch_filter.hpp"

#include "analyzer/base/input_error.hpp"

namespace roofline {

launch_filter::launch_filter(launch_filter_options options) : options_(std::move(options)) {
    const std::string prefix = "regex:";
    if (options_.kernel_name.rfind(prefix, 0) == 0) {
        try {
            regex_.emplace(options_.kernel_name.substr(prefix.size()), std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            throw input_error(error_code::usage, "--kernel-name", 0, 0,
                              "not a valid regular expression: \"" + options_.kernel_name.substr(prefix.size()) + "\" (" + e.what() + ")");
        }
    }
}

bool launch_filter::accept(const launch_record& launch, const std::string& file) {
    // std::regex recurses about once per character of the subject: a name far longer than any C++
    // signature would overflow the stack, so it is refused by name instead.
    if (regex_ && launch.kernel_name.size() > max_regex_subject)
        throw input_error(error_code::usage, file, launch.line, 0,
                          "a kernel name of " + std::to_string(launch.kernel_name.size()) +
                              " characters is too long for --kernel-name regex: (at most " + std::to_string(max_regex_subject) +
                              "); filter with a plain substring instead");
    bool match = options_.kernel_name.empty() || (regex_ ? std::regex_search(launch.kernel_name, *regex_)
                                                         : launch.kernel_name.find(options_.kernel_name) != std::string::npos);
    if (!match) return false;
    if (matched_++ < options_.launch_skip) return false;
    if (options_.launch_count && taken_ >= *options_.launch_count) return false;
    ++taken_;
    return true;
}

}  // namespace roofline
