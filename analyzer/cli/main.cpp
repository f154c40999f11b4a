// roofline: the command-line face of the engine. It parses flags and calls the library;
// every step it takes can be called from a test.
#include "analyzer/cli/commands.hpp"

#include "analyzer/base/input_error.hpp"

#include <cstdlib>
#include <iostream>
#include <string>

#include <unistd.h>

int main(int argc, char** argv) {
    try {
        roofline::cli::console where;
        where.stdout_terminal = isatty(STDOUT_FILENO) != 0;
        where.stderr_terminal = isatty(STDERR_FILENO) != 0;
        where.colour = where.stdout_terminal && std::getenv("NO_COLOR") == nullptr;  // https://no-color.org
        return roofline::cli::run(argc, argv, std::cout, std::cerr, where);
    } catch (const roofline::input_error& e) {
        // Command-line mistakes are located at "roofline" itself: no second prefix for them.
        const std::string what = e.what();
        std::cerr << (what.rfind("roofline: ", 0) == 0 ? "" : "roofline: ") << what << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "roofline: internal error: " << e.what() << "\n";
        return 3;
    }
}
