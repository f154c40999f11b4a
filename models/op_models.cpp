#include "models/op_models.hpp"

#include "models/roofline_model.hpp"

#include "analyzer/base/did_you_mean.hpp"
#include "analyzer/base/format.hpp"
#include "analyzer/base/input_error.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <stdexcept>

namespace roofline {

namespace {

const std::vector<std::string> tensor_dtypes = {"fp16", "bf16", "fp32", "tf32", "fp64", "fp8", "int8"};
const std::vector<std::string> attention_dtypes = {"fp16", "bf16", "fp8"};
const std::vector<std::string> cuda_core_dtypes = {"fp16", "bf16", "fp32", "fp64"};

op_key dtype_key(const std::vector<std::string>& choices, const std::string& fallback = "") {
    return {"dtype", fallback, "element type of inputs and outputs", choices, 1};
}

// rows x cols ops: reduction, layernorm, rmsnorm, softmax.
std::vector<op_key> row_keys() {
    return {{"rows", "", "independent rows (tokens x batch)", {}, 1},
            {"cols", "", "elements per row (the hidden size)", {}, 1},
            dtype_key(cuda_core_dtypes)};
}

double element_bytes(const std::string& dtype) {
    if (dtype == "fp8" || dtype == "int8") return 1;
    if (dtype == "fp16" || dtype == "bf16") return 2;
    if (dtype == "fp64") return 8;
    return 4;  // fp32, tf32 (stored as 32-bit words), int32
}

// A command-line mistake, located at "roofline" as every usage error is (the message names the argument).
[[noreturn]] void fail(const std::string& what) {
    throw input_error(error_code::usage, "roofline", 0, 0, "predict: " + what);
}

std::string list(const std::vector<std::string>& names, const char* separator = ", ") {
    std::string joined;
    for (const auto& item : names) joined += (joined.empty() ? "" : separator) + item;
    return joined;
}

std::string num(std::uint64_t value) { return std::to_string(value); }

op_note note(op_note_kind kind) {
    op_note out;
    out.kind = kind;
    return out;
}
std::string bytes_label(double bytes_per_element) { return format_number(bytes_per_element) + " B"; }

// The keys of one call, checked against the op's catalogue entry.
class op_args {
public:
    op_args(const op_info& op, const std::vector<std::string>& key_values) : op_(op) {
        std::vector<std::string> names;
        for (const auto& key_spec : op.keys) names.push_back(key_spec.name);
        for (std::size_t i = 0; i < key_values.size(); ++i) {
            const std::string& kv = key_values[i];
            const std::string where = "argument " + std::to_string(i + 1) + " after " + op.name + " (\"" + kv + "\")";
            const auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0)
                fail(where + ": expected KEY=VALUE (" + op.name + " takes " + list(names) + ")");
            const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
            const auto it = std::find_if(op.keys.begin(), op.keys.end(),
                                         [&](const op_key& key_spec) { return key_spec.name == key; });
            if (it == op.keys.end())
                fail(where + ": " + op.name + " has no key \"" + key + "\"" + did_you_mean(key, names) +
                     " (keys: " + list(names) + ")");
            if (given_.count(key)) fail(where + ": " + key + " is given twice");
            check(*it, value, where);
            given_[key] = value;
        }
        std::vector<std::string> missing;
        for (const auto& key_spec : op.keys)
            if (key_spec.fallback.empty() && key_spec.follows.empty() && !given_.count(key_spec.name))
                missing.push_back(key_spec.name + "=... (" + key_spec.meaning + ")");
        if (!missing.empty()) fail(op.name + " needs " + list(missing, ", ") + "; e.g. " + example());
    }

    std::string text(const std::string& key) const {
        auto it = given_.find(key);
        if (it != given_.end()) return it->second;
        const op_key& key_spec = spec(key);
        return key_spec.follows.empty() ? key_spec.fallback : text(key_spec.follows);
    }
    std::uint64_t whole(const std::string& key) const { return parse_whole(text(key)).value_or(0); }
    bool given(const std::string& key) const { return given_.count(key) != 0; }

