// A base header that includes a report header: tests/check_layers.sh must refuse it.
#pragma once
#include "analyzer/report/printer.hpp"
