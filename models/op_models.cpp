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
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : separator) + n;
    return s;
}

std::string n(std::uint64_t v) { return std::to_string(v); }

op_note note(op_note_kind k) {
    op_note out;
    out.kind = k;
    return out;
}
std::string b(double bytes_per_element) { return format_number(bytes_per_element) + " B"; }

// The keys of one call, checked against the op's catalogue entry.
class op_args {
public:
    op_args(const op_info& op, const std::vector<std::string>& key_values) : op_(op) {
        std::vector<std::string> names;
        for (const auto& k : op.keys) names.push_back(k.name);
        for (std::size_t i = 0; i < key_values.size(); ++i) {
            const std::string& kv = key_values[i];
            const std::string where = "argument " + std::to_string(i + 1) + " after " + op.name + " (\"" + kv + "\")";
            const auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0)
                fail(where + ": expected KEY=VALUE (" + op.name + " takes " + list(names) + ")");
            const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
            const auto it =
                std::find_if(op.keys.begin(), op.keys.end(), [&](const op_key& k) { return k.name == key; });
            if (it == op.keys.end())
                fail(where + ": " + op.name + " has no key \"" + key + "\"" + did_you_mean(key, names) +
                     " (keys: " + list(names) + ")");
            if (given_.count(key)) fail(where + ": " + key + " is given twice");
            check(*it, value, where);
            given_[key] = value;
        }
        std::vector<std::string> missing;
        for (const auto& k : op.keys)
            if (k.fallback.empty() && k.follows.empty() && !given_.count(k.name))
                missing.push_back(k.name + "=... (" + k.meaning + ")");
        if (!missing.empty()) fail(op.name + " needs " + list(missing, ", ") + "; e.g. " + example());
    }

    std::string text(const std::string& key) const {
        auto it = given_.find(key);
        if (it != given_.end()) return it->second;
        const op_key& k = spec(key);
        return k.follows.empty() ? k.fallback : text(k.follows);
    }
    std::uint64_t whole(const std::string& key) const { return parse_whole(text(key)).value_or(0); }
    bool given(const std::string& key) const { return given_.count(key) != 0; }

    std::vector<op_parameter> parameters() const {
        std::vector<op_parameter> out;
        for (const auto& k : op_.keys) out.push_back({k.name, text(k.name), !given(k.name)});
        return out;
    }

