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
            throw std::invalid_argument(s.kernel + ": utilisation " + std::to_string(s.utilisation) + " is not a share of a roof");
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

}  // namespace roofline
