// Every file in tests/corpus: pass_* analyse, fail_* fail with their exact message and leave
// no output file.
#include "analyzer/base/input_error.hpp"
#include "analyzer/cli/commands.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <filesystem>

using namespace roofline;
using namespace roofline::test;
namespace fs = std::filesystem;

namespace {
int run_cli(std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::ostringstream out, err;
    return cli::run(int(argv.size()), argv.data(), out, err);
}

std::string trim_newline(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
}
}  // namespace

TEST_CASE("every corpus file behaves as its name says") {
    fs::path dir = source_path("tests/corpus");
    fs::path out_dir = temp_path("corpus-test");
    fs::create_directories(out_dir);
    std::size_t passes = 0, fails = 0;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".csv") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        std::string name = f.filename().string();
        CAPTURE(name);
        fs::path out = out_dir / (name + ".md");
        fs::remove(out);
        // Run with the file name alone, as a user in that folder would, so messages are stable.
        fs::path cwd = fs::current_path();
        fs::current_path(dir);
        int rc = -1;
        std::string message;
        try {
            rc = run_cli({"roofline", "analyze", name, "-o", out.string()});
        } catch (const input_error& e) {
            rc = 2;
            message = e.what();
        }
        fs::current_path(cwd);
        if (name.rfind("pass_", 0) == 0) {
            ++passes;
            CHECK(rc == 0);
            CHECK(fs::exists(out));
        } else {
            ++fails;
            CHECK(rc == 2);
            CHECK(message == trim_newline(read_text(dir / (f.stem().string() + ".expected"))));
            CHECK_FALSE(fs::exists(out));
        }
    }
    CHECK(passes >= 1);
    CHECK(fails >= 10);
}

TEST_CASE("a failed run leaves an existing report untouched") {
    fs::path out = temp_path("keep.md");
    {
        std::ofstream o(out);
        o << "previous report\n";
    }
    CHECK_THROWS_AS(run_cli({"roofline", "analyze", source_path("tests/corpus/fail_column_count.csv"), "-o", out.string()}), input_error);
    CHECK(read_text(out.string()) == "previous report\n");
    // No temporary file is left beside it either.
    for (const auto& e : fs::directory_iterator(out.parent_path()))
        CHECK(e.path().filename().string().find("roofline-keep.md.tmp") == std::string::npos);
}
