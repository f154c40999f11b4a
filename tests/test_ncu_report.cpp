// roofline analyze REPORT.ncu-rep: the raw page exported with ncu from PATH (a stub here, which records
// its arguments), no shell, into a private temporary directory that is gone afterwards, also on failure.
#include "analyzer/base/input_error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/wait.h>
#include <unistd.h>

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

TEST_CASE("an export interrupted by SIGTERM, SIGINT or SIGHUP leaves nothing behind and stops the exporter") {
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
        CAPTURE(sig);
        const fs::path root = temp_path("ncu-rep-signal-" + std::to_string(sig));
        const fs::path bin = root / "bin", tmp = root / "tmp", started = root / "started";
        fs::create_directories(tmp);
        fs::create_directories(bin);
        const fs::path report = root / "r.ncu-rep";
        std::ofstream(report) << "x";
        // An exporter that writes half a CSV, says it started, then hangs.
        std::ofstream(bin / "ncu") << "#!/bin/sh\nprintf '\"ID\",\"Process' ; echo $$ > '" << started.string()
                                   << ".tmp'; mv '" << started.string() << ".tmp' '" << started.string()
                                   << "'; sleep 30\n";
        fs::permissions(bin / "ncu", fs::perms::owner_all);
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            // As in the roofline binary: no handler of the test framework's underneath.
            for (int s : {SIGTERM, SIGINT, SIGHUP}) ::signal(s, SIG_DFL);
            ::setenv("PATH", (bin.string() + ":/usr/bin:/bin").c_str(), 1);
            ::setenv("TMPDIR", tmp.string().c_str(), 1);
            try {
                run_cli({"analyze", report.string()});
            } catch (...) {
            }
            ::_exit(0);
        }
        for (int i = 0; i < 200 && !fs::exists(started); ++i) ::usleep(20000);
        REQUIRE(fs::exists(started));
        REQUIRE(!fs::is_empty(tmp));  // the private folder and its half-written export are there
        ::kill(child, sig);
        int status = 0;
        ::waitpid(child, &status, 0);
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == sig);
        CHECK(fs::is_empty(tmp));
        // The exporter's process group went with it: the stub's shell is gone (or a zombie awaiting its reaper).
        const std::string pid = read_text(started.string());
        auto alive = [&] {
            std::ifstream stat("/proc/" + pid.substr(0, pid.find('\n')) + "/stat");
            std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
            const auto close = text.rfind(')');
            return !text.empty() && close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
        };
        for (int i = 0; i < 100 && alive(); ++i) ::usleep(20000);
        CHECK_FALSE(alive());
    }
}

TEST_CASE("timeline REPORT.nsys-rep exports into a private folder: a planted link or file is never used") {
    const fs::path root = temp_path("nsys_stub"), bin = root / "bin", tmp = root / "tmp";
    fs::create_directories(bin);
    fs::create_directories(tmp);
    const fs::path args = root / "args.txt";
    // A stub nsys: records its arguments, writes the planted SQLite export where --output says.
    {
        const fs::path stub = bin / "nsys";
        std::ofstream(stub) << "#!/bin/sh\n"
                            << "for a in \"$@\"; do printf '%s\\n' \"$a\"; done > '" << args.string() << "'\n"
                            << "while [ $# -gt 0 ]; do if [ \"$1\" = --output ]; then /bin/cp '"
                            << source_path("tests/data/timeline/planted.sqlite") << "' \"$2\"; fi; shift; done\n";
        fs::permissions(stub, fs::perms::owner_all);
    }
    // What an attacker plants where the old reader wrote its export ($TMPDIR/roofline-<pid>-export.sqlite):
    // a link to a victim file, for every pid this test could have.
    const fs::path victim = root / "victim.txt";
    std::ofstream(victim) << "precious\n";
    fs::create_symlink(victim, tmp / ("roofline-" + std::to_string(::getpid()) + "-export.sqlite"));
    const fs::path report = root / "-run.nsys-rep";  // a name that starts with '-'
    std::ofstream(report) << "not read by roofline";
    {
        environment env(bin.string(), tmp.string());
        const auto r = run_cli({"timeline", report.string(), "--format", "json"});
        CHECK(r.rc == 0);
        CHECK(r.out.find("\"schema\": \"roofline-timeline/1\"") != std::string::npos);
    }
    CHECK(read_text(victim.string()) == "precious\n");
    // nsys got the report by an absolute path (not an option), and the export went into a private folder
    // that is gone: only the planted link is left in TMPDIR.
    const std::string seen = read_text(args.string());
    CHECK(seen.find("\n" + fs::absolute(report).string() + "\n") != std::string::npos);
    std::size_t left = 0;
    for (const auto& e : fs::directory_iterator(tmp)) left += e.is_symlink() ? 0 : 1;
    CHECK(left == 0);
    fs::remove_all(root);
}
