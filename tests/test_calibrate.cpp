// The practical share of each roof: the Eigen fit, and the hwspecs values it made from the captures.
#include "analyzer/validate/calibrate.hpp"
#include "models/gpu_spec.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

using namespace roofline;

TEST_CASE("the fit is the geometric mean per roof, with its spread") {
    auto fit = fit_practical_shares({{"fp32", "a", 0.9}, {"dram", "b", 0.8}, {"fp32", "c", 0.4}, {"dram", "d", 0.8}});
    REQUIRE(fit.size() == 2);
    CHECK(fit[0].roof == "dram");  // roofs in name order
    CHECK(fit[0].fraction == doctest::Approx(0.8));
    CHECK(fit[0].spread == doctest::Approx(1.0));
    CHECK(fit[1].fraction == doctest::Approx(0.6));                    // sqrt(0.9 x 0.4)
    CHECK(fit[1].spread == doctest::Approx(std::exp(std::log(1.5))));  // each sample a factor 1.5 from the fit
    CHECK(fit[1].lowest == 0.4);
    CHECK(fit[1].highest == 0.9);
    CHECK(fit[1].kernels == std::vector<std::string>{"a", "c"});
    CHECK_THROWS_AS(fit_practical_shares({{"fp32", "x", 0.0}}), std::invalid_argument);
    CHECK_THROWS_AS(fit_practical_shares({{"fp32", "x", 2.0}}), std::invalid_argument);
}

TEST_CASE("the H100 and H200 specs hold the shares that roofline calibrate fits to their captures") {
    auto specs = load_gpu_specs();
    auto cwd = std::filesystem::current_path();
    std::filesystem::current_path(ROOFLINE_SOURCE_DIR);
    for (auto [dir, id] : {std::pair{"examples/h100", "h100-sxm"}, std::pair{"examples/h200", "h200"}}) {
        CAPTURE(dir);
        auto r = build_pairs_report(dir, "kernels/pairs.json");
        auto samples = calibration_samples(r);
        // Only kernels whose verdict is what they were built for: on the H200, transpose_smem and
        // read_sweep<2> are L2-bound and stay out of the DRAM fit.
        for (const auto& s : samples) CHECK(s.roof != "");
        auto fit = fit_practical_shares(samples);
        const gpu_spec* spec = nullptr;
        for (const auto& s : specs)
            if (s.id == id) spec = &s;
        REQUIRE(spec);
        for (const auto& p : fit) {
            CAPTURE(p.roof);
            auto it = spec->practical_fraction.find(resource_named(p.roof).value());
            REQUIRE(it != spec->practical_fraction.end());
            CHECK(*it->second.value == doctest::Approx(p.fraction).epsilon(0.001));
        }
        bool has_dram = false, has_fp32 = false;
        for (const auto& p : fit) {
            has_dram |= p.roof == "dram" && p.kernels.size() >= 4;
            has_fp32 |= p.roof == "fp32" && p.kernels.size() == 4;
        }
        CHECK(has_dram);
        CHECK(has_fp32);
    }
    std::filesystem::current_path(cwd);
}

TEST_CASE("cross-validation fits each half of a roof's kernels, sorted by name, and checks it on the other half") {
    // dram: a 0.8, b 0.9, c 0.7, d 0.6 (given out of order): halves {a, c} and {b, d}. {a, c} fits
    // sqrt(0.8 x 0.7) = 0.7483, {b, d} sqrt(0.9 x 0.6) = 0.7348. So a is checked against 0.7348
    // (0.8 / 0.7348 = 1.0887), c too (0.9526), b against 0.7483 (1.2027), d too (0.8018): the worst
    // is d (|log 0.8018| = 0.221 > |log 1.2027| = 0.185). fp64 has one kernel: not checked.
    auto cv = cross_validate_practical_shares(
        {{"dram", "d", 0.6}, {"dram", "b", 0.9}, {"fp64", "x", 0.95}, {"dram", "c", 0.7}, {"dram", "a", 0.8}});
    REQUIRE(cv.samples.size() == 4);
    CHECK(cv.samples[0].kernel == "a");
    CHECK(cv.samples[0].fold == 0);
    CHECK(cv.samples[0].predicted == doctest::Approx(std::sqrt(0.9 * 0.6)));
    CHECK(cv.samples[1].kernel == "b");
    CHECK(cv.samples[1].fold == 1);
    CHECK(cv.samples[1].predicted == doctest::Approx(std::sqrt(0.8 * 0.7)));
    CHECK(cv.samples[3].error() == doctest::Approx(0.6 / std::sqrt(0.8 * 0.7)));
    REQUIRE(cv.roofs.size() == 2);
    CHECK(cv.roofs[0].roof == "dram");
    CHECK(cv.roofs[0].checked == 4);
    CHECK(cv.roofs[0].worst_kernel == "d");
    const double l[] = {std::log(0.8 / std::sqrt(0.54)), std::log(0.7 / std::sqrt(0.54)), std::log(0.9 / std::sqrt(0.56)),
                        std::log(0.6 / std::sqrt(0.56))};
    CHECK(cv.roofs[0].rms == doctest::Approx(std::exp(std::sqrt((l[0] * l[0] + l[1] * l[1] + l[2] * l[2] + l[3] * l[3]) / 4))));
    CHECK(cv.roofs[1].roof == "fp64");
    CHECK(cv.roofs[1].kernels == 1);
    CHECK(cv.roofs[1].checked == 0);
}

TEST_CASE("on the real captures no share is checked on a kernel it was fitted to") {
    auto cwd = std::filesystem::current_path();
    std::filesystem::current_path(ROOFLINE_SOURCE_DIR);
    for (const char* dir : {"examples/h100", "examples/h200"}) {
        CAPTURE(dir);
        auto samples = calibration_samples(build_pairs_report(dir, "kernels/pairs.json"));
        auto cv = cross_validate_practical_shares(samples);
        for (const auto& h : cv.samples) {
            CAPTURE(h.kernel);
            // The prediction is the geometric mean of the other half of the roof's kernels, computed
            // here from the samples: every kernel of the roof but those in h's half.
            std::vector<std::string> names;
            for (const auto& s : samples)
                if (s.roof == h.roof) names.push_back(s.kernel);
            std::sort(names.begin(), names.end());
            double log_sum = 0.0;
            int n = 0;
            for (std::size_t i = 0; i < names.size(); ++i) {
                if (int(i % 2) == h.fold) continue;
                for (const auto& s : samples)
                    if (s.roof == h.roof && s.kernel == names[i]) log_sum += std::log(s.utilisation), ++n;
            }
            CHECK(int(std::find(names.begin(), names.end(), h.kernel) - names.begin()) % 2 == h.fold);
            CHECK(h.predicted == doctest::Approx(std::exp(log_sum / n)));
        }
        // Every roof with two kernels or more is checked on all of them: DRAM, L2 and fp32 with 4 to 8.
        for (const auto& r : cv.roofs) {
            CAPTURE(r.roof);
            CHECK(r.checked == (r.kernels >= 2 ? r.kernels : 0));
        }
    }
    std::filesystem::current_path(cwd);
}
