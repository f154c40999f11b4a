// roofline's public interface, part 2: render an analysis. Every format of `roofline analyze
// --format` (markdown, json, terminal, html, svg), as a string or written to a stream as it is made,
// and the words of the typed results (reason_text, warning_text, note_text, finding_explain, verdict_text,
// kernel_labels).
#pragma once

#include "analyzer/report/report.hpp"
#include "analyzer/report/text.hpp"
