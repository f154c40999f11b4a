// The step progressions (examples/steps): four operations taken from slow to fast, each step timed
// unprofiled and captured with ncu. For every step, the engine's first finding and its estimate are
// set against the measured speedup of the next step, and of the step that applies that finding's fix
// (steps.json, from the source). STEPS.md is generated here, never typed: ROOFLINE_UPDATE_GOLDEN=1
// rewrites it.
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

using namespace roofline;
using namespace roofline::test;
using json = nlohmann::json;

namespace {

constexpr double within_lo = 0.67, within_hi = 1.5;  // the band around the measured speedup

// "name ... median_us" rows of the runner (name rel_err median_us ...) and of steps_lib.py (name median_us ...).
std::map<std::string, double> medians(const std::string& text, int column) {
    std::map<std::string, double> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string x; words >> x;) w.push_back(x);
        if (int(w.size()) <= column) continue;
        char* end = nullptr;
        const double v = std::strtod(w[column].c_str(), &end);
        if (end && *end == '\0' && v > 0) out[w[0]] = v;
    }
    return out;
}

std::string two(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return b;
}

bool within(double estimate, double measured) {
    return estimate / measured >= within_lo && estimate / measured <= within_hi;
}

struct step_row {
    std::string step, first, next, fix_step;
    std::optional<double> estimate;
    double next_unprofiled = 0, next_ncu = 0, fix_unprofiled = 0, fix_ncu = 0;
};

}  // namespace

