#include "models/bandwidth_fit.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <map>

namespace roofline {

std::vector<bandwidth_fit> fit_bandwidths(const std::vector<transfer_sample>& samples) {
    std::map<std::string, std::vector<transfer_sample>> by_level;
    for (const auto& s : samples)
        if (s.bytes > 0 && s.ns > 0) by_level[s.level].push_back(s);
    std::vector<bandwidth_fit> out;
    for (auto& [level, list] : by_level) {
        std::stable_sort(list.begin(), list.end(),
                         [](const transfer_sample& a, const transfer_sample& b) { return a.bytes < b.bytes; });
        bandwidth_fit f;
        f.level = level;
        f.kernels = list.size();
        const bool spread = list.size() >= 3 && list.back().bytes >= 2.0 * list.front().bytes;
        if (spread) {
            const auto n = Eigen::Index(list.size());
            Eigen::MatrixXd a(n, 2);
            Eigen::VectorXd b(n);
            for (Eigen::Index i = 0; i < n; ++i) {
                const auto& s = list[std::size_t(i)];
                a(i, 0) = s.bytes / s.ns;  // seconds per byte (x 1e9), relative to the row's time
                a(i, 1) = 1.0 / s.ns;
                b(i) = 1.0;
            }
            const Eigen::Vector2d x = a.colPivHouseholderQr().solve(b);
            if (x(0) > 0) {
                f.fitted = true;
                f.bytes_per_s = 1e9 / x(0);
                f.t0_ns = x(1);
            }
        }
        double sum_sq = 0.0;
        for (const auto& s : list) {
            transfer_residual r{s.kernel, s.bytes, s.ns, f.fitted ? s.bytes / f.bytes_per_s * 1e9 + f.t0_ns : 0.0};
            if (f.fitted && r.fitted_ns > 0) sum_sq += std::log(r.error()) * std::log(r.error());
            f.residuals.push_back(std::move(r));
        }
        if (f.fitted) f.rms = std::exp(std::sqrt(sum_sq / double(list.size())));
        std::vector<double> peaks;
        for (const auto& s : list)
            if (s.peak_bytes_per_s > 0) peaks.push_back(s.peak_bytes_per_s);
        if (!peaks.empty()) {
            std::sort(peaks.begin(), peaks.end());
            f.peak_bytes_per_s = peaks[peaks.size() / 2];
        }
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace roofline
