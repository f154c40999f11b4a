#include "analyzer/base/atomic_file.hpp"

#include "analyzer/base/input_error.hpp"
#include "analyzer/base/signal_cleanup.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <filesystem>
#include <memory>
#include <optional>
#include <streambuf>

namespace roofline {
namespace {

namespace fs = std::filesystem;

// An output stream over a file descriptor: the temporary file is written through the descriptor that
// created it, never reopened by name (a name can be swapped for a link in between).
class fd_buffer : public std::streambuf {
public:
    explicit fd_buffer(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof buf_); }
    int error() const { return error_; }

protected:
    int_type overflow(int_type ch) override {
        if (flush() != 0) return traits_type::eof();
        if (!traits_type::eq_int_type(ch, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(ch);
            pbump(1);
        }
        return traits_type::not_eof(ch);
    }
    int sync() override { return flush(); }

private:
    int flush() {
        const char* cursor = pbase();
        while (cursor < pptr()) {
            const ssize_t written = ::write(fd_, cursor, std::size_t(pptr() - cursor));
            if (written < 0 && errno == EINTR) continue;
            if (written <= 0) {
                error_ = written < 0 ? errno : EIO;
                return -1;
            }
            cursor += written;
        }
        setp(buf_, buf_ + sizeof buf_);
        return 0;
    }
    int fd_;
    int error_ = 0;
    char buf_[1 << 16];
};

void remove_quietly(const fs::path& path) {
    std::error_code ec;
    fs::remove(path, ec);
}

std::string lower_strerror(int error) {
    std::string why = std::strerror(error);
    if (!why.empty()) why[0] = char(std::tolower(static_cast<unsigned char>(why[0])));
    return why;
}

// Why a file could not be created, from errno: the folder it names, and the system's own words.
std::string cannot_create(const std::string& path, int error) {
    std::string folder = fs::path(path).parent_path().string();
    if (folder.empty()) folder = ".";
    const std::string why = lower_strerror(error);
    std::error_code ec;
    if ((error == ENOENT || error == ENOTDIR) && !fs::is_directory(folder, ec))
        return "cannot create the output file: no such folder \"" + folder + "\" (" + why + ")";
    if (error == EACCES || error == EPERM || error == EROFS)
        return "cannot create the output file: " + why + " in the folder \"" + folder + "\"";
    return "cannot create the output file: " + why;
}

// The mode a new file gets from this process (0666 less the umask), or the mode of the file it replaces.
mode_t mode_for(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return st.st_mode & 07777;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

// Creates the folders `path` names that do not exist yet.
void make_parent_folders(const std::string& path) {
    const fs::path folder = fs::path(path).parent_path();
    if (folder.empty()) return;
    std::error_code ec;
    if (fs::is_directory(folder, ec)) return;
    fs::create_directories(folder, ec);
    if (ec)
        throw input_error(error_code::io, path, 0, 0,
                          "cannot create the folder \"" + folder.string() + "\": " + ec.message());
}

// Writes a temporary file beside `path` with `write`, created exclusively (mkstemp: O_CREAT | O_EXCL,
// a fresh random name), and returns its name; throws input_error (io) naming `path`, or what `write`
// throws, and leaves no temporary file behind either way.
struct temporary {
    fs::path path;
    std::unique_ptr<removed_on_signal> guard;  // removed by the signal handler while it exists
};

temporary write_temporary(const std::string& path, const file_writer& write) {
    make_parent_folders(path);
    std::string name = path + ".tmp-XXXXXX";
    const int fd = ::mkstemp(name.data());
    if (fd < 0) throw input_error(error_code::io, path, 0, 0, cannot_create(path, errno));
    const fs::path tmp(name);
    auto guard = std::make_unique<removed_on_signal>(name, removed_on_signal::kind::file);
    auto fail = [&](const std::string& why) {
        ::close(fd);
        remove_quietly(tmp);
        throw input_error(error_code::io, path, 0, 0, why);
    };
    if (::fchmod(fd, mode_for(path)) != 0) fail(cannot_create(path, errno));
    fd_buffer buffer(fd);
    std::ostream out(&buffer);
    try {
        write(out);
    } catch (...) {
        ::close(fd);
        remove_quietly(tmp);
        throw;
    }
    out.flush();
    if (!out || buffer.error() != 0)
        fail("writing the output failed: " + lower_strerror(buffer.error() ? buffer.error() : EIO));
    if (::close(fd) != 0) {
        const int error = errno;
        remove_quietly(tmp);
        throw input_error(error_code::io, path, 0, 0, "writing the output failed: " + lower_strerror(error));
    }
    return {tmp, std::move(guard)};
}

// What is at `path` without following a link (a dangling link is something), or nullopt.
std::optional<struct stat> at(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return std::nullopt;
    return st;
}

// Moves the finished temporary file to `path`. Without -f nothing that is there is replaced, even what
// appeared after check_output: a hard link fails on any name already there (link(2): EEXIST, a dangling
// symbolic link included), and the temporary name is then removed. On a file system without hard links,
// renameat2's RENAME_NOREPLACE does the same. With -f only a regular file is replaced.
void place(const fs::path& tmp, const std::string& path, bool overwrite) {
    if (!overwrite) {
        if (::link(tmp.c_str(), path.c_str()) == 0) {
            remove_quietly(tmp);
            return;
        }
        int error = errno;
        if (error == EPERM || error == ENOTSUP || error == EOPNOTSUPP || error == EXDEV) {
            if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) return;
            error = errno;
        }
        remove_quietly(tmp);
        if (error == EEXIST)
            throw input_error(error_code::io, path, 0, 0,
                              "appeared while roofline was writing: roofline does not write over it unless asked; pass "
                              "-f (--force) to replace it");
        throw input_error(error_code::io, path, 0, 0,
                          "cannot move the finished output into place: " + lower_strerror(error));
    }
    if (const auto st = at(path); st && !S_ISREG(st->st_mode)) {
        remove_quietly(tmp);
        throw input_error(error_code::io, path, 0, 0,
                          "is not a regular file (a link, a device, a pipe or a socket): -f replaces only regular "
                          "files; name the file itself");
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        remove_quietly(tmp);
        throw input_error(error_code::io, path, 0, 0, "cannot move the finished output into place: " + ec.message());
    }
}

}  // namespace

void check_output(const std::string& path, const write_policy& policy) {
    std::error_code ec;
    if (fs::is_directory(path, ec))
        throw input_error(error_code::io, path, 0, 0, "is a folder, not a file to write the output to");
    const auto st = at(path);
    if (!st) return;
    if (!S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode))
        throw input_error(error_code::io, path, 0, 0,
                          "is not a regular file (a device, a pipe or a socket): roofline writes only regular files");
    if (S_ISLNK(st->st_mode) && !fs::exists(path, ec))
        throw input_error(error_code::io, path, 0, 0,
                          "is a link to nothing: roofline does not write through it; remove it or name another file");
    for (const auto& input : policy.inputs) {
        std::error_code same;
        if (fs::equivalent(path, input, same))
            throw input_error(error_code::io, path, 0, 0,
                              "is an input of this command: the output would replace it (-f does not change that); "
                              "name another file");
    }
    if (!policy.overwrite)
        throw input_error(error_code::io, path, 0, 0,
                          "exists: roofline does not write over it unless asked; pass -f (--force) to replace it");
}

void write_file_atomically(const std::string& path, const std::string& contents, const write_policy& policy) {
    write_files_atomically({{path, contents}}, policy);
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files, const write_policy& policy) {
    std::vector<std::pair<std::string, file_writer>> writers;
    for (const auto& [path, text] : files)
        writers.emplace_back(path, [&text = text](std::ostream& out) { out << text; });
    write_files_atomically(writers, policy);
}

void write_files_atomically(const std::vector<std::pair<std::string, file_writer>>& files, const write_policy& policy) {
    // Everything that can be checked before a byte is written is.
    for (const auto& [path, text] : files) check_output(path, policy);
    std::vector<temporary> temporaries;
    try {
        for (const auto& [path, write] : files) temporaries.push_back(write_temporary(path, write));
    } catch (...) {
        for (const auto& temp : temporaries) remove_quietly(temp.path);
        throw;
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        try {
            place(temporaries[i].path, files[i].first, policy.overwrite);
        } catch (...) {
            for (std::size_t later = i + 1; later < files.size(); ++later) remove_quietly(temporaries[later].path);
            throw;
        }
    }
}

}  // namespace roofline
