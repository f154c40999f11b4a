// A timeline header that includes a report header: the timeline is the kernel pipeline's sibling, and
// tests/check_layers.sh must refuse it.
#pragma once
#include "analyzer/report/printer.hpp"
