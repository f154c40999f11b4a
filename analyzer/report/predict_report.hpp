// The output of `roofline predict`: an op's work (FLOPs, compulsory bytes, intensity, each with its
// formula), its floor on one GPU or several, the assumptions the floor rests on. Markdown, JSON
// (docs/predict.md) and a plain terminal view; each names every figure's source.
#pragma once

#include "analyzer/render/document.hpp"
#include "analyzer/render/format_table.hpp"

#include "models/op_models.hpp"

#include <string>
#include <vector>

namespace roofline {

struct prediction {
    op_cost cost;
    std::vector<op_floor> floors;  // one per GPU, in the order asked
};

// `predict --format`'s table: markdown, json, terminal, html.
const std::vector<printer<prediction>>& predict_printers();
// The table's names, in its order.
const std::vector<std::string>& predict_format_names();

// The table's printer for `format`; throws std::invalid_argument for a name it lacks.
std::string render_prediction(const prediction& predicted, const std::string& format);

// The command line that asks for this prediction again, defaults filled in: "gemm M=8192 ... transb=n".
std::string prediction_command(const op_cost& cost);

// What an op's model counts or assumes (models/op_models.hpp, op_note), in one sentence.
// A note of an op's model in words, with its code spans; as markdown text.
doc::phrase op_note_phrase(const op_note& note);
std::string op_note_text(const op_note& note);
// The assumptions every floor rests on, one sentence each, for every output.
const std::vector<std::string>& op_floor_assumptions();
// "floor = max(FLOPs / (peak x share), bytes / (bandwidth x share))", for every output.
const std::string& op_floor_formula();

}  // namespace roofline
