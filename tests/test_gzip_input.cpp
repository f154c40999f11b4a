// An export kept compressed (`ncu ... --csv | gzip > report.csv.gz`) reads as the export itself; a compressed
// trace, a file cut short and a gzip bomb each stop with one line naming the file.
#include "analyzer/base/input_error.hpp"
#include "analyzer/timeline/trace_file.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <string>

#include <zlib.h>

using namespace roofline;
using namespace roofline::test;

namespace {

void write_gzip(const std::filesystem::path& path, const std::string& bytes) {
    gzFile out = gzopen(path.string().c_str(), "wb9");
    REQUIRE(out != nullptr);
    REQUIRE(gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size())) == int(bytes.size()));
    REQUIRE(gzclose(out) == Z_OK);
}

std::string error_of(const std::string& path) {
    try {
        analyze_file(path, {});
    } catch (const input_error& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a gzip-compressed export gives the analysis of the export itself") {
    for (const char* capture : {"examples/h100/kernels_raw.csv", "examples/h100/pairs_details.csv"}) {
        CAPTURE(capture);
        const auto packed = temp_path("packed.csv.gz");
        write_gzip(packed, read_text(source_path(capture)));
        const analysis plain = analyze_file(source_path(capture), {});
        const analysis gz = analyze_file(packed.string(), {});
        REQUIRE(gz.kernels.size() == plain.kernels.size());
        CHECK(gz.read.form == plain.read.form);
        CHECK(gz.read.launches == plain.read.launches);
        for (std::size_t i = 0; i < plain.kernels.size(); ++i) {
            const auto& a = plain.kernels[i];
            const auto& b = gz.kernels[i];
            CAPTURE(a.group.name);
            CHECK(b.group.name == a.group.name);
            CHECK(verdict_text(b.verdict) == verdict_text(a.verdict));
            REQUIRE(b.diagnosis.findings.size() == a.diagnosis.findings.size());
            for (std::size_t f = 0; f < a.diagnosis.findings.size(); ++f) {
                CHECK(b.diagnosis.findings[f].id == a.diagnosis.findings[f].id);
                CHECK(b.diagnosis.findings[f].est_speedup == a.diagnosis.findings[f].est_speedup);
            }
        }
    }
}

TEST_CASE("a compressed file that is no export, cut short, or a bomb stops with the file named") {
    // A compressed trace: timeline reads it.
    const std::string trace = error_of(source_path("examples/user_level/trace_naive.json.gz"));
    CHECK(trace.find("trace_naive.json.gz") != std::string::npos);
    CHECK(trace.find("roofline timeline") != std::string::npos);
    // Cut short: the gzip trailer is missing.
    const std::string whole = read_text(source_path("examples/h100/kernels_raw.csv"));
    const auto full = temp_path("full.csv.gz");
    write_gzip(full, whole);
    const std::string packed = read_text(full.string());
    const auto cut = temp_path("cut.csv.gz");
    {
        std::ofstream out(cut, std::ios::binary);
        out.write(packed.data(), std::streamsize(packed.size() / 2));
    }
    const std::string truncated = error_of(cut.string());
    CHECK(truncated.find("cut.csv.gz") != std::string::npos);
    CHECK(truncated.find("truncated or damaged") != std::string::npos);
    // A bomb: a header and 80 MiB of one byte, which no export is (the ratio is checked from 64 MiB on).
    const auto bomb = temp_path("bomb.csv.gz");
    write_gzip(bomb, "\"ID\",\"Kernel Name\"\n" + std::string(std::size_t(80) << 20, 'a'));
    const std::string bombed = error_of(bomb.string());
    CHECK(bombed.find("bomb.csv.gz") != std::string::npos);
    CHECK(bombed.find("expands more than") != std::string::npos);
}

TEST_CASE("a compressed trace cut short stops with the file named, as an export does (one zlib reader for both)") {
    const std::string packed = read_text(source_path("examples/user_level/trace_naive.json.gz"));
    const auto cut = temp_path("cut.json.gz");
    {
        std::ofstream out(cut, std::ios::binary);
        out.write(packed.data(), std::streamsize(packed.size() / 2));
    }
    std::string error;
    try {
        timeline::read_trace_file(cut.string());
    } catch (const input_error& e) {
        error = e.what();
    }
    CHECK(error.find("cut.json.gz") != std::string::npos);
    CHECK(error.find("truncated or damaged") != std::string::npos);
}