private:
    static std::optional<std::uint64_t> parse_whole(const std::string& s) {
        std::uint64_t v = 0;
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
        return v;
    }

    const op_key& spec(const std::string& key) const {
        for (const auto& k : op_.keys)
            if (k.name == key) return k;
        throw std::logic_error("op model reads a key its catalogue entry lacks: " + key);
    }

    void check(const op_key& k, const std::string& value, const std::string& where) const {
        if (!k.choices.empty()) {
            if (std::find(k.choices.begin(), k.choices.end(), value) == k.choices.end())
                fail(where + ": " + k.name + " takes " + list(k.choices, "|") + ", not \"" + value + "\"" +
                     did_you_mean(value, k.choices));
            return;
        }
        const auto v = parse_whole(value);
        if (!v || *v < k.least || *v > op_key_max)
            fail(where + ": " + k.name + " takes a whole number from " + std::to_string(k.least) + " to " +
                 std::to_string(op_key_max) + ", not \"" + value + "\"");
    }

    std::string example() const {
        std::string s = "roofline predict " + op_.name;
        for (const auto& k : op_.keys)
            if (k.fallback.empty() && k.follows.empty())
                s += " " + k.name + "=" + (k.choices.empty() ? "1024" : k.choices.front());
        return s;
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

op_cost gemm(const op_args& a) {
    const std::uint64_t m = a.whole("M"), nn = a.whole("N"), k = a.whole("K"), batch = a.whole("batch");
    const std::string dtype = a.text("dtype"), out = a.text("out_dtype");
    const double in_b = element_bytes(dtype), out_b = element_bytes(out);
    op_cost c;
    c.flops = 2.0 * m * nn * k * batch;
    c.flops_formula = "2 x M x N x K x batch = 2 x " + n(m) + " x " + n(nn) + " x " + n(k) + " x " + n(batch);
    c.compute = matrix_roof(dtype);
    c.bytes = batch * ((double(m) * k + double(k) * nn) * in_b + double(m) * nn * out_b);
    c.bytes_formula = "batch x ((M x K + K x N) x " + b(in_b) + " + M x N x " + b(out_b) + ") = " + n(batch) + " x ((" +
                      n(m) + " x " + n(k) + " + " + n(k) + " x " + n(nn) + ") x " + b(in_b) + " + " + n(m) + " x " +
                      n(nn) + " x " + b(out_b) + ")";
    op_note beta = note(op_note_kind::gemm_beta_zero);
    beta.element_bytes = out_b;
    op_note transposes = note(op_note_kind::gemm_transpose_recorded);
    transposes.transa = a.text("transa");
    transposes.transb = a.text("transb");
    c.notes = {beta, transposes, note(op_note_kind::gemm_batch_own_operands)};
    if (dtype == "fp32") c.notes.push_back(note(op_note_kind::gemm_fp32_on_cuda_cores));
    if (dtype == "fp64") c.notes.push_back(note(op_note_kind::gemm_fp64_path));
    if (dtype == "int8") c.notes.push_back(note(op_note_kind::gemm_int8_ops));
    return c;
}

// Query-key pairs a causal mask keeps, aligned bottom-right (FlashAttention 2.1 and later): query i
// (0-based) sees keys 0 .. i + kv_len - q_len, that is t = i + 1 + kv_len - q_len keys, at most
// kv_len (the last query) and none where t <= 0 (q_len > kv_len). The sum of t from
// lo = max(1, kv_len - q_len + 1) to kv_len; q (q + 1) / 2 for q_len = kv_len, about half.
double causal_pairs(std::uint64_t q, std::uint64_t kv) {
    const double lo = kv >= q ? double(kv - q + 1) : 1.0, hi = double(kv);
    return (hi * (hi + 1) - (lo - 1) * lo) / 2;
}

op_cost attention(const op_args& a) {
    const std::uint64_t batch = a.whole("batch"), heads = a.whole("heads"), q = a.whole("q_len"),
                        kv = a.whole("kv_len"), d = a.whole("head_dim");
    const std::uint64_t kv_heads = a.whole("kv_heads");
    if (heads % kv_heads != 0)
        fail("attention: heads (" + n(heads) + ") must be a multiple of kv_heads (" + n(kv_heads) +
             "): each K/V head serves a group of query heads");
    const bool causal = a.text("causal") == "1";
    const std::string dtype = a.text("dtype");
    const double eb = element_bytes(dtype);
    op_cost c;
    const double pairs = causal ? causal_pairs(q, kv) : double(q) * kv;
    c.flops = 4.0 * batch * heads * d * pairs;
    c.flops_formula =
        causal ? "4 x batch x heads x head_dim x pairs, pairs = the (query, key) pairs the causal mask keeps = " +
                     format_number(pairs) + " of " + n(q) + " x " + n(kv) + "; = 4 x " + n(batch) + " x " + n(heads) +
                     " x " + n(d) + " x " + format_number(pairs)
               : "4 x batch x heads x q_len x kv_len x head_dim = 4 x " + n(batch) + " x " + n(heads) + " x " + n(q) +
                     " x " + n(kv) + " x " + n(d);
    c.compute = matrix_roof(dtype);
    c.bytes = batch * d * eb * (2.0 * heads * q + 2.0 * kv_heads * kv);
    c.bytes_formula = "batch x head_dim x " + b(eb) +
                      " x (2 x heads x q_len + 2 x kv_heads x kv_len) (Q and O; K and V) = " + n(batch) + " x " + n(d) +
                      " x " + b(eb) + " x (2 x " + n(heads) + " x " + n(q) + " + 2 x " + n(kv_heads) + " x " + n(kv) +
                      ")";
    c.notes = {note(op_note_kind::attention_fused), note(op_note_kind::attention_flops),
               note(op_note_kind::attention_forward_only)};
    if (causal) c.notes.push_back(note(op_note_kind::attention_causal));
    if (kv_heads != heads) {
        op_note grouped = note(op_note_kind::attention_grouped_query);
        grouped.count = kv_heads;
        grouped.total = heads;
        c.notes.push_back(grouped);
    }
    return c;
}

// Half precision on the CUDA cores in BF16 runs at the spec's BF16 rate where it gives one.
void cuda_core_work(op_cost& c, const std::string& dtype) {
    c.compute = cuda_core_roof(dtype);
    c.bf16 = dtype == "bf16";
}

op_cost elementwise(const op_args& a) {
    const std::uint64_t e = a.whole("elements"), in = a.whole("inputs"), out = a.whole("outputs"),
                        f = a.whole("flops_per_element");
    const std::string dtype = a.text("dtype");
    const double eb = element_bytes(dtype);
    op_cost c;
    c.flops = double(e) * f;
    c.flops_formula = "elements x flops_per_element = " + n(e) + " x " + n(f);
    if (f > 0) cuda_core_work(c, dtype);
    c.bytes = double(e) * (in + out) * eb;
    c.bytes_formula =
        "elements x (inputs + outputs) x " + b(eb) + " = " + n(e) + " x (" + n(in) + " + " + n(out) + ") x " + b(eb);
    c.notes = {note(op_note_kind::elementwise_no_broadcast), note(op_note_kind::elementwise_flops_stated)};
    return c;
}

struct row_op {
    std::uint64_t rows, cols;
    std::string dtype;
    double eb;
};
row_op rows_of(const op_args& a) {
    const std::string dtype = a.text("dtype");
    return {a.whole("rows"), a.whole("cols"), dtype, element_bytes(dtype)};
}

// Row ops: FLOPs per element x rows x cols; bytes read x once, write the output, plus weights.
op_cost row_cost(const row_op& r, double per_element, double outputs_per_row, std::uint64_t weight_vectors,
                 const std::string& out_text) {
    op_cost c;
    c.flops = per_element * double(r.rows) * r.cols;
    c.flops_formula = format_number(per_element) + " x rows x cols = " + format_number(per_element) + " x " +
                      n(r.rows) + " x " + n(r.cols);
    cuda_core_work(c, r.dtype);
    const double out_elements = outputs_per_row < 0 ? double(r.rows) * r.cols : double(r.rows) * outputs_per_row;
    c.bytes = (double(r.rows) * r.cols + out_elements + double(weight_vectors) * r.cols) * r.eb;
    c.bytes_formula = "(rows x cols (x) + " + out_text +
                      (weight_vectors ? " + " + n(weight_vectors) + " x cols (weights)" : "") + ") x " + b(r.eb) +
                      " = (" + n(r.rows) + " x " + n(r.cols) + " + " +
                      (outputs_per_row < 0 ? n(r.rows) + " x " + n(r.cols) : n(r.rows)) +
                      (weight_vectors ? " + " + n(weight_vectors) + " x " + n(r.cols) : "") + ") x " + b(r.eb);
    return c;
}

op_cost reduction(const op_args& a) {
    op_cost c = row_cost(rows_of(a), 1, 1, 0, "rows (one result per row)");
    c.notes = {note(op_note_kind::reduction_flops), note(op_note_kind::reduction_bytes)};
    return c;
}

op_cost layernorm(const op_args& a) {
    op_cost c = row_cost(rows_of(a), 7, -1, 2, "rows x cols (y)");
    c.notes = {note(op_note_kind::layernorm_flops), note(op_note_kind::layernorm_bytes)};
    return c;
}

op_cost rmsnorm(const op_args& a) {
    op_cost c = row_cost(rows_of(a), 4, -1, 1, "rows x cols (y)");
    c.notes = {note(op_note_kind::rmsnorm_flops), note(op_note_kind::rmsnorm_bytes)};
    return c;
}

op_cost softmax(const op_args& a) {
    op_cost c = row_cost(rows_of(a), 5, -1, 0, "rows x cols (y)");
    c.notes = {note(op_note_kind::softmax_flops), note(op_note_kind::softmax_bytes)};
    return c;
}

op_cost embedding(const op_args& a) {
    const std::uint64_t tokens = a.whole("tokens"), hidden = a.whole("hidden"), vocab = a.whole("vocab");
    const std::string dtype = a.text("dtype");
    const double eb = element_bytes(dtype);
    const std::uint64_t rows = std::min(tokens, vocab);
    op_cost c;
    c.flops = 0;
    c.flops_formula = "0 (a gather moves data, it computes nothing)";
    c.bytes = double(rows) * hidden * eb + double(tokens) * 8 + double(tokens) * hidden * eb;
    c.bytes_formula = "min(tokens, vocab) x hidden x " + b(eb) +
                      " (rows gathered) + tokens x 8 B (int64 indices) + tokens x hidden x " + b(eb) +
                      " (output) = " + n(rows) + " x " + n(hidden) + " x " + b(eb) + " + " + n(tokens) + " x 8 B + " +
                      n(tokens) + " x " + n(hidden) + " x " + b(eb);
    op_note gathered = note(op_note_kind::embedding_rows_gathered);
    gathered.count = vocab;
    gathered.total = hidden;
    c.notes = {gathered, note(op_note_kind::embedding_int64_indices)};
    return c;
}

op_cost conv2d(const op_args& a) {
    const std::uint64_t nb = a.whole("N"), ch = a.whole("C"), h = a.whole("H"), w = a.whole("W"), k = a.whole("K"),
                        r = a.whole("R"), s = a.whole("S"), stride = a.whole("stride"), pad = a.whole("pad");
    if (h + 2 * pad < r || w + 2 * pad < s)
        fail("conv2d: the filter (R x S = " + n(r) + " x " + n(s) + ") is larger than the padded input (" +
             n(h + 2 * pad) + " x " + n(w + 2 * pad) + ")");
    const std::uint64_t p = (h + 2 * pad - r) / stride + 1, q = (w + 2 * pad - s) / stride + 1;
    const std::string dtype = a.text("dtype");
    const double eb = element_bytes(dtype);
    op_cost c;
    c.flops = 2.0 * nb * k * p * q * double(ch) * r * s;
    c.flops_formula = "2 x N x K x P x Q x C x R x S, P = (H + 2 pad - R) / stride + 1 = " + n(p) +
                      ", Q = (W + 2 pad - S) / stride + 1 = " + n(q) + "; = 2 x " + n(nb) + " x " + n(k) + " x " +
                      n(p) + " x " + n(q) + " x " + n(ch) + " x " + n(r) + " x " + n(s);
    c.compute = matrix_roof(dtype);
    c.bytes = (double(nb) * ch * h * w + double(k) * ch * r * s + double(nb) * k * p * q) * eb;
    c.bytes_formula = "(N x C x H x W (input) + K x C x R x S (filter) + N x K x P x Q (output)) x " + b(eb) + " = (" +
                      n(nb) + " x " + n(ch) + " x " + n(h) + " x " + n(w) + " + " + n(k) + " x " + n(ch) + " x " +
                      n(r) + " x " + n(s) + " + " + n(nb) + " x " + n(k) + " x " + n(p) + " x " + n(q) + ") x " + b(eb);
    c.notes = {note(op_note_kind::conv2d_implicit_gemm), note(op_note_kind::conv2d_bytes)};
    if (dtype == "fp32") c.notes.push_back(note(op_note_kind::conv2d_fp32_on_cuda_cores));
    return c;
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
        for (const auto& m : models()) out.push_back(m.info);
        return out;
    }();
    return ops;
}

