// Running a profiler's own exporter (ncu -i REPORT --csv, nsys export) on a report the user gave:
// the program found on PATH by absolute path (empty and relative PATH entries skipped, so a file in
// the working directory is never run by accident), started without a shell from an argument
// vector, in its own process group, its output written into a private temporary directory
// (mkdtemp, mode 0700) that is removed when the work is done, when it fails, and on SIGINT,
// SIGTERM or SIGHUP (the exporter's process group is killed first).
#pragma once

#include "analyzer/base/signal_cleanup.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

// The absolute path of `program` in PATH's absolute directories, or nullopt.
std::optional<std::string> find_on_path(const std::string& program);

// A directory only this process can use, removed with everything in it when the object goes, or
// by the signal handlers above if the process is interrupted first. Throws input_error (io) if it
// cannot be made.
class private_temp_dir {
public:
    explicit private_temp_dir(const std::string& purpose);
    ~private_temp_dir();
    private_temp_dir(const private_temp_dir&) = delete;
    private_temp_dir& operator=(const private_temp_dir&) = delete;
    const std::string& path() const { return path_; }
    // A file name inside it (not created), removed with it, by the signal handlers too.
    std::string file(const std::string& name);

private:
    std::string path_;
    std::vector<std::unique_ptr<removed_on_signal>> registered_;  // the folder first, then its files
};

struct tool_run {
    bool started = false;
    int exit_code = -1;  // -1: killed by a signal or not started
};

// Runs `program` (an absolute path) with `args` (argv[1..]), stdout into the new file `stdout_file`
// (created, never an existing one), stderr inherited so its messages reach the user; waits for it.
tool_run run_tool(const std::string& program, const std::vector<std::string>& args, const std::string& stdout_file);

}  // namespace roofline
