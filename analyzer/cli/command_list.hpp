// Every subcommand's entry point, one per file of analyzer/cli (commands() lists them in order).
#pragma once

#include "analyzer/cli/cli_support.hpp"

#include <string>
#include <vector>

namespace roofline::cli {

int analyze_command(const std::vector<std::string>& args, const io& io);     // analyze_command.cpp
int diff_command(const std::vector<std::string>& args, const io& io);        // diff_command.cpp
int gpus_command(const std::vector<std::string>& args, const io& io);        // reference_commands.cpp
int pairs_command(const std::vector<std::string>& args, const io& io);       // capture_folder_commands.cpp
int lessons_command(const std::vector<std::string>& args, const io& io);     // capture_folder_commands.cpp
int calibrate_command(const std::vector<std::string>& args, const io& io);   // capture_folder_commands.cpp
int project_command(const std::vector<std::string>& args, const io& io);     // project_command.cpp
int rules_command(const std::vector<std::string>& args, const io& io);       // reference_commands.cpp
int explain_command(const std::vector<std::string>& args, const io& io);     // reference_commands.cpp
int predict_command(const std::vector<std::string>& args, const io& io);     // predict_command.cpp
int triage_command(const std::vector<std::string>& args, const io& io);      // triage_command.cpp
int timeline_command(const std::vector<std::string>& args, const io& io);    // timeline_command.cpp
int metrics_command(const std::vector<std::string>& args, const io& io);     // metrics_command.cpp
int completion_command(const std::vector<std::string>& args, const io& io);  // completion_command.cpp

}  // namespace roofline::cli
