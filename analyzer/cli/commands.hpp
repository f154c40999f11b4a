// The subcommands: analyze, gpus, pairs, lessons, calibrate, rules, explain. run() returns the exit code; bad input throws input_error.
#pragma once

#include <ostream>

namespace roofline::cli {

// What the streams are attached to: main() asks the OS; tests pass what they want to exercise.
struct console {
    bool stdout_terminal = false;  // analyze without -o prints the terminal view instead of markdown
    bool stderr_terminal = false;  // long inputs show progress on stderr
    bool colour = false;           // ANSI colour in the terminal view (off when NO_COLOR is set)
};

int run(int argc, char** argv, std::ostream& out, std::ostream& err, const console& where = {});

}  // namespace roofline::cli
