// Kernel names as ncu writes them ("void transpose_naive<32>(const float *, float *, int)"), shortened
// for the places a whole signature does not fit.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace roofline {

// The name up to its parameter list: "transpose_naive(const float *, ...)" -> "transpose_naive".
std::string short_name(const std::string& name);
// short_name without its namespaces, for narrow places (the terminal view, the chart):
// "unnamed>::transpose_naive" -> "transpose_naive".
std::string plain_name(const std::string& name);
// The function name as ncu's --kernel-name-base function gives it: no return type, namespaces,
// template arguments or parameters ("void ns::transpose_smem<1>(const float *)" -> "transpose_smem").
// A mangled name ("_Z...") is demangled first.
std::string function_name(const std::string& name);
// What two demanglers agree on in a kernel's name (Kineto's and nsys' cxxabi text, and ncu's own,
// which elides at::native to at:: or native::, writes "<unnamed>" for "(anonymous namespace)",
// "[lambda(int) (instance 1)]" for "{lambda(int)#1}", "2" for "2ul", and template parameters T1, T2
// for the types of parameter lists): its identifiers and numbers outside every parenthesis, in order,
// without at, native, void, the anonymous namespace and integer suffixes.
std::vector<std::string> portable_name_tokens(std::string_view name);
// An ECMAScript regular expression, for ncu's `--kernel-name-base demangled --kernel-name regex:...`,
// that matches the kernel's name as ncu demangles it, made from the name as a trace demangles it: the
// first 12 portable tokens in order, each at the start of a word. Empty where the name has no tokens.
std::string ncu_name_regex(std::string_view name);
// Whether the name is mangled by the Itanium C++ ABI (starts with "_Z"), as ncu --print-kernel-base
// mangled writes it.
bool is_mangled(std::string_view name);
// Whether the bytes are well-formed UTF-8 (ncu writes names as the compiler spelled them).
bool valid_utf8(std::string_view bytes);
// The text with control characters (C0, DEL) replaced by '?': what a terminal or an XML file may show.
std::string printable(std::string_view text);

// A kernel's label in reports: its short name without "void", namespaces and parameter list
// ("unnamed>::fma_chain<float>(float *, int)" -> "fma_chain<float>"), its template arguments elided where
// the name runs past 40 characters. Reports resolve labels that still collide (report/text.hpp).
std::string kernel_label(const std::string& name);

}  // namespace roofline
