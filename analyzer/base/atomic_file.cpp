#include "analyzer/base/atomic_file.hpp"

#include "analyzer/base/input_error.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include <filesystem>
#include <fstream>

namespace roofline {
namespace {

namespace fs = std::filesystem;

fs::path temporary_beside(const std::string& path) {
    fs::path tmp(path);
    tmp += ".tmp-" + std::to_string(::getpid());
    return tmp;
}

void remove_quietly(const fs::path& p) {
    std::error_code ec;
    fs::remove(p, ec);
}

// Why a file could not be created, from errno: the folder it names, and the system's own words.
std::string cannot_create(const std::string& path, int error) {
    std::string folder = fs::path(path).parent_path().string();
    if (folder.empty()) folder = ".";
    std::string why = std::strerror(error);
    if (!why.empty()) why[0] = char(std::tolower(static_cast<unsigned char>(why[0])));
    std::error_code ec;
    if ((error == ENOENT || error == ENOTDIR) && !fs::is_directory(folder, ec)) return "cannot create the output file: no such folder \"" + folder + "\" (" + why + ")";
    if (error == EACCES || error == EPERM || error == EROFS)
        return "cannot create the output file: " + why + " in the folder \"" + folder + "\"";
    return "cannot create the output file: " + why;
}

// Writes the temporary file beside `path` with `write`; throws input_error (io) naming `path`,
// or what `write` throws, and leaves no temporary file behind either way.
void write_temporary(const std::string& path, const file_writer& write) {
    const fs::path tmp = temporary_beside(path);
    // open(2) first, for errno: an ofstream that fails says nothing about why.
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) throw input_error(error_code::io, path, 0, 0, cannot_create(path, errno));
    ::close(fd);
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
        const int error = errno;
        remove_quietly(tmp);
        throw input_error(error_code::io, path, 0, 0, cannot_create(path, error));
    }
    try {
        write(out);
    } catch (...) {
        out.close();
        remove_quietly(tmp);
        throw;
    }
    out.close();
    if (!out) {
        const int error = errno;
        remove_quietly(tmp);
        throw input_error(error_code::io, path, 0, 0, std::string("writing the output failed: ") + std::strerror(error));
    }
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& contents) { write_files_atomically({{path, contents}}); }

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
    std::vector<std::pair<std::string, file_writer>> writers;
    for (const auto& [path, text] : files) writers.emplace_back(path, [&text = text](std::ostream& out) { out << text; });
    write_files_atomically(writers);
}

void write_files_atomically(const std::vector<std::pair<std::string, file_writer>>& files) {
    // Everything that can be checked before a byte is written is: a target that is a folder.
    for (const auto& [path, text] : files) {
        std::error_code ec;
        if (fs::is_directory(path, ec)) throw input_error(error_code::io, path, 0, 0, "is a folder, not a file to write the output to");
    }
    std::size_t written = 0;
    try {
        for (; written < files.size(); ++written) write_temporary(files[written].first, files[written].second);
    } catch (...) {
        for (std::size_t i = 0; i < written; ++i) remove_quietly(temporary_beside(files[i].first));
        throw;
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        std::error_code ec;
        fs::rename(temporary_beside(files[i].first), files[i].first, ec);
        if (ec) {
            for (std::size_t k = i; k < files.size(); ++k) remove_quietly(temporary_beside(files[k].first));
            throw input_error(error_code::io, files[i].first, 0, 0, "cannot move the finished output into place: " + ec.message());
        }
    }
}

}  // namespace roofline
