#include "analyzer/base/json_files.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace roofline {

std::vector<std::pair<std::string, std::string>> read_json_folder(const std::string& dir, const std::string& what) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw input_error(error_code::io, dir, 0, 0, "not a directory of " + what);
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& file_path : files) {
        std::ifstream in(file_path, std::ios::binary);
        if (!in) throw input_error(error_code::io, file_path.string(), 0, 0, "cannot open");
        std::stringstream ss;
        ss << in.rdbuf();
        out.emplace_back(file_path.string(), ss.str());
    }
    return out;
}

}  // namespace roofline
