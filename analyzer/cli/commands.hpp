// The subcommands (commands.cpp lists them with a summary and an example). run() returns the exit code; bad input
// throws input_error.
#pragma once

#include <cstddef>
#include <ostream>

namespace roofline::cli {

// What the streams are attached to: main() asks the OS; tests pass what they want to exercise.
struct console {
    bool stdout_terminal = false;  // analyze without -o prints the terminal view instead of markdown
    bool stderr_terminal = false;  // long inputs show progress on stderr
    bool colour = false;           // ANSI colour in the terminal view (off for NO_COLOR and TERM=dumb)
    std::size_t width = 0;         // columns the terminal view fits (COLUMNS, else the tty's, else 100); 0: no limit
};

// The width of the terminal view where nothing says it (a pipe, a file): what reads well in a log or a review.
inline constexpr std::size_t default_columns = 100;

// The console as the environment describes it: colour only on a terminal, never with NO_COLOR set
// (https://no-color.org) or TERM=dumb; the width from COLUMNS when it is a positive number, else
// the terminal's (tty_columns, 0 when unknown).
console make_console(bool stdout_terminal, bool stderr_terminal, std::size_t tty_columns, const char* term,
                     const char* no_color, const char* columns);

int run(int argc, char** argv, std::ostream& out, std::ostream& err, const console& where = {});

}  // namespace roofline::cli
