#include "analyzer/read/launch_filter.hpp"

#include "analyzer/base/input_error.hpp"
#include "analyzer/read/kernel_names.hpp"

namespace roofline {

launch_filter::launch_filter(launch_filter_options options) : options_(std::move(options)) {
    const std::string prefix = "regex:";
    if (options_.kernel_name.rfind(prefix, 0) == 0) {
        try {
            regex_.emplace(options_.kernel_name.substr(prefix.size()), std::regex::ECMAScript);
        } catch (const std::regex_error& error) {
            throw input_error(error_code::usage, "--kernel-name", 0, 0,
                              "not a valid regular expression: \"" + options_.kernel_name.substr(prefix.size()) +
                                  "\" (" + error.what() + ")");
        }
    }
}

const char* kernel_name_base_name(kernel_name_base base) {
    switch (base) {
        case kernel_name_base::function:
            return "function";
        case kernel_name_base::demangled:
            return "demangled";
        case kernel_name_base::mangled:
            return "mangled";
    }
    return "function";
}

bool launch_filter::accept(const launch_record& launch, const std::string& file) {
    if (!options_.kernel_name.empty() && options_.base == kernel_name_base::mangled &&
        !is_mangled(launch.kernel_name) && launch.kernel_name.find('(') != std::string::npos)
        throw input_error(error_code::usage, file, launch.line, 0,
                          "--kernel-name-base mangled: this export holds demangled names only (\"" +
                              printable(launch.kernel_name.substr(0, 60)) +
                              "\"); export mangled ones with ncu -i REPORT.ncu-rep --csv --page raw "
                              "--print-kernel-base mangled, or match "
                              "with --kernel-name-base function or demangled");
    if (options_.kernel_name.empty()) return take();
    const std::string subject =
        options_.base == kernel_name_base::function ? function_name(launch.kernel_name) : launch.kernel_name;
    // std::regex recurses about once per character of the subject: a name far longer than any C++
    // signature would overflow the stack, so it is refused by name instead.
    if (regex_ && subject.size() > max_regex_subject)
        throw input_error(error_code::usage, file, launch.line, 0,
                          "a kernel name of " + std::to_string(subject.size()) +
                              " characters is too long for --kernel-name regex: (at most " +
                              std::to_string(max_regex_subject) + "); filter with the exact name instead");
    // As ncu's --kernel-name: a plain name matches exactly, regex: searches.
    const bool match = regex_ ? std::regex_search(subject, *regex_) : subject == options_.kernel_name;
    return match && take();
}

bool launch_filter::take() {
    if (matched_++ < options_.launch_skip) return false;
    if (options_.launch_count && taken_ >= *options_.launch_count) return false;
    ++taken_;
    return true;
}

}  // namespace roofline