TEST_CASE("step progressions: each first finding's estimate against the step that applies its fix, and STEPS.md") {
    const auto cfg = json::parse(read_text(source_path("examples/steps/steps.json")));
    const auto own = analyze_example("examples/steps/" + cfg["captures"]["own"].get<std::string>());
    const auto lib = analyze_example("examples/steps/" + cfg["captures"]["lib"].get<std::string>());
    auto times = medians(read_text(source_path("examples/steps/" + cfg["timings"]["own"].get<std::string>())), 2);
    for (const auto& [op, us] :
         medians(read_text(source_path("examples/steps/" + cfg["timings"]["lib"].get<std::string>())), 1))
        times[op] = us;
    auto kernel = [&](const std::string& step) -> const analysed_kernel& {
        if (cfg["library_kernels"].contains(step))
            return kernel_named(lib, cfg["library_kernels"][step].get<std::string>());
        return kernel_named(own, step + "(");
    };
    std::vector<std::pair<std::string, std::vector<step_row>>> chains;
    for (const auto& ch : cfg["chains"]) {
        const auto steps = ch["steps"].get<std::vector<std::string>>();
        std::vector<step_row> rows;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const auto& k = kernel(steps[i]);
            REQUIRE(!k.diagnosis.findings.empty());
            const auto& f = k.diagnosis.findings.front();
            step_row r;
            r.step = steps[i];
            r.first = f.id;
            r.estimate = f.est_speedup;
            REQUIRE(times.count(r.step));
            if (i + 1 < steps.size()) {
                r.next = steps[i + 1];
                REQUIRE(times.count(r.next));
                r.next_unprofiled = times[r.step] / times[r.next];
                r.next_ncu = k.roof.duration_ns / kernel(r.next).roof.duration_ns;
            }
            if (ch["fixes"].contains(r.step) && ch["fixes"][r.step].contains(r.first)) {
                r.fix_step = ch["fixes"][r.step][r.first].get<std::string>();
                r.fix_unprofiled = times[r.step] / times[r.fix_step];
                r.fix_ncu = k.roof.duration_ns / kernel(r.fix_step).roof.duration_ns;
            }
            rows.push_back(r);
        }
        chains.emplace_back(ch["operation"].get<std::string>(), std::move(rows));
    }

    // The figures of the issue, and the table.
    std::size_t next_steps = 0, next_within = 0, fix_steps = 0, fix_within_unprofiled = 0, fix_within_ncu = 0;
    std::ostringstream table;
    for (const auto& [operation, rows] : chains) {
        table << "\n### " << operation << "\n\n"
              << "| step | first finding | est. | next step | measured (unprofiled / ncu) | est. / measured | "
                 "step that applies the fix | measured (unprofiled / ncu) | est. / measured (unprofiled / ncu) |\n"
              << "|---|---|---|---|---|---|---|---|---|\n";
        for (const auto& r : rows) {
            const std::string est = r.estimate ? two(*r.estimate) + "x" : "-";
            table << "| `" << r.step << "` | " << r.first << " | " << est << " | ";
            if (!r.next.empty()) {
                ++next_steps;
                const bool ok = r.estimate && r.fix_step == r.next && within(*r.estimate, r.next_unprofiled);
                next_within += ok;
                table << "`" << r.next << "` | " << two(r.next_unprofiled) << "x / " << two(r.next_ncu) << "x | "
                      << (r.estimate ? two(*r.estimate / r.next_unprofiled) : "-") << (ok ? "" : " (miss)") << " | ";
            } else {
                table << "- | - | - | ";
            }
            if (!r.fix_step.empty() && r.estimate) {
                ++fix_steps;
                const bool u = within(*r.estimate, r.fix_unprofiled), n = within(*r.estimate, r.fix_ncu);
                fix_within_unprofiled += u;
                fix_within_ncu += n;
                table << "`" << r.fix_step << "` | " << two(r.fix_unprofiled) << "x / " << two(r.fix_ncu) << "x | "
                      << two(*r.estimate / r.fix_unprofiled) << (u ? "" : " (miss)") << " / "
                      << two(*r.estimate / r.fix_ncu) << (n ? "" : " (miss)") << " |\n";
            } else {
                table << "no fix step | - | - |\n";
            }
        }
    }
    std::ostringstream md;
    md << "# Step progressions: estimates against measured speedups\n\n"
       << "Generated by `tests/test_steps.cpp` from `steps.json`, the captures and the timings of this folder "
          "(`ROOFLINE_UPDATE_GOLDEN=1 ./tests/roofline_tests -tc=\"step progressions*\"` rewrites it). `MANIFEST.md` "
          "says how "
          "they were made. Measured speedups are the step's median time over the other step's: unprofiled (CUDA "
          "events, "
          "21 runs, boost clocks) and under ncu (gpu__time_duration, the clocks ncu locks). An estimate is within when "
          "it "
          "lies in ["
       << within_lo << "x, " << within_hi << "x] of the measured speedup.\n\n"
       << "- Next step (the issue's measure: the next step applies the first finding's fix, and the estimate is within "
          "of "
          "its unprofiled speedup): **"
       << next_within << " of " << next_steps << "** steps.\n"
       << "- The step that applies the first finding's fix (steps.json, from the source): within of the unprofiled "
          "speedup on **"
       << fix_within_unprofiled << " of " << fix_steps << "**, of the speedup under ncu on **" << fix_within_ncu
       << " of " << fix_steps << "**.\n"
       << table.str()
       << "\n## Known misses\n\n"
          "- `sgemm_blocked64` and `sgemm_blocked128` -> cuBLAS TF32: 1.33x over the measured speedup under ncu, 1.8x "
          "over the "
          "unprofiled one. Under ncu the FP32 kernels run at the base clock ncu locks (their time scales with it), "
          "unprofiled "
          "at boost; the TF32 kernel is not clock-bound the same way, so the unprofiled ratio is smaller.\n"
          "- The next-step measure misses where a step applies part of a fix or adds a waste: `xpose_smem` coalesces "
          "but "
          "brings 32-way bank conflicts (the estimate is for the clean fix, which `xpose_padded` measures), "
          "`sgemm_tiled16` "
          "stages tiles without the register tile the data-reuse fix needs, `sum_sequential` removes the modulo but "
          "keeps "
          "the atomics, whose chain on one line (262,144 reductions, 3 L2 cycles each: `atomic_chain_ns`) is its first "
          "finding and what `sum_grid_stride` removes, and `sgemm_naive_rows`'s first finding is the tiling (101x, to "
          "`sgemm_blocked128` 78x) rather than the coalescing (16.8x, second) the next step applies.\n";
    const std::string path = source_path("examples/steps/STEPS.md");
    if (std::getenv("ROOFLINE_UPDATE_GOLDEN")) std::ofstream(path, std::ios::binary) << md.str();
    CHECK(md.str() == read_text(path));

    // Every first finding with a fix step: its estimate within the band of the speedup under ncu (the
    // clocks the counters were taken at).
    for (const auto& [operation, rows] : chains)
        for (const auto& r : rows) {
            if (r.fix_step.empty() || !r.estimate) continue;
            CAPTURE(r.step);
            CAPTURE(r.first);
            CHECK(within(*r.estimate, r.fix_ncu));
        }
    CHECK(fix_steps >= 16);
}
