// Writes a whole file or nothing: the text goes to a temporary file beside the target, which
// is renamed over it only once complete, so a failure never leaves a half-written report.
#pragma once

#include <string>

namespace roofline {

// Throws input_error (io) naming the path when the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace roofline