    std::vector<op_parameter> parameters() const {
        std::vector<op_parameter> out;
        for (const auto& key_spec : op_.keys)
            out.push_back({key_spec.name, text(key_spec.name), !given(key_spec.name)});
        return out;
    }

private:
    static std::optional<std::uint64_t> parse_whole(const std::string& digits) {
        std::uint64_t parsed = 0;
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), parsed);
        if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
        return parsed;
    }

    const op_key& spec(const std::string& key) const {
        for (const auto& key_spec : op_.keys)
            if (key_spec.name == key) return key_spec;
        throw std::logic_error("op model reads a key its catalogue entry lacks: " + key);
    }

    void check(const op_key& key_spec, const std::string& value, const std::string& where) const {
        if (!key_spec.choices.empty()) {
            if (std::find(key_spec.choices.begin(), key_spec.choices.end(), value) == key_spec.choices.end())
                fail(where + ": " + key_spec.name + " takes " + list(key_spec.choices, "|") + ", not \"" + value +
                     "\"" + did_you_mean(value, key_spec.choices));
            return;
        }
        const auto parsed = parse_whole(value);
        if (!parsed || *parsed < key_spec.least || *parsed > op_key_max)
            fail(where + ": " + key_spec.name + " takes a whole number from " + std::to_string(key_spec.least) +
                 " to " + std::to_string(op_key_max) + ", not \"" + value + "\"");
    }

    std::string example() const {
        std::string usage = "roofline predict " + op_.name;
        for (const auto& key_spec : op_.keys)
            if (key_spec.fallback.empty() && key_spec.follows.empty())
                usage += " " + key_spec.name + "=" + (key_spec.choices.empty() ? "1024" : key_spec.choices.front());
        return usage;
    }

    const op_info& op_;
    std::map<std::string, std::string> given_;
};

// The FLOP roof of matrix work (GEMM, attention, convolution) in a dtype: the tensor cores for
// every dtype they take; FP32 without TF32 runs on the CUDA cores (FFMA); FP64 on the FP64 tensor
// path (DMMA) where the spec has one, else the FP64 CUDA cores.
resource matrix_roof(const std::string& dtype) {
    if (dtype == "fp16") return resource::tensor_fp16;
    if (dtype == "bf16") return resource::tensor_bf16;
    if (dtype == "tf32") return resource::tensor_tf32;
    if (dtype == "fp8") return resource::tensor_fp8;
    if (dtype == "int8") return resource::tensor_int8;
    if (dtype == "fp64") return resource::tensor_fp64;
    return resource::fp32;
}

// The CUDA-core roof of elementwise work: half precision on the fp16 roof (BF16 at its own rate
// where the spec gives one), the others on their own.
resource cuda_core_roof(const std::string& dtype) {
    if (dtype == "fp16" || dtype == "bf16") return resource::fp16;
    if (dtype == "fp64") return resource::fp64;
    return resource::fp32;
}

op_cost gemm(const op_args& args) {
    const std::uint64_t dim_m = args.whole("M"), dim_n = args.whole("N"), dim_k = args.whole("K"),
                        batch = args.whole("batch");
    const std::string dtype = args.text("dtype"), out = args.text("out_dtype");
    const double in_b = element_bytes(dtype), out_b = element_bytes(out);
    op_cost cost;
    cost.flops = 2.0 * dim_m * dim_n * dim_k * batch;
    cost.flops_formula =
        "2 x M x N x K x batch = 2 x " + num(dim_m) + " x " + num(dim_n) + " x " + num(dim_k) + " x " + num(batch);
    cost.compute = matrix_roof(dtype);
    cost.bytes = batch * ((double(dim_m) * dim_k + double(dim_k) * dim_n) * in_b + double(dim_m) * dim_n * out_b);
    cost.bytes_formula = "batch x ((M x K + K x N) x " + bytes_label(in_b) + " + M x N x " + bytes_label(out_b) +
                         ") = " + num(batch) + " x ((" + num(dim_m) + " x " + num(dim_k) + " + " + num(dim_k) + " x " +
                         num(dim_n) + ") x " + bytes_label(in_b) + " + " + num(dim_m) + " x " + num(dim_n) + " x " +
                         bytes_label(out_b) + ")";
    op_note beta = note(op_note_kind::gemm_beta_zero);
    beta.element_bytes = out_b;
    op_note transposes = note(op_note_kind::gemm_transpose_recorded);
    transposes.transa = args.text("transa");
    transposes.transb = args.text("transb");
    cost.notes = {beta, transposes, note(op_note_kind::gemm_batch_own_operands)};
    if (dtype == "fp32") cost.notes.push_back(note(op_note_kind::gemm_fp32_on_cuda_cores));
    if (dtype == "fp64") cost.notes.push_back(note(op_note_kind::gemm_fp64_path));
    if (dtype == "int8") cost.notes.push_back(note(op_note_kind::gemm_int8_ops));
    return cost;
}

