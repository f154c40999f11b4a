// Every command's files reach the disk here: whole or not at all, never over a file the user did not
// ask to replace, never over an input. The text goes to a temporary file created exclusively beside the
// target (a name no one can have planted a link at), which is renamed over the target only once
// complete, with the target's mode where it replaces one; every failure this process can catch removes
// the temporary file. Folders the user names in the path are created.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace roofline {

// What a command may write over.
struct write_policy {
    bool overwrite = false;  // -f / --force: an existing file is replaced (otherwise it is kept, and that is an error)
    std::vector<std::string> inputs;  // files the command reads: never written over, -f or not
};

// Throws input_error naming `path` where writing it would break the policy (an input, or an existing
// file without -f) or cannot work (a folder). Commands call it before their work, so a refused -o costs
// nothing; the writers below check again.
void check_output(const std::string& path, const write_policy& policy);

// Throws input_error (io) naming the path when the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& contents, const write_policy& policy);
// Several files as one unit (a report and its chart; a folder of lessons): every one is written to
// its temporary file first, and only when all are complete are they renamed into place. A target
// that is a folder, or a write that fails, leaves every target as it was. (A rename that fails after
// an earlier one succeeded, which takes a file system fault, is reported; the earlier targets are
// then already replaced.)
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files, const write_policy& policy);
// The same, each file's bytes written by a function as they are made (a report far larger than
// the memory it should take). A function that throws leaves every target as it was.
using file_writer = std::function<void(std::ostream&)>;
void write_files_atomically(const std::vector<std::pair<std::string, file_writer>>& files, const write_policy& policy);

}  // namespace roofline
