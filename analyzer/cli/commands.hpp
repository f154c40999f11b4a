// The subcommands: analyze, gpus. run() returns the exit code; bad input throws input_error.
#pragma once

#include <ostream>

namespace roofline::cli {

int run(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace roofline::cli