// Query-key pairs a causal mask keeps, aligned bottom-right (FlashAttention 2.1 and later): query i
// (0-based) sees keys 0 .. i + kv_len - q_len, that is t = i + 1 + kv_len - q_len keys, at most
// kv_len (the last query) and none where t <= 0 (q_len > kv_len). The sum of t from
// lo = max(1, kv_len - q_len + 1) to kv_len; q_len (q_len + 1) / 2 for q_len = kv_len, about half.
double causal_pairs(std::uint64_t q_len, std::uint64_t kv_len) {
    const double lo = kv_len >= q_len ? double(kv_len - q_len + 1) : 1.0, hi = double(kv_len);
    return (hi * (hi + 1) - (lo - 1) * lo) / 2;
}

op_cost attention(const op_args& args) {
    const std::uint64_t batch = args.whole("batch"), heads = args.whole("heads"), q_len = args.whole("q_len"),
                        kv_len = args.whole("kv_len"), head_dim = args.whole("head_dim");
    const std::uint64_t kv_heads = args.whole("kv_heads");
    if (heads % kv_heads != 0)
        fail("attention: heads (" + num(heads) + ") must be a multiple of kv_heads (" + num(kv_heads) +
             "): each K/V head serves a group of query heads");
    const bool causal = args.text("causal") == "1";
    const std::string dtype = args.text("dtype");
    const double eb = element_bytes(dtype);
    op_cost cost;
    const double pairs = causal ? causal_pairs(q_len, kv_len) : double(q_len) * kv_len;
    cost.flops = 4.0 * batch * heads * head_dim * pairs;
    cost.flops_formula =
        causal ? "4 x batch x heads x head_dim x pairs, pairs = the (query, key) pairs the causal mask keeps = " +
                     format_number(pairs) + " of " + num(q_len) + " x " + num(kv_len) + "; = 4 x " + num(batch) +
                     " x " + num(heads) + " x " + num(head_dim) + " x " + format_number(pairs)
               : "4 x batch x heads x q_len x kv_len x head_dim = 4 x " + num(batch) + " x " + num(heads) + " x " +
                     num(q_len) + " x " + num(kv_len) + " x " + num(head_dim);
    cost.compute = matrix_roof(dtype);
    cost.bytes = batch * head_dim * eb * (2.0 * heads * q_len + 2.0 * kv_heads * kv_len);
    cost.bytes_formula = "batch x head_dim x " + bytes_label(eb) +
                         " x (2 x heads x q_len + 2 x kv_heads x kv_len) (Q and O; K and V) = " + num(batch) + " x " +
                         num(head_dim) + " x " + bytes_label(eb) + " x (2 x " + num(heads) + " x " + num(q_len) +
                         " + 2 x " + num(kv_heads) + " x " + num(kv_len) + ")";
    cost.notes = {note(op_note_kind::attention_fused), note(op_note_kind::attention_flops),
                  note(op_note_kind::attention_forward_only)};
    if (causal) cost.notes.push_back(note(op_note_kind::attention_causal));
    if (kv_heads != heads) {
        op_note grouped = note(op_note_kind::attention_grouped_query);
        grouped.count = kv_heads;
        grouped.total = heads;
        cost.notes.push_back(grouped);
    }
    return cost;
}

// Half precision on the CUDA cores in BF16 runs at the spec's BF16 rate where it gives one.
void cuda_core_work(op_cost& cost, const std::string& dtype) {
    cost.compute = cuda_core_roof(dtype);
    cost.bf16 = dtype == "bf16";
}

op_cost elementwise(const op_args& args) {
    const std::uint64_t elements = args.whole("elements"), in = args.whole("inputs"), out = args.whole("outputs"),
                        flops_per_element = args.whole("flops_per_element");
    const std::string dtype = args.text("dtype");
    const double eb = element_bytes(dtype);
    op_cost cost;
    cost.flops = double(elements) * flops_per_element;
    cost.flops_formula = "elements x flops_per_element = " + num(elements) + " x " + num(flops_per_element);
    if (flops_per_element > 0) cuda_core_work(cost, dtype);
    cost.bytes = double(elements) * (in + out) * eb;
    cost.bytes_formula = "elements x (inputs + outputs) x " + bytes_label(eb) + " = " + num(elements) + " x (" +
                         num(in) + " + " + num(out) + ") x " + bytes_label(eb);
    cost.notes = {note(op_note_kind::elementwise_no_broadcast), note(op_note_kind::elementwise_flops_stated)};
    return cost;
}

