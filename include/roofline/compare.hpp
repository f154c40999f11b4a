// roofline's public interface, part 3: two captures side by side (diff: matching, changes, the gate),
// or a capture projected onto another GPU (project).
#pragma once

#include "analyzer/compare/diff.hpp"
#include "analyzer/compare/projection_report.hpp"
