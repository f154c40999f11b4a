// The practical share of each roof: the Eigen fit, and the hwspecs values it made from the captures.
#include "analyzer/validate/calibrate.hpp"
#include "models/gpu_spec.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

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