struct row_op {
    std::uint64_t rows, cols;
    std::string dtype;
    double eb;
};
row_op rows_of(const op_args& args) {
    const std::string dtype = args.text("dtype");
    return {args.whole("rows"), args.whole("cols"), dtype, element_bytes(dtype)};
}

// Row ops: FLOPs per element x rows x cols; bytes read x once, write the output, plus weights.
op_cost row_cost(const row_op& row, double per_element, double outputs_per_row, std::uint64_t weight_vectors,
                 const std::string& out_text) {
    op_cost cost;
    cost.flops = per_element * double(row.rows) * row.cols;
    cost.flops_formula = format_number(per_element) + " x rows x cols = " + format_number(per_element) + " x " +
                         num(row.rows) + " x " + num(row.cols);
    cuda_core_work(cost, row.dtype);
    const double out_elements = outputs_per_row < 0 ? double(row.rows) * row.cols : double(row.rows) * outputs_per_row;
    cost.bytes = (double(row.rows) * row.cols + out_elements + double(weight_vectors) * row.cols) * row.eb;
    cost.bytes_formula =
        "(rows x cols (x) + " + out_text + (weight_vectors ? " + " + num(weight_vectors) + " x cols (weights)" : "") +
        ") x " + bytes_label(row.eb) + " = (" + num(row.rows) + " x " + num(row.cols) + " + " +
        (outputs_per_row < 0 ? num(row.rows) + " x " + num(row.cols) : num(row.rows)) +
        (weight_vectors ? " + " + num(weight_vectors) + " x " + num(row.cols) : "") + ") x " + bytes_label(row.eb);
    return cost;
}

op_cost reduction(const op_args& args) {
    op_cost cost = row_cost(rows_of(args), 1, 1, 0, "rows (one result per row)");
    cost.notes = {note(op_note_kind::reduction_flops), note(op_note_kind::reduction_bytes)};
    return cost;
}

op_cost layernorm(const op_args& args) {
    op_cost cost = row_cost(rows_of(args), 7, -1, 2, "rows x cols (y)");
    cost.notes = {note(op_note_kind::layernorm_flops), note(op_note_kind::layernorm_bytes)};
    return cost;
}

op_cost rmsnorm(const op_args& args) {
    op_cost cost = row_cost(rows_of(args), 4, -1, 1, "rows x cols (y)");
    cost.notes = {note(op_note_kind::rmsnorm_flops), note(op_note_kind::rmsnorm_bytes)};
    return cost;
}

op_cost softmax(const op_args& args) {
    op_cost cost = row_cost(rows_of(args), 5, -1, 0, "rows x cols (y)");
    cost.notes = {note(op_note_kind::softmax_flops), note(op_note_kind::softmax_bytes)};
    return cost;
}

op_cost embedding(const op_args& args) {
    const std::uint64_t tokens = args.whole("tokens"), hidden = args.whole("hidden"), vocab = args.whole("vocab");
    const std::string dtype = args.text("dtype");
    const double eb = element_bytes(dtype);
    const std::uint64_t rows = std::min(tokens, vocab);
    op_cost cost;
    cost.flops = 0;
    cost.flops_formula = "0 (a gather moves data, it computes nothing)";
    cost.bytes = double(rows) * hidden * eb + double(tokens) * 8 + double(tokens) * hidden * eb;
    cost.bytes_formula = "min(tokens, vocab) x hidden x " + bytes_label(eb) +
                         " (rows gathered) + tokens x 8 B (int64 indices) + tokens x hidden x " + bytes_label(eb) +
                         " (output) = " + num(rows) + " x " + num(hidden) + " x " + bytes_label(eb) + " + " +
                         num(tokens) + " x 8 B + " + num(tokens) + " x " + num(hidden) + " x " + bytes_label(eb);
    op_note gathered = note(op_note_kind::embedding_rows_gathered);
    gathered.count = vocab;
    gathered.total = hidden;
    cost.notes = {gathered, note(op_note_kind::embedding_int64_indices)};
    return cost;
}

