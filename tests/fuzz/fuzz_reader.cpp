// libFuzzer target: the ncu CSV reader, every form. Bad input may only end in input_error, and the
// raw page read on several threads (blocks of 1 to 256 bytes, so that block edges fall everywhere)
// must give exactly what one thread gives: the same launches, summary, or error. A difference aborts.
#include "analyzer/base/input_error.hpp"
#include "analyzer/read/ncu_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Everything a read gives, written out so that two reads compare as one string.
std::string read_all(const std::string& text, std::size_t threads, std::size_t block_bytes) {
    roofline::read_options o;
    o.threads = threads;
    o.parallel.block_bytes = block_bytes;
    std::istringstream in(text);
    std::ostringstream out;
    try {
        auto s = roofline::read_ncu_csv(in, "fuzz.csv", o, [&](roofline::launch_record&& r) {
            out << r.line << '|' << r.id << '|' << r.kernel_name << '|' << r.device << '|' << r.cc << '|'
                << r.invocations << '|' << (r.block_size ? roofline::to_string(*r.block_size) : "-")
                << (r.grid_size ? roofline::to_string(*r.grid_size) : "-");
            for (auto [k, v] : r.values) out << '|' << k << '=' << v;
            for (const auto& [k, v] : r.texts) out << '|' << k << ':' << v;
            out << '|' << r.rules.size() << '\n';
        });
        out << "form " << int(s.form) << " style " << int(s.style) << ' ' << s.style_assumed << " launches "
            << s.launches << " skipped " << s.skipped_lines;
        for (const auto& n : s.notes) out << '\n' << n;
    } catch (const roofline::input_error& e) {
        out << "error " << e.what();
    }
    return out.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::string one = read_all(text, 1, std::size_t(1) << 20);
    const std::size_t block = 1 + (size ? data[size / 2] : 0);
    const std::string many = read_all(text, 2, block);
    if (many != one) {
        std::fprintf(stderr, "two threads (blocks of %zu bytes) read differently from one:\n--- one\n%s\n--- two\n%s\n",
                     block, one.c_str(), many.c_str());
        std::abort();
    }
    return 0;
}
