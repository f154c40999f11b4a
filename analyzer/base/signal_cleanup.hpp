// What an interrupted run leaves behind: nothing. Temporary files and folders this process made (the
// output's temporary file beside its target, an exporter's private folder) are registered here while
// they exist; on SIGINT, SIGTERM or SIGHUP the handler kills a running exporter's process group, removes
// them and dies of the same signal. Fixed buffers only: a handler may call only async-signal-safe
// functions (unlink, rmdir, kill, sigaction, raise). SIGKILL cannot be caught: what it leaves has a
// random name (mkstemp, mkdtemp) no later run trips on.
#pragma once

#include <string>
#include <sys/types.h>

namespace roofline {

// Registration for the life of the object (a few at a time; paths up to 4095 bytes).
class removed_on_signal {
public:
    enum class kind { file, folder };
    removed_on_signal(std::string path, kind what);
    ~removed_on_signal();
    removed_on_signal(const removed_on_signal&) = delete;
    removed_on_signal& operator=(const removed_on_signal&) = delete;
    // The file is kept (renamed into place, or removed by the caller): the handler leaves it.
    void release();

private:
    std::string path_;
    kind what_;
    bool held_ = true;
};

// The process group the handler kills first (an exporter running in its own group); 0: none.
void set_child_group_on_signal(pid_t group);

}  // namespace roofline
