// roofline: the command-line face of the engine. It parses flags and calls the library;
// every step it takes can be called from a test.
#include "analyzer/cli/commands.hpp"

#include "analyzer/base/input_error.hpp"

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>

#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char** argv) {
    // A file-size limit (ulimit -f) makes a write fail with EFBIG instead of killing the process, so the
    // writer removes its temporary file and says why.
    std::signal(SIGXFSZ, SIG_IGN);
    try {
        const bool stdout_terminal = isatty(STDOUT_FILENO) != 0;
        winsize window{};
        const std::size_t tty_columns =
            stdout_terminal && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &window) == 0 ? window.ws_col : 0;
        const auto where =
            roofline::cli::make_console(stdout_terminal, isatty(STDERR_FILENO) != 0, tty_columns, std::getenv("TERM"),
                                        std::getenv("NO_COLOR"), std::getenv("COLUMNS"));
        return roofline::cli::run(argc, argv, std::cout, std::cerr, where);
    } catch (const roofline::input_error& failure) {
        // Command-line mistakes are located at "roofline" itself: no second prefix for them.
        const std::string what = failure.what();
        std::cerr << (what.rfind("roofline: ", 0) == 0 ? "" : "roofline: ") << what << "\n";
        return 2;
    } catch (const std::bad_alloc&) {
        // Not a bug of the engine: the input needs more memory than the machine (or its limit) gives.
        std::cerr << "roofline: out of memory: the input needs more than this machine's memory or its limit (ulimit "
                     "-v, a container's); nothing was written\n";
        return 2;
    } catch (const std::exception& failure) {
        std::cerr << "roofline: internal error: " << failure.what() << "\n";
        return 3;
    }
}
