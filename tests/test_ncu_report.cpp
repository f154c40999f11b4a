// roofline analyze REPORT.ncu-rep: the raw page exported with ncu from PATH (a stub here, which records
// its arguments), no shell, into a private temporary directory that is gone afterwards, also on failure.
#include "analyzer/base/input_error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace roofline;
using namespace roofline::test;
namespace fs = std::filesystem;

namespace {

// PATH and TMPDIR as a test sets them, put back at the end of its scope.
class environment {
public:
    environment(const std::string& path, const std::string& tmpdir) {
        save("PATH");
        save("TMPDIR");
        ::setenv("PATH", path.c_str(), 1);
        ::setenv("TMPDIR", tmpdir.c_str(), 1);
    }
    ~environment() {
        for (const auto& [k, v] : saved_)
            if (v)
                ::setenv(k.c_str(), v->c_str(), 1);
            else
                ::unsetenv(k.c_str());
    }

private:
    void save(const std::string& k) {
        const char* v = std::getenv(k.c_str());
        saved_.emplace_back(k, v ? std::optional<std::string>(v) : std::nullopt);
    }
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// A stub ncu: writes its arguments, one a line, to ARGS, then prints CSV (or fails with `exit_code`).
void write_stub(const fs::path& dir, const fs::path& args, const std::string& csv, int exit_code) {
    fs::create_directories(dir);
    const fs::path stub = dir / "ncu";
    std::ofstream(stub) << "#!/bin/sh\n"
                        << "for a in \"$@\"; do printf '%s\\n' \"$a\"; done > '" << args.string() << "'\n"
                        << "cat '" << csv << "'\n"
                        << "exit " << exit_code << "\n";
    fs::permissions(stub, fs::perms::owner_all);
}

bool empty_folder(const fs::path& p) { return fs::is_empty(p); }

}  // namespace

TEST_CASE("analyze REPORT.ncu-rep exports the raw page with ncu from PATH and leaves nothing behind") {
    const fs::path root = temp_path("ncu-rep");
    const fs::path bin = root / "bin", tmp = root / "tmp", args = root / "args.txt";
    fs::create_directories(tmp);
    // A name that starts with '-' and has a space: an argument, never an option or a shell word.
    const fs::path report = root / "-my report.ncu-rep";
    std::ofstream(report) << "not read by roofline: ncu reads it";
    write_stub(bin, args, source_path("examples/user_level/gemm_raw.csv"), 0);
    const environment env(bin.string() + ":/usr/bin:/bin", tmp.string());

    const auto r = run_cli({"analyze", report.string(), "--format", "json"});
    CHECK(r.rc == 0);
    CHECK(r.out.find("cutlass_75_tensorop_bf16") != std::string::npos);
    CHECK(r.out.find("exported with `ncu -i") != std::string::npos);
    const std::string recorded = read_text(args.string());
    CHECK(recorded == "-i\n" + fs::absolute(report).string() + "\n--csv\n--page\nraw\n");
    CHECK(empty_folder(tmp));  // the private export folder is gone
    // A report renamed: told by its magic, exported all the same.
    const fs::path renamed = root / "renamed.csv";
    fs::copy_file(source_path("tests/data/ncu_report_head.ncu-rep"), renamed);
    const auto by_contents = run_cli({"analyze", renamed.string(), "--format", "json"});
    CHECK(by_contents.rc == 0);
    CHECK(read_text(args.string()) == "-i\n" + renamed.string() + "\n--csv\n--page\nraw\n");
    CHECK(empty_folder(tmp));

    // ncu fails: a clear error naming the report, and still nothing left.
    write_stub(bin, args, "/dev/null", 3);
    const std::string said = report.string() + ": `ncu -i " + report.string() + " --csv --page raw` failed (exit 3";
    CHECK_THROWS_WITH_AS(run_cli({"analyze", report.string()}), doctest::Contains(said.c_str()), input_error);
    CHECK(empty_folder(tmp));
}

TEST_CASE(
    "analyze REPORT.ncu-rep without ncu on PATH gives the export command; a relative PATH entry is not searched") {
    const fs::path root = temp_path("ncu-rep-none");
    const fs::path tmp = root / "tmp", here = root / "cwd";
    fs::create_directories(tmp);
    const fs::path report = root / "r.ncu-rep";
    std::ofstream(report) << "x";
    // A stub in the working directory, reachable only through the empty and "." entries of PATH.
    write_stub(here, root / "args.txt", source_path("examples/user_level/gemm_raw.csv"), 0);
    const working_folder in(here);
    const environment env(":.:/usr/bin:/bin", tmp.string());
    const std::string said =
        "ncu is not on PATH to export it; export it with: ncu -i " + report.string() + " --csv --page raw > ";
    CHECK_THROWS_WITH_AS(run_cli({"analyze", report.string()}), doctest::Contains(said.c_str()), input_error);
    CHECK_FALSE(fs::exists(root / "args.txt"));  // ./ncu never ran
    CHECK(empty_folder(tmp));
}
