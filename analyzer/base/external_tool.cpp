#include "analyzer/base/external_tool.hpp"

#include "analyzer/base/input_error.hpp"

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
namespace {

// What the signal handlers clean up: fixed buffers, since a handler may only call async-signal-safe
// functions (unlink, rmdir, kill, sigaction, raise). One process holds at most a few at a time.
constexpr std::size_t slots = 8, path_room = 4096;
struct cleanup_table {
    std::array<std::array<char, path_room>, slots> files{}, dirs{};
    volatile std::sig_atomic_t child_group = 0;
    int live_dirs = 0;
    struct sigaction previous[3]{};
};
cleanup_table table;
// Guards the table's slots and count against two exports on two threads (the handlers only read it).
std::mutex table_lock;
constexpr std::array<int, 3> caught = {SIGINT, SIGTERM, SIGHUP};

void remember(std::array<std::array<char, path_room>, slots>& where, const std::string& path) {
    if (path.size() >= path_room) return;
    for (auto& s : where)
        if (s[0] == '\0') {
            std::memcpy(s.data(), path.c_str(), path.size() + 1);
            return;
        }
}

void forget(std::array<std::array<char, path_room>, slots>& where, const std::string& path) {
    for (auto& s : where)
        if (path == s.data()) s[0] = '\0';
}

extern "C" void clean_up_and_die(int sig) {
    if (table.child_group > 0) ::kill(-static_cast<pid_t>(table.child_group), SIGTERM);
    for (auto& f : table.files)
        if (f[0] != '\0') ::unlink(f.data());
    for (auto& d : table.dirs)
        if (d[0] != '\0') ::rmdir(d.data());
    for (std::size_t i = 0; i < caught.size(); ++i)
        if (caught[i] == sig) ::sigaction(sig, &table.previous[i], nullptr);
    ::raise(sig);
}

void install_handlers() {
    struct sigaction a {};
    a.sa_handler = clean_up_and_die;
    sigemptyset(&a.sa_mask);
    for (std::size_t i = 0; i < caught.size(); ++i) ::sigaction(caught[i], &a, &table.previous[i]);
}

void restore_handlers() {
    for (std::size_t i = 0; i < caught.size(); ++i) ::sigaction(caught[i], &table.previous[i], nullptr);
}

}  // namespace

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
    const std::lock_guard<std::mutex> hold(table_lock);
    if (table.live_dirs++ == 0) install_handlers();
    remember(table.dirs, path_);
}

private_temp_dir::~private_temp_dir() {
    std::error_code ignored;
    const std::lock_guard<std::mutex> hold(table_lock);
    for (const auto& entry : std::filesystem::directory_iterator(path_, ignored)) {
        forget(table.files, entry.path().string());
        std::filesystem::remove_all(entry.path(), ignored);
    }
    std::filesystem::remove(path_, ignored);
    forget(table.dirs, path_);
    if (--table.live_dirs == 0) restore_handlers();
}

std::string private_temp_dir::file(const std::string& name) const {
    const std::string p = path_ + "/" + name;
    const std::lock_guard<std::mutex> hold(table_lock);
    remember(table.files, p);
    return p;
}

tool_run run_tool(const std::string& program, const std::vector<std::string>& args, const std::string& stdout_file) {
    tool_run r;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    // A new file only: O_EXCL refuses one planted at that name, O_NOFOLLOW a link.
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_file.c_str(),
                                     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    // Its own process group, so an interrupted roofline stops the exporter and its children too.
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    std::vector<std::string> all = {program};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t child = 0;
    const int failed = posix_spawn(&child, program.c_str(), &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (failed != 0) return r;
    r.started = true;
    table.child_group = child;
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    table.child_group = 0;
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    return r;
}

}  // namespace roofline
