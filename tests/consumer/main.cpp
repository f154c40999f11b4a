// Analyses the capture named on the command line and prints each kernel's verdict: the library's
// pipeline and report stages, used from outside the source tree.
#include "analyzer/pipeline/analysis.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/report/report.hpp"

#include <iostream>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    const roofline::analysis a = roofline::analyze_file(argv[1], {});
    for (const auto& k : a.kernels) std::cout << roofline::short_name(k.group.name) << ": " << roofline::verdict_text(k.verdict) << "\n";
    return roofline::render_json(a).empty() ? 1 : 0;
}