op_cost conv2d(const op_args& args) {
    const std::uint64_t nb = args.whole("N"), ch = args.whole("C"), height = args.whole("H"), width = args.whole("W"),
                        filters = args.whole("K"), filter_h = args.whole("R"), filter_w = args.whole("S"),
                        stride = args.whole("stride"), pad = args.whole("pad");
    if (height + 2 * pad < filter_h || width + 2 * pad < filter_w)
        fail("conv2d: the filter (R x S = " + num(filter_h) + " x " + num(filter_w) +
             ") is larger than the padded input (" + num(height + 2 * pad) + " x " + num(width + 2 * pad) + ")");
    const std::uint64_t out_h = (height + 2 * pad - filter_h) / stride + 1,
                        out_w = (width + 2 * pad - filter_w) / stride + 1;
    const std::string dtype = args.text("dtype");
    const double eb = element_bytes(dtype);
    op_cost cost;
    cost.flops = 2.0 * nb * filters * out_h * out_w * double(ch) * filter_h * filter_w;
    cost.flops_formula = "2 x N x K x P x Q x C x R x S, P = (H + 2 pad - R) / stride + 1 = " + num(out_h) +
                         ", Q = (W + 2 pad - S) / stride + 1 = " + num(out_w) + "; = 2 x " + num(nb) + " x " +
                         num(filters) + " x " + num(out_h) + " x " + num(out_w) + " x " + num(ch) + " x " +
                         num(filter_h) + " x " + num(filter_w);
    cost.compute = matrix_roof(dtype);
    cost.bytes = (double(nb) * ch * height * width + double(filters) * ch * filter_h * filter_w +
                  double(nb) * filters * out_h * out_w) *
                 eb;
    cost.bytes_formula = "(N x C x H x W (input) + K x C x R x S (filter) + N x K x P x Q (output)) x " +
                         bytes_label(eb) + " = (" + num(nb) + " x " + num(ch) + " x " + num(height) + " x " +
                         num(width) + " + " + num(filters) + " x " + num(ch) + " x " + num(filter_h) + " x " +
                         num(filter_w) + " + " + num(nb) + " x " + num(filters) + " x " + num(out_h) + " x " +
                         num(out_w) + ") x " + bytes_label(eb);
    cost.notes = {note(op_note_kind::conv2d_implicit_gemm), note(op_note_kind::conv2d_bytes)};
    if (dtype == "fp32") cost.notes.push_back(note(op_note_kind::conv2d_fp32_on_cuda_cores));
    return cost;
}

struct op_model {
    op_info info;
    op_cost (*build)(const op_args&);
};

const std::vector<op_model>& models() {
    static const std::vector<op_model> table = {
        {{"gemm",
          "C = A x B (batched): A is M x K, B is K x N",
          {{"M", "", "rows of A and C", {}, 1},
           {"N", "", "columns of B and C", {}, 1},
           {"K", "", "the shared dimension", {}, 1},
           {"batch", "1", "independent multiplications", {}, 1},
           dtype_key(tensor_dtypes),
           {"out_dtype",
            "",
            "element type of C (default: dtype)",
            {"fp16", "bf16", "fp32", "tf32", "fp64", "fp8", "int8", "int32"},
            1,
            "dtype"},
           {"transa", "n", "A transposed (recorded; no effect on the floor)", {"n", "t"}, 1},
           {"transb", "n", "B transposed (recorded; no effect on the floor)", {"n", "t"}, 1}}},
         gemm},
        {{"attention",
          "fused scaled-dot-product attention, FlashAttention-style (S and P stay on chip)",
          {{"batch", "", "sequences", {}, 1},
           {"heads", "", "query heads", {}, 1},
           {"q_len", "", "queries per sequence (1 for a decode step)", {}, 1},
           {"kv_len", "", "keys and values per sequence", {}, 1},
           {"head_dim", "", "dimension of each head", {}, 1},
           {"causal", "0", "1: causal mask (masked pairs cost nothing)", {"0", "1"}, 1},
           {"kv_heads", "", "K/V heads for grouped-query attention (default: heads)", {}, 1, "heads"},
           dtype_key(attention_dtypes)}},
         attention},
        {{"elementwise",
          "out = f(in...) element by element (add, GELU, bias + activation, residual add)",
          {{"elements", "", "elements of each tensor", {}, 1},
           {"inputs", "1", "input tensors read (0 for a fill)", {}, 0},
           {"outputs", "1", "output tensors written", {}, 1},
           {"flops_per_element", "1", "FLOPs per output element (0 for a copy)", {}, 0},
           dtype_key(cuda_core_dtypes)}},
         elementwise},
        {{"reduction", "a sum over each row: rows x cols -> rows", row_keys()}, reduction},
        {{"layernorm", "LayerNorm over each row, with gamma and beta", row_keys()}, layernorm},
        {{"rmsnorm", "RMSNorm over each row, with gamma", row_keys()}, rmsnorm},
        {{"softmax", "softmax over each row", row_keys()}, softmax},
        {{"embedding",
          "gather: out[t] = table[index[t]] for each token",
          {{"tokens", "", "indices looked up", {}, 1},
           {"hidden", "", "elements per row", {}, 1},
           {"vocab", "", "rows in the table", {}, 1},
           dtype_key(cuda_core_dtypes)}},
         embedding},
        {{"conv2d",
          "2-D convolution, NCHW input, K filters of C x R x S",
          {{"N", "", "images", {}, 1},
           {"C", "", "input channels", {}, 1},
           {"H", "", "input height", {}, 1},
           {"W", "", "input width", {}, 1},
           {"K", "", "output channels (filters)", {}, 1},
           {"R", "", "filter height", {}, 1},
           {"S", "", "filter width", {}, 1},
           {"stride", "1", "stride in both dimensions", {}, 1},
           {"pad", "0", "zero padding on each side", {}, 0},
           dtype_key(tensor_dtypes)}},
         conv2d},
    };
    return table;
}

}  // namespace

