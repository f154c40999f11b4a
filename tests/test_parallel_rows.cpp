// The raw page read on several threads gives the sink what one thread gives it: the same launches
// in the same order with the same lines, the same summary, or the same error at the same place.
// Tiny blocks (one line each) put a block boundary at every row, so every hand-over between
// threads, every fallback to one thread and every error is met on the committed captures.
#include "analyzer/base/input_error.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <stdexcept>

using namespace roofline;
using namespace roofline::test;

namespace {

struct read_result {
    std::vector<launch_record> launches;
    read_summary summary;
    std::string error;  // "code line:column message" when the read failed
};

read_result read_with(const std::string& text, std::size_t threads, std::size_t block_bytes) {
    read_options o;
    o.threads = threads;
    o.parallel.block_bytes = block_bytes;
    read_result r;
    try {
        r.launches = read_launches(text, &r.summary, o);
    } catch (const input_error& e) {
        r.error = std::string(error_code_name(e.code())) + " " + std::to_string(e.line()) + ":" +
                  std::to_string(e.column()) + " " + e.what();
    }
    return r;
}

void check_same_launch(const launch_record& a, const launch_record& b) {
    CHECK(a.id == b.id);
    CHECK(a.kernel_name == b.kernel_name);
    CHECK(a.block_size == b.block_size);
    CHECK(a.grid_size == b.grid_size);
    CHECK(a.device == b.device);
    CHECK(a.cc == b.cc);
    CHECK(a.line == b.line);
    CHECK(a.invocations == b.invocations);
    CHECK(a.values == b.values);
    CHECK(a.texts == b.texts);
    CHECK(a.rules.size() == b.rules.size());
}

// Reads `text` on one thread and on several, and checks that they agree; returns the launches the
// workers parsed in the tiny-block read, so a test can show the threads were used.
std::size_t check_threads_agree(const std::string& text, const std::string& what) {
    INFO(what);
    const read_result one = read_with(text, 1, std::size_t(1) << 20);
    CHECK(one.summary.parallel_launches == 0);
    std::size_t parallel = 0;
    for (auto [threads, block] : {std::pair<std::size_t, std::size_t>{2, 1}, {3, 1}, {2, 4096}, {4, 65536}}) {
        INFO("threads " << threads << ", blocks of " << block << " bytes");
        const read_result many = read_with(text, threads, block);
        CHECK(many.error == one.error);
        REQUIRE(many.launches.size() == one.launches.size());
        for (std::size_t i = 0; i < one.launches.size(); ++i) check_same_launch(many.launches[i], one.launches[i]);
        if (!one.error.empty()) continue;
        CHECK(many.summary.form == one.summary.form);
        CHECK(many.summary.style == one.summary.style);
        CHECK(many.summary.style_assumed == one.summary.style_assumed);
        CHECK(many.summary.launches == one.summary.launches);
        CHECK(many.summary.skipped_lines == one.summary.skipped_lines);
        CHECK(many.summary.notes == one.summary.notes);
        if (threads == 2 && block == 1) parallel = many.summary.parallel_launches;
    }
    return parallel;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

std::string joined(const std::vector<std::string>& lines, const std::string& eol = "\n") {
    std::string s;
    for (const auto& l : lines) s += l + eol;
    return s;
}

}  // namespace

TEST_CASE("every committed capture reads the same on one thread and on several") {
    std::size_t files = 0, raw_with_workers = 0;
    for (const char* dir : {"examples", "tests/data", "tests/corpus"})
        for (const auto& entry : std::filesystem::recursive_directory_iterator(source_path(dir))) {
            if (entry.path().extension() != ".csv") continue;
            ++files;
            if (check_threads_agree(read_text(entry.path().string()), entry.path().string()) > 0) ++raw_with_workers;
        }
    CHECK(files > 80);
    // The raw pages of more than one data row (the details pages never go to the workers).
    CHECK(raw_with_workers >= 30);
}

TEST_CASE("the workers hand a row they do not take back to one thread, which reads it exactly") {
    const auto lines = lines_of(read_text(source_path("examples/h100/kernels_raw.csv")));
    REQUIRE(lines.size() > 8);
    const std::size_t rows = lines.size() - 2;

    SUBCASE("a quote inside a field in the middle of the file") {
        auto edited = lines;
        const auto at = edited[6].find("\",\"", edited[6].find("\",\"") + 3);  // the third field
        edited[6].insert(at, "\"\" quoted");
        const auto text = joined(edited);
        CHECK(check_threads_agree(text, "doubled quote at line 7") > 0);
        const read_result r = read_with(text, 2, 1);
        CHECK(r.error.empty());
        CHECK(r.summary.launches == rows);
        CHECK(r.summary.parallel_launches ==
              3);  // lines 4-6: line 3 is read before the workers start, line 7 after they stop
    }
    SUBCASE("a field over a line break") {
        auto edited = lines;
        const auto at = edited[5].find("\",\"") + 3;
        edited[5].insert(at, "two\nlines ");
        CHECK(check_threads_agree(joined(edited), "line break in a field at line 6") > 0);
    }
    SUBCASE("an error in the middle of the file is the one-thread error") {
        auto edited = lines;
        edited[7] = edited[7].substr(0, edited[7].rfind(",\""));  // one field short
        const auto text = joined(edited);
        check_threads_agree(text, "short row at line 8");
        CHECK(read_with(text, 2, 1).error.find("column_count 8:0") == 0);
    }
    SUBCASE("program output, ==PROF== lines, blank lines, CRLF and no final line break") {
        auto edited = lines;
        edited.insert(edited.begin() + 5, "==PROF== Disconnected from process 1234");
        edited.insert(edited.begin() + 4, "");
        edited.insert(edited.begin() + 4, "step 10, loss 0.25");
        std::string text = joined(edited, "\r\n");
        text.resize(text.size() - 2);
        CHECK(check_threads_agree(text, "mixed lines") > 0);
        const read_result r = read_with(text, 2, 1);
        CHECK(r.summary.skipped_lines == 2);
        CHECK(r.launches.back().line == edited.size());
    }
}

TEST_CASE("an exception from the sink stops the workers and reaches the caller") {
    const std::string text = read_text(source_path("examples/h100/kernels_raw.csv"));
    read_options o;
    o.threads = 2;
    o.parallel.block_bytes = 1;
    std::istringstream in(text);
    std::size_t seen = 0;
    CHECK_THROWS_AS(read_ncu_csv(in, "test.csv", o,
                                 [&](launch_record&&) {
                                     if (++seen == 4) throw std::runtime_error("sink gave up");
                                 }),
                    std::runtime_error);
    CHECK(seen == 4);
}
