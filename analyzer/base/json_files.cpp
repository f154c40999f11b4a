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
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& p : files) {
        std::ifstream in(p, std::ios::binary);
        if (!in) throw input_error(error_code::io, p.string(), 0, 0, "cannot open");
        std::stringstream ss;
        ss << in.rdbuf();
        out.emplace_back(p.string(), ss.str());
    }
    return out;
}

}  // namespace roofline
