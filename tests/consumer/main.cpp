// Analyses the capture named on the command line and prints each kernel's verdict and the first step
// that decided it: the public library (roofline/roofline.hpp), used from outside the source tree.
#include <roofline/roofline.hpp>

#include <iostream>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    const roofline::analysis a = roofline::analyze_file(argv[1], {});
    const auto labels = roofline::kernel_labels(a);
    for (std::size_t i = 0; i < a.kernels.size(); ++i) {
        const auto& k = a.kernels[i];
        std::cout << labels[i] << ": " << roofline::verdict_text(k.verdict);
        if (!k.verdict.reasons.empty()) std::cout << " (" << roofline::name(k.verdict.reasons.front().kind) << ")";
        std::cout << "\n";
    }
    return roofline::render_json(a).empty() ? 1 : 0;
}
