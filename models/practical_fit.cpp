#include "models/practical_fit.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace roofline {

std::vector<practical_share> fit_practical_shares(const std::vector<roof_sample>& samples) {
    std::map<std::string, int> column;
    for (const auto& sample : samples) {
        if (!(sample.utilisation > 0.0 && sample.utilisation <= 1.5))
            throw std::invalid_argument(sample.kernel + ": utilisation " + std::to_string(sample.utilisation) +
                                        " is not a share of a roof");
        column.emplace(sample.roof, 0);
    }
    int column_count = 0;
    for (auto& [roof, column_index] : column) column_index = column_count++;
    const auto rows = Eigen::Index(samples.size());
    // One indicator column per roof: the design that a later fit with shared terms (a clock or a
    // size effect across roofs) extends with more columns.
    Eigen::MatrixXd design = Eigen::MatrixXd::Zero(rows, column_count);
    Eigen::VectorXd target(rows);
    for (Eigen::Index i = 0; i < rows; ++i) {
        design(i, column[samples[std::size_t(i)].roof]) = 1.0;
        target(i) = std::log(samples[std::size_t(i)].utilisation);
    }
    const Eigen::VectorXd solution = design.colPivHouseholderQr().solve(target);
    const Eigen::VectorXd residual = target - design * solution;

    std::vector<practical_share> out;
    for (const auto& [roof, column_index] : column) {
        practical_share share;
        share.roof = roof;
        share.fraction = std::exp(solution(column_index));
        double sum_sq = 0.0;
        int count = 0;
        share.lowest = 2.0;
        for (Eigen::Index i = 0; i < rows; ++i) {
            const auto& sample = samples[std::size_t(i)];
            if (sample.roof != roof) continue;
            sum_sq += residual(i) * residual(i);
            ++count;
            share.lowest = std::min(share.lowest, sample.utilisation);
            share.highest = std::max(share.highest, sample.utilisation);
            share.kernels.push_back(sample.kernel);
        }
        share.spread = std::exp(std::sqrt(sum_sq / count));
        out.push_back(std::move(share));
    }
    return out;
}

cross_validation cross_validate_practical_shares(const std::vector<roof_sample>& samples) {
    std::map<std::string, std::vector<roof_sample>> by_roof;
    for (const auto& sample : samples) by_roof[sample.roof].push_back(sample);
    std::vector<roof_sample> half[2];
    std::vector<std::pair<int, roof_sample>> all;
    for (auto& [roof, list] : by_roof) {
        std::stable_sort(list.begin(), list.end(),
                         [](const roof_sample& left, const roof_sample& right) { return left.kernel < right.kernel; });
        for (std::size_t i = 0; i < list.size(); ++i) {
            half[i % 2].push_back(list[i]);
            all.emplace_back(int(i % 2), list[i]);
        }
    }
    std::map<std::string, double> fitted[2];
    for (int fold = 0; fold < 2; ++fold)
        if (!half[fold].empty())
            for (const auto& share : fit_practical_shares(half[fold])) fitted[fold][share.roof] = share.fraction;
    cross_validation out;
    for (const auto& [fold, sample] : all) {
        auto it = fitted[1 - fold].find(sample.roof);
        if (it == fitted[1 - fold].end()) continue;
        out.samples.push_back({sample.roof, sample.kernel, fold, sample.utilisation, it->second});
    }
    for (const auto& [roof, list] : by_roof) {
        roof_check check;
        check.roof = roof;
        check.kernels = list.size();
        double sum_sq = 0.0;
        for (const auto& held : out.samples) {
            if (held.roof != roof) continue;
            ++check.checked;
            const double log_error = std::log(held.error());
            sum_sq += log_error * log_error;
            if (check.worst_kernel.empty() || std::fabs(log_error) > std::fabs(std::log(check.worst))) {
                check.worst = held.error();
                check.worst_kernel = held.kernel;
            }
        }
        if (check.checked > 0) check.rms = std::exp(std::sqrt(sum_sq / double(check.checked)));
        out.roofs.push_back(std::move(check));
    }
    return out;
}

}  // namespace roofline
