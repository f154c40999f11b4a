// Writing the output: never over something that appeared meanwhile, never through a link or onto a
// device with -f, and nothing left behind when a signal stops the run mid-write.
#include "analyzer/base/atomic_file.hpp"
#include "analyzer/base/input_error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <csignal>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace roofline;
using namespace roofline::test;
namespace fs = std::filesystem;

namespace {

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

std::size_t temporaries_in(const fs::path& dir) {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().find(".tmp-") != std::string::npos) ++n;
    return n;
}

}  // namespace

TEST_CASE("-o without -f: a file that appears while the output is written is never replaced") {
    const fs::path dir = temp_path("race");
    fs::create_directories(dir);
    const std::string target = (dir / "out.md").string();
    // The other run's file lands between the check and the final move.
    const file_writer racing = [&](std::ostream& out) {
        std::ofstream(target) << "the other run's report\n";
        out << "this run's report\n";
    };
    const std::string e = error_of([&] { write_files_atomically({{target, racing}}, write_policy{}); });
    CHECK(e.find("appeared while roofline was writing") != std::string::npos);
    CHECK(read_text(target) == "the other run's report\n");
    CHECK(temporaries_in(dir) == 0);
    // With -f the finished output replaces it.
    write_file_atomically(target, "replaced\n", write_policy{true, {}});
    CHECK(read_text(target) == "replaced\n");
    fs::remove_all(dir);
}

TEST_CASE("-o: a dangling link is refused with or without -f; -f replaces only regular files") {
    const fs::path dir = temp_path("links");
    fs::create_directories(dir);
    const std::string link = (dir / "out.md").string(), victim = (dir / "victim.txt").string();
    fs::create_symlink(victim, link);  // points at nothing yet
    CHECK(error_of([&] { check_output(link, write_policy{}); }).find("link to nothing") != std::string::npos);
    CHECK(error_of([&] {
              write_file_atomically(link, "x", write_policy{true, {}});
          }).find("link to nothing") != std::string::npos);
    CHECK_FALSE(fs::exists(victim));
    // A pipe at -o, with -f: refused, and left a pipe.
    const std::string fifo = (dir / "pipe").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(error_of([&] {
              write_file_atomically(fifo, "x", write_policy{true, {}});
          }).find("not a regular file") != std::string::npos);
    struct stat st {};
    REQUIRE(::lstat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
    CHECK(temporaries_in(dir) == 0);
    fs::remove_all(dir);
}

TEST_CASE("-o: SIGTERM, SIGINT or SIGHUP mid-write leaves no temporary file, and the run dies of the signal") {
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
        CAPTURE(sig);
        const fs::path dir = temp_path("signal");
        fs::create_directories(dir);
        const std::string target = (dir / "out.html").string();
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            try {
                write_files_atomically({{target, file_writer([sig](std::ostream& out) {
                                             out << std::string(1 << 20, 'x') << std::flush;
                                             ::raise(sig);
                                             out << "never";
                                         })}},
                                       write_policy{});
            } catch (...) {
            }
            ::_exit(0);  // not reached: the signal ends the child
        }
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        CHECK(WIFSIGNALED(status));
        if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == sig);
        CHECK(temporaries_in(dir) == 0);
        CHECK_FALSE(fs::exists(target));
        fs::remove_all(dir);
    }
}
