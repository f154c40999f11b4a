#include "analyzer/read/display_names.hpp"

namespace roofline {
namespace {

struct display_entry {
    std::string_view section;
    std::string_view display;
    std::string_view metric;
};

// Sections ncu has renamed keep their old names too (empty section: matches any section).
constexpr display_entry table[] = {
    {"GPU Speed Of Light Throughput", "DRAM Frequency", "dram__cycles_elapsed.avg.per_second"},
    {"GPU Speed Of Light Throughput", "SM Frequency", "sm__cycles_elapsed.avg.per_second"},
    {"GPU Speed Of Light Throughput", "Elapsed Cycles", "sm__cycles_elapsed.max"},
    {"GPU Speed Of Light Throughput", "Memory Throughput",
     "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"GPU Speed Of Light Throughput", "DRAM Throughput", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"GPU Speed Of Light Throughput", "Duration", "gpu__time_duration.sum"},
    {"GPU Speed Of Light Throughput", "L1/TEX Cache Throughput", "l1tex__throughput.avg.pct_of_peak_sustained_active"},
    {"GPU Speed Of Light Throughput", "L2 Cache Throughput", "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"GPU Speed Of Light Throughput", "SM Active Cycles", "sm__cycles_active.avg"},
    {"GPU Speed Of Light Throughput", "Compute (SM) Throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"Compute Workload Analysis", "Executed Ipc Active", "sm__inst_executed.avg.per_cycle_active"},
    {"Compute Workload Analysis", "Executed Ipc Elapsed", "sm__inst_executed.avg.per_cycle_elapsed"},
    {"Compute Workload Analysis", "Issue Slots Busy", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed"},
    {"Compute Workload Analysis", "Issued Ipc Active", "sm__inst_issued.avg.per_cycle_active"},
    {"Compute Workload Analysis", "SM Busy", "sm__instruction_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"Memory Workload Analysis", "Memory Throughput", "dram__bytes.sum.per_second"},
    {"Memory Workload Analysis", "Mem Busy", "gpu__compute_memory_access_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"Memory Workload Analysis", "Max Bandwidth", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"Memory Workload Analysis", "L1/TEX Hit Rate", "l1tex__t_sector_hit_rate.pct"},
    {"Memory Workload Analysis", "L2 Hit Rate", "lts__t_sector_hit_rate.pct"},
    {"Memory Workload Analysis", "Mem Pipes Busy", "sm__memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"Memory Workload Analysis", "L2 Persisting Size", "launch__persisting_l2_cache_size"},
    {"Scheduler Statistics", "One or More Eligible", "smsp__issue_active.avg.pct_of_peak_sustained_active"},
    {"Scheduler Statistics", "Issued Warp Per Scheduler", "smsp__issue_active.avg.per_cycle_active"},
    {"Scheduler Statistics", "No Eligible", "smsp__issue_inst0.avg.pct_of_peak_sustained_active"},
    {"Scheduler Statistics", "Active Warps Per Scheduler", "smsp__warps_active.avg.per_cycle_active"},
    {"Scheduler Statistics", "Eligible Warps Per Scheduler", "smsp__warps_eligible.avg.per_cycle_active"},
    {"Warp State Statistics", "Warp Cycles Per Issued Instruction", "smsp__average_warp_latency_per_inst_issued.ratio"},
    {"Warp State Statistics", "Avg. Active Threads Per Warp", "smsp__thread_inst_executed_per_inst_executed.ratio"},
    {"Warp State Statistics", "Warp Cycles Per Executed Instruction",
     "smsp__average_warps_active_per_inst_executed.ratio"},
    {"Instruction Statistics", "Executed Instructions", "smsp__inst_executed.sum"},
    {"Instruction Statistics", "Issued Instructions", "smsp__inst_issued.sum"},
    {"Launch Statistics", "Block Size", "launch__block_size"},
    {"Launch Statistics", "Grid Size", "launch__grid_size"},
    {"Launch Statistics", "Registers Per Thread", "launch__registers_per_thread"},
    {"Launch Statistics", "Threads", "launch__thread_count"},
    {"Launch Statistics", "# SMs", "launch__sm_count"},
    {"Launch Statistics", "Waves Per SM", "launch__waves_per_multiprocessor"},
    {"Launch Statistics", "Shared Memory Configuration Size", "launch__shared_mem_config_size"},
    {"Launch Statistics", "Function Cache Configuration", "launch__func_cache_config"},
    {"Occupancy", "Block Limit Registers", "launch__occupancy_limit_registers"},
    {"Occupancy", "Block Limit Shared Mem", "launch__occupancy_limit_shared_mem"},
    {"Occupancy", "Block Limit Warps", "launch__occupancy_limit_warps"},
    {"Occupancy", "Block Limit SM", "launch__occupancy_limit_blocks"},
    {"Occupancy", "Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct"},
    {"Occupancy", "Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"},
    {"Occupancy", "Achieved Active Warps Per SM", "sm__warps_active.avg.per_cycle_active"},
    {"GPU and Memory Workload Distribution", "Average DRAM Active Cycles", "dram__cycles_active.avg"},
    {"GPU and Memory Workload Distribution", "Average L2 Active Cycles", "lts__cycles_active.avg"},
    {"GPU and Memory Workload Distribution", "Average SMSP Active Cycles", "smsp__cycles_active.avg"},
    {"Source Counters", "Branch Instructions", "smsp__inst_executed_op_branch.sum"},
    {"Source Counters", "Branch Efficiency", "smsp__sass_average_branch_targets_threads_uniform.pct"},
    // Nsight Compute 2019.x wrote the duration under this section name.
    {"GPU Speed Of Light", "Duration", "gpu__time_duration.sum"},
    {"GPU Speed Of Light", "SM Frequency", "sm__cycles_elapsed.avg.per_second"},
    {"GPU Speed Of Light", "DRAM Throughput", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"GPU Speed Of Light", "Memory Throughput", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"GPU Speed Of Light", "SM [%]", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
};

}  // namespace

std::string metric_id_for_display(std::string_view section, std::string_view display) {
    for (const auto& entry : table)
        if (entry.section == section && entry.display == display) return std::string(entry.metric);
    return {};
}

}  // namespace roofline
