// Writes a whole file or nothing: the text goes to a temporary file beside the target, which
// is renamed over it only once complete, so a failure never leaves a half-written report.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace roofline {

// Throws input_error (io) naming the path when the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& contents);
// Several files as one unit (a report and its chart; a folder of lessons): every one is written to
// its temporary file first, and only when all are complete are they renamed into place. A target
// that is a folder, or a write that fails, leaves every target as it was. (A rename that fails after
// an earlier one succeeded, which takes a file system fault, is reported; the earlier targets are
// then already replaced.)
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);
// The same, each file's bytes written by a function as they are made (a report far larger than
// the memory it should take). A function that throws leaves every target as it was.
using file_writer = std::function<void(std::ostream&)>;
void write_files_atomically(const std::vector<std::pair<std::string, file_writer>>& files);

}  // namespace roofline
