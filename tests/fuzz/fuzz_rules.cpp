// libFuzzer target: the rule-tree loader, and the expression language on its own (parse, then
// evaluate with every name worth 1.5, 0 or missing). Bad input may only end in input_error or
// expression_error.
#include "analyzer/base/input_error.hpp"
#include "analyzer/diagnose/kernel_facts.hpp"
#include "analyzer/diagnose/rule_tree.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        (void)roofline::diagnose::parse_rule_tree(text, "fuzz.json");
    } catch (const roofline::input_error&) {
    }
    try {
        const auto e = roofline::diagnose::expression::parse(text, roofline::diagnose::fact_type);
        for (double v : {1.5, 0.0}) (void)e.evaluate([v](const std::string&) { return std::optional<double>(v); });
        (void)e.evaluate([](const std::string&) { return std::optional<double>(); });
    } catch (const roofline::diagnose::expression_error&) {
    }
    return 0;
}
