// roofline as a library: everything public in one include. Link roofline::roofline
// (find_package(roofline)). The headers these include live under roofline/detail/ once installed:
// they are the library's internals, spelled from the repository root, and may change between versions.
#pragma once

#include "roofline/analyze.hpp"
#include "roofline/compare.hpp"
#include "roofline/report.hpp"
