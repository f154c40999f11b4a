// roofline: the command-line face of the engine. It parses flags and calls the library;
// every step it takes can be called from a test.
#include "commands.hpp"

#include "../input_error.hpp"

#include <iostream>

int main(int argc, char** argv) {
    try {
        return roofline::cli::run(argc, argv, std::cout, std::cerr);
    } catch (const roofline::input_error& e) {
        std::cerr << "roofline: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "roofline: internal error: " << e.what() << "\n";
        return 1;
    }
}
