#include "analyzer/base/external_tool.hpp"

#include "analyzer/base/input_error.hpp"
#include "analyzer/base/signal_cleanup.hpp"

#include <array>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string_view>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace roofline {

std::optional<std::string> find_on_path(const std::string& program) {
    const char* env = std::getenv("PATH");
    for (std::string_view dirs = env ? env : ""; !dirs.empty();) {
        const auto colon = dirs.find(':');
        const std::string dir(dirs.substr(0, colon));
        dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
        if (dir.empty() || dir[0] != '/') continue;  // "" and relative entries name the working directory
        const std::string candidate = dir + "/" + program;
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return std::nullopt;
}

private_temp_dir::private_temp_dir(const std::string& purpose) {
    std::error_code ec;
    std::string base = std::filesystem::temp_directory_path(ec).string();
    if (ec || base.empty()) base = "/tmp";
    std::string pattern = base + "/roofline-" + purpose + "-XXXXXX";
    if (!::mkdtemp(pattern.data()))
        throw input_error(error_code::io, base, 0, 0,
                          "cannot make a private temporary directory: " + std::string(std::strerror(errno)));
    path_ = pattern;
    registered_.push_back(std::make_unique<removed_on_signal>(path_, removed_on_signal::kind::folder));
}

private_temp_dir::~private_temp_dir() {
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator(path_, ignored))
        std::filesystem::remove_all(entry.path(), ignored);
    std::filesystem::remove(path_, ignored);
    registered_.clear();  // removed already: the handler has nothing left to remove
}

std::string private_temp_dir::file(const std::string& name) {
    const std::string file_path = path_ + "/" + name;
    registered_.push_back(std::make_unique<removed_on_signal>(file_path, removed_on_signal::kind::file));
    return file_path;
}

tool_run run_tool(const std::string& program, const std::vector<std::string>& args, const std::string& stdout_file) {
    tool_run result;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    // A new file only: O_EXCL refuses one planted at that name, O_NOFOLLOW a link.
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_file.c_str(),
                                     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    // Its own process group, so an interrupted roofline stops the exporter and its children too. The signals
    // the cleanup handles are held from before the spawn until the handler knows the group: one that arrives
    // in between (the exporter may already be running) is taken after, and still stops it. The exporter
    // starts with none held and their default actions.
    sigset_t handled, before, none;
    sigemptyset(&handled);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&handled, sig);
    sigemptyset(&none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &handled);
    std::vector<std::string> all = {program};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : all) argv.push_back(arg.data());
    argv.push_back(nullptr);
    pid_t child = 0;
    ::pthread_sigmask(SIG_BLOCK, &handled, &before);
    const int failed = posix_spawn(&child, program.c_str(), &actions, &attributes, argv.data(), environ);
    if (failed == 0) set_child_group_on_signal(child);
    ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (failed != 0) return result;
    result.started = true;
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    set_child_group_on_signal(0);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    return result;
}

}  // namespace roofline
