#include "models/practical_fit.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace roofline {

std::vector<practical_share> fit_practical_shares(const std::vector<roof_sample>& samples) {
    std::map<std::string, int> column;
    for (const auto& s : samples) {
        if (!(s.utilisation > 0.0 && s.utilisation <= 1.5))
            throw std::invalid_argument(s.kernel + ": utilisation " + std::to_string(s.utilisation) +
                                        " is not a share of a roof");
        column.emplace(s.roof, 0);
    }
    int k = 0;
    for (auto& [roof, c] : column) c = k++;
    const auto n = Eigen::Index(samples.size());
    // One indicator column per roof: the design that a later fit with shared terms (a clock or a
    // size effect across roofs) extends with more columns.
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, k);
    Eigen::VectorXd b(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        a(i, column[samples[std::size_t(i)].roof]) = 1.0;
        b(i) = std::log(samples[std::size_t(i)].utilisation);
    }
    const Eigen::VectorXd x = a.colPivHouseholderQr().solve(b);
    const Eigen::VectorXd residual = b - a * x;

    std::vector<practical_share> out;
    for (const auto& [roof, c] : column) {
        practical_share p;
        p.roof = roof;
        p.fraction = std::exp(x(c));
        double sum_sq = 0.0;
        int count = 0;
        p.lowest = 2.0;
        for (Eigen::Index i = 0; i < n; ++i) {
            const auto& s = samples[std::size_t(i)];
            if (s.roof != roof) continue;
            sum_sq += residual(i) * residual(i);
            ++count;
            p.lowest = std::min(p.lowest, s.utilisation);
            p.highest = std::max(p.highest, s.utilisation);
            p.kernels.push_back(s.kernel);
        }
        p.spread = std::exp(std::sqrt(sum_sq / count));
        out.push_back(std::move(p));
    }
    return out;
}

cross_validation cross_validate_practical_shares(const std::vector<roof_sample>& samples) {
    std::map<std::string, std::vector<roof_sample>> by_roof;
    for (const auto& s : samples) by_roof[s.roof].push_back(s);
    std::vector<roof_sample> half[2];
    std::vector<std::pair<int, roof_sample>> all;
    for (auto& [roof, list] : by_roof) {
        std::stable_sort(list.begin(), list.end(),
                         [](const roof_sample& a, const roof_sample& b) { return a.kernel < b.kernel; });
        for (std::size_t i = 0; i < list.size(); ++i) {
            half[i % 2].push_back(list[i]);
            all.emplace_back(int(i % 2), list[i]);
        }
    }
    std::map<std::string, double> fitted[2];
    for (int f = 0; f < 2; ++f)
        if (!half[f].empty())
            for (const auto& p : fit_practical_shares(half[f])) fitted[f][p.roof] = p.fraction;
    cross_validation out;
    for (const auto& [fold, s] : all) {
        auto it = fitted[1 - fold].find(s.roof);
        if (it == fitted[1 - fold].end()) continue;
        out.samples.push_back({s.roof, s.kernel, fold, s.utilisation, it->second});
    }
    for (const auto& [roof, list] : by_roof) {
        roof_check c;
        c.roof = roof;
        c.kernels = list.size();
        double sum_sq = 0.0;
        for (const auto& h : out.samples) {
            if (h.roof != roof) continue;
            ++c.checked;
            const double e = std::log(h.error());
            sum_sq += e * e;
            if (c.worst_kernel.empty() || std::fabs(e) > std::fabs(std::log(c.worst))) {
                c.worst = h.error();
                c.worst_kernel = h.kernel;
            }
        }
        if (c.checked > 0) c.rms = std::exp(std::sqrt(sum_sq / double(c.checked)));
        out.roofs.push_back(std::move(c));
    }
    return out;
}

}  // namespace roofline
