#include "analyzer/base/signal_cleanup.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstring>
#include <mutex>

namespace roofline {
namespace {

constexpr std::size_t slots = 16, path_room = 4096;
struct cleanup_table {
    std::array<std::array<char, path_room>, slots> files{}, dirs{};
    volatile std::sig_atomic_t child_group = 0;
    int live = 0;
    struct sigaction previous[3]{};
};
cleanup_table table;
// Guards the slots and the count against two threads (the handler only reads them).
std::mutex table_lock;
constexpr std::array<int, 3> caught = {SIGINT, SIGTERM, SIGHUP};

extern "C" void clean_up_and_die(int sig) {
    if (table.child_group > 0) ::kill(-static_cast<pid_t>(table.child_group), SIGTERM);
    for (auto& file_slot : table.files)
        if (file_slot[0] != '\0') ::unlink(file_slot.data());
    for (auto& dir_slot : table.dirs)
        if (dir_slot[0] != '\0') ::rmdir(dir_slot.data());
    for (std::size_t i = 0; i < caught.size(); ++i)
        if (caught[i] == sig) ::sigaction(sig, &table.previous[i], nullptr);
    ::raise(sig);
}

void install_handlers() {
    struct sigaction action {};
    action.sa_handler = clean_up_and_die;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < caught.size(); ++i) ::sigaction(caught[i], &action, &table.previous[i]);
}

void restore_handlers() {
    for (std::size_t i = 0; i < caught.size(); ++i) ::sigaction(caught[i], &table.previous[i], nullptr);
}

std::array<std::array<char, path_room>, slots>& slots_for(removed_on_signal::kind what) {
    return what == removed_on_signal::kind::file ? table.files : table.dirs;
}

}  // namespace

removed_on_signal::removed_on_signal(std::string path, kind what) : path_(std::move(path)), what_(what) {
    const std::lock_guard<std::mutex> hold(table_lock);
    if (table.live++ == 0) install_handlers();
    if (path_.size() >= path_room) return;
    for (auto& slot : slots_for(what_))
        if (slot[0] == '\0') {
            std::memcpy(slot.data(), path_.c_str(), path_.size() + 1);
            return;
        }
}

void removed_on_signal::release() {
    if (!held_) return;
    held_ = false;
    const std::lock_guard<std::mutex> hold(table_lock);
    for (auto& slot : slots_for(what_))
        if (path_ == slot.data()) {
            slot[0] = '\0';
            break;
        }
    if (--table.live == 0) restore_handlers();
}

removed_on_signal::~removed_on_signal() { release(); }

void set_child_group_on_signal(pid_t group) { table.child_group = group; }

}  // namespace roofline
