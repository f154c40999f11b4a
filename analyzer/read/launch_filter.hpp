// Filters like ncu's own: --kernel-name (an exact name, or regex:...) on the name base ncu's
// --kernel-name-base picks (the function name by default), then --launch-skip and --launch-count
// over the launches that match, in capture order.
#pragma once

#include "analyzer/read/launch_record.hpp"

#include <optional>
#include <regex>
#include <string>

namespace roofline {

// What --kernel-name is matched against, as ncu's --kernel-name-base: the function name
// ("transpose_smem" of "void transpose_smem<1>(const float *, float *, int)"), the whole demangled
// signature, or the mangled name ("_Z14transpose_smem..."; only where the export holds mangled
// names, i.e. it was made with ncu --print-kernel-base mangled).
enum class kernel_name_base { function, demangled, mangled };
const char* kernel_name_base_name(kernel_name_base base);

struct launch_filter_options {
    std::string kernel_name;  // "" matches every kernel
    kernel_name_base base = kernel_name_base::function;
    std::size_t launch_skip = 0;
    std::optional<std::size_t> launch_count;
};

class launch_filter {
public:
    // Throws input_error (usage) on a malformed regex.
    explicit launch_filter(launch_filter_options options);
    // True when the launch is to be analysed; call once per launch, in capture order. Throws
    // input_error (usage) naming `file` and the launch's line when a regex would run on a name
    // longer than max_regex_subject, or when the mangled base is asked of a demangled export.
    bool accept(const launch_record& launch, const std::string& file);
    static constexpr std::size_t max_regex_subject = 4096;

private:
    bool take();  // a launch that matched: skipped, counted or past the count
    launch_filter_options options_;
    std::optional<std::regex> regex_;
    std::size_t matched_ = 0;
    std::size_t taken_ = 0;
};

}  // namespace roofline
