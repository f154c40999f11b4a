#include "analyzer/base/atomic_file.hpp"

#include "analyzer/base/input_error.hpp"

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace roofline {

void write_file_atomically(const std::string& path, const std::string& contents) {
    namespace fs = std::filesystem;
    fs::path target(path);
    fs::path tmp = target;
    tmp += ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw input_error(error_code::io, path, 0, 0, "cannot create the output file (does its folder exist?)");
        out << contents;
        out.flush();
        if (!out) {
            std::error_code ec;
            fs::remove(tmp, ec);
            throw input_error(error_code::io, path, 0, 0, "writing the output failed");
        }
    }
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw input_error(error_code::io, path, 0, 0, "cannot move the finished output into place: " + ec.message());
    }
}

}  // namespace roofline