const std::vector<op_info>& op_catalogue() {
    static const std::vector<op_info> ops = [] {
        std::vector<op_info> out;
        for (const auto& model : models()) out.push_back(model.info);
        return out;
    }();
    return ops;
}

op_cost model_op(const std::string& op, const std::vector<std::string>& key_values) {
    std::vector<std::string> names;
    for (const auto& model : models()) {
        if (model.info.name != op) {
            names.push_back(model.info.name);
            continue;
        }
        const op_args args(model.info, key_values);
        op_cost cost = model.build(args);
        cost.op = op;
        cost.parameters = args.parameters();
        return cost;
    }
    fail("no op \"" + op + "\"" + did_you_mean(op, names) + " (ops: " + list(names) + ")");
}

op_floor floor_on(const op_cost& cost, const gpu_spec& spec) {
    op_floor result;
    result.gpu_id = spec.id;
    result.gpu_name = spec.name;
    result.min_kernel_ns = spec.min_kernel_ns.value;
    result.dram_peak = spec.dram_bandwidth_tbs.value * 1e12;
    result.dram_peak_source = spec.dram_bandwidth_tbs.source;
    result.dram_practical = practical_share_of(spec, resource::dram);
    result.memory_ns = cost.bytes / (result.dram_peak * result.dram_practical.share) * 1e9;
    const double peak_memory_ns = cost.bytes / result.dram_peak * 1e9;
    if (!cost.compute || cost.flops <= 0) {
        result.compute_ns = 0.0;
        result.floor_ns = result.memory_ns;
        result.peak_floor_ns = peak_memory_ns;
        result.bound_by = bound::memory;
        result.limiter = resource::dram;
        return result;
    }
    resource precision = *cost.compute;
    // FP64 matrix work falls back to the FP64 CUDA cores on a GPU without an FP64 tensor path.
    if (precision == resource::tensor_fp64 && !spec.peaks_tflops.at(precision).value) precision = resource::fp64;
    const sourced_number& peak = spec.peaks_tflops.at(precision);
    result.compute_precision = precision;
    if (cost.bf16 && precision == resource::fp16 && spec.fp16_bf16) {
        result.compute_peak = spec.fp16_bf16->value * 1e12;
        result.compute_peak_bf16 = true;
        result.compute_peak_source = spec.fp16_bf16->source;
    } else {
        if (peak.value) result.compute_peak = *peak.value * 1e12;
        result.compute_peak_source = peak.source;
        result.compute_peak_at_mhz = peak.at_clock_mhz;
    }
    result.compute_practical = practical_share_of(spec, precision);
    result.limiter = precision;
    if (!result.compute_peak) {
        result.limiter.reset();
        return result;  // compute time, floor and bound unknown; the memory time stands
    }
    result.compute_ns = cost.flops / (*result.compute_peak * result.compute_practical.share) * 1e9;
    result.floor_ns = std::max(*result.compute_ns, result.memory_ns);
    result.peak_floor_ns = std::max(cost.flops / *result.compute_peak * 1e9, peak_memory_ns);
    const bool compute_bound = *result.compute_ns > result.memory_ns;
    result.bound_by = compute_bound ? bound::compute : bound::memory;
    result.limiter = compute_bound ? precision : resource::dram;
    result.ridge =
        (*result.compute_peak * result.compute_practical.share) / (result.dram_peak * result.dram_practical.share);
    return result;
}

}  // namespace roofline
