#include "analyzer/base/atomic_file.hpp"

#include "analyzer/base/input_error.hpp"

#include <unistd.h>

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

// Writes the temporary file beside `path` with `write`; throws input_error (io) naming `path`,
// or what `write` throws, and leaves no temporary file behind either way.
void write_temporary(const std::string& path, const file_writer& write) {
    const fs::path tmp = temporary_beside(path);
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw input_error(error_code::io, path, 0, 0, "cannot create the output file (does its folder exist?)");
    try {
        write(out);
    } catch (...) {
        out.close();
        remove_quietly(tmp);
        throw;
    }
    out.flush();
    if (!out) {
        out.close();
        remove_quietly(tmp);
        throw input_error(error_code::io, path, 0, 0, "writing the output failed");
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
