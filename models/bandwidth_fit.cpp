#include "models/bandwidth_fit.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <map>

namespace roofline {

std::vector<bandwidth_fit> fit_bandwidths(const std::vector<transfer_sample>& samples) {
    std::map<std::string, std::vector<transfer_sample>> by_level;
    for (const auto& sample : samples)
        if (sample.bytes > 0 && sample.ns > 0) by_level[sample.level].push_back(sample);
    std::vector<bandwidth_fit> out;
    for (auto& [level, list] : by_level) {
        std::stable_sort(list.begin(), list.end(), [](const transfer_sample& left, const transfer_sample& right) {
            return left.bytes < right.bytes;
        });
        bandwidth_fit fit;
        fit.level = level;
        fit.kernels = list.size();
        const bool spread = list.size() >= 3 && list.back().bytes >= 2.0 * list.front().bytes;
        if (spread) {
            const auto rows = Eigen::Index(list.size());
            Eigen::MatrixXd design(rows, 2);
            Eigen::VectorXd target(rows);
            for (Eigen::Index i = 0; i < rows; ++i) {
                const auto& sample = list[std::size_t(i)];
                design(i, 0) = sample.bytes / sample.ns;  // seconds per byte (x 1e9), relative to the row's time
                design(i, 1) = 1.0 / sample.ns;
                target(i) = 1.0;
            }
            const Eigen::Vector2d solution = design.colPivHouseholderQr().solve(target);
            if (solution(0) > 0) {
                fit.fitted = true;
                fit.bytes_per_s = 1e9 / solution(0);
                fit.t0_ns = solution(1);
            }
        }
        double sum_sq = 0.0;
        for (const auto& sample : list) {
            transfer_residual residual{sample.kernel, sample.bytes, sample.ns,
                                       fit.fitted ? sample.bytes / fit.bytes_per_s * 1e9 + fit.t0_ns : 0.0};
            if (fit.fitted && residual.fitted_ns > 0) sum_sq += std::log(residual.error()) * std::log(residual.error());
            fit.residuals.push_back(std::move(residual));
        }
        if (fit.fitted) fit.rms = std::exp(std::sqrt(sum_sq / double(list.size())));
        std::vector<double> peaks;
        for (const auto& sample : list)
            if (sample.peak_bytes_per_s > 0) peaks.push_back(sample.peak_bytes_per_s);
        if (!peaks.empty()) {
            std::sort(peaks.begin(), peaks.end());
            fit.peak_bytes_per_s = peaks[peaks.size() / 2];
        }
        out.push_back(std::move(fit));
    }
    return out;
}

}  // namespace roofline