op_cost model_op(const std::string& op, const std::vector<std::string>& key_values) {
    std::vector<std::string> names;
    for (const auto& m : models()) {
        if (m.info.name != op) {
            names.push_back(m.info.name);
            continue;
        }
        const op_args args(m.info, key_values);
        op_cost c = m.build(args);
        c.op = op;
        c.parameters = args.parameters();
        return c;
    }
    fail("no op \"" + op + "\"" + did_you_mean(op, names) + " (ops: " + list(names) + ")");
}

op_floor floor_on(const op_cost& cost, const gpu_spec& spec) {
    op_floor f;
    f.gpu_id = spec.id;
    f.gpu_name = spec.name;
    f.min_kernel_ns = spec.min_kernel_ns.value;
    f.dram_peak = spec.dram_bandwidth_tbs.value * 1e12;
    f.dram_peak_source = spec.dram_bandwidth_tbs.source;
    f.dram_practical = practical_share_of(spec, resource::dram);
    f.memory_ns = cost.bytes / (f.dram_peak * f.dram_practical.share) * 1e9;
    const double peak_memory_ns = cost.bytes / f.dram_peak * 1e9;
    if (!cost.compute || cost.flops <= 0) {
        f.compute_ns = 0.0;
        f.floor_ns = f.memory_ns;
        f.peak_floor_ns = peak_memory_ns;
        f.bound_by = bound::memory;
        f.limiter = resource::dram;
        return f;
    }
    resource r = *cost.compute;
    // FP64 matrix work falls back to the FP64 CUDA cores on a GPU without an FP64 tensor path.
    if (r == resource::tensor_fp64 && !spec.peaks_tflops.at(r).value) r = resource::fp64;
    const sourced_number& peak = spec.peaks_tflops.at(r);
    f.compute_precision = r;
    if (cost.bf16 && r == resource::fp16 && spec.fp16_bf16) {
        f.compute_peak = spec.fp16_bf16->value * 1e12;
        f.compute_peak_bf16 = true;
        f.compute_peak_source = spec.fp16_bf16->source;
    } else {
        if (peak.value) f.compute_peak = *peak.value * 1e12;
        f.compute_peak_source = peak.source;
        f.compute_peak_at_mhz = peak.at_clock_mhz;
    }
    f.compute_practical = practical_share_of(spec, r);
    f.limiter = r;
    if (!f.compute_peak) {
        f.limiter.reset();
        return f;  // compute time, floor and bound unknown; the memory time stands
    }
    f.compute_ns = cost.flops / (*f.compute_peak * f.compute_practical.share) * 1e9;
    f.floor_ns = std::max(*f.compute_ns, f.memory_ns);
    f.peak_floor_ns = std::max(cost.flops / *f.compute_peak * 1e9, peak_memory_ns);
    const bool compute_bound = *f.compute_ns > f.memory_ns;
    f.bound_by = compute_bound ? bound::compute : bound::memory;
    f.limiter = compute_bound ? r : resource::dram;
    f.ridge = (*f.compute_peak * f.compute_practical.share) / (f.dram_peak * f.dram_practical.share);
    return f;
}

}  // namespace roofline
