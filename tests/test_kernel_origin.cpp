// Whose kernel it is (rules/origins/*.json) on names taken from real captures: ncu's demangled names, its
// mangled names, and Kineto's spelling of the same kernels; and the fixes each origin gets.
#include "analyzer/base/gzip_stream.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/diagnose/kernel_facts.hpp"
#include "analyzer/diagnose/rule_tree.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/read/kernel_origin.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <iterator>
#include <regex>
#include <set>

using namespace roofline;
using namespace roofline::test;

namespace {

std::string all_of_gz(const std::string& path) {
    gzip_istream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A held-out program (examples/heldout*, labelled before its capture) runs no kernel of the user's: every one
// gets a library's or PyTorch's origin.
analysis held_out(const std::string& raw) {
    analysis a = analyze_example(raw);
    for (const auto& k : a.kernels) {
        CAPTURE(raw);
        CAPTURE(k.group.name);
        CHECK(k.origin.kind != origin_kind::user);
    }
    return a;
}

bool fixes_mention(const analysed_kernel& k, const std::string& finding, const std::string& words) {
    for (const auto& f : k.diagnosis.findings)
        if (f.id == finding)
            for (const auto& x : f.fixes)
                if (x.str().find(words) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("library and compiler kernels of real ncu captures get their origin and what their names say") {
    const analysis a = analyze_example("examples/user_level/gemm_raw.csv");
    const auto& legacy = kernel_named(a, "cutlass_75_tensorop_bf16");
    CHECK(legacy.origin.kind == origin_kind::cublas);
    CHECK(legacy.origin.facts.built_for_sm == 75);
    CHECK(legacy.origin.facts.alignment == 1);
    CHECK(legacy.origin.facts.math == "bf16_tensor");
    const auto& simt = kernel_named(a, "tilesize256x128x8");
    CHECK(simt.origin.kind == origin_kind::cublas);
    CHECK(simt.origin.facts.math == "fp32_simt");
    CHECK(simt.origin.facts.alignment == 4);  // aligna4 and alignc4: the smallest
    CHECK(kernel_named(a, "nvjet_sm90").origin.facts.built_for_sm == 90);

    const analysis e = analyze_example("examples/user_level/elem_raw.csv");
    CHECK(kernel_named(e, "triton_poi_fused").origin.kind == origin_kind::triton);
    CHECK(kernel_named(e, "triton_poi_fused").origin.facts.fused_ops == "add_mul_pow_tanh");
    CHECK(kernel_named(e, "at::elementwise_kernel<128").origin.facts.path == "strided");
    CHECK(kernel_named(e, "unrolled_elementwise_kernel").origin.facts.path == "unrolled");
    CHECK(kernel_named(e, "nchwToNhwcKernel").origin.kind == origin_kind::cudnn);
    CHECK(kernel_named(e, "sm90_xmma_fprop_implicit_gemm").origin.kind == origin_kind::cudnn);

    const analysis s = analyze_example("examples/user_level/sdpa_raw.csv");
    CHECK(kernel_named(s, "pytorch_flash::flash_fwd_kernel").origin.kind == origin_kind::attention);
    CHECK(kernel_named(s, "fmha_cutlassF").origin.kind == origin_kind::attention);
    CHECK(kernel_named(s, "cudnn_generated_fort_native_sdpa").origin.kind == origin_kind::cudnn);
    CHECK(kernel_named(s, "softmax_warp_forward").origin.kind == origin_kind::aten);

    // The tensor-core path a name states, and what follows for wgmma: every one of these agreed with the
    // gmma counter of its raw page (sm__inst_executed_pipe_tensor_op_gmma above 0 exactly where wgmma).
    CHECK(kernel_named(s, "cudnn_generated_fort_native_sdpa").origin.facts.mma_path == "wgmma");
    CHECK(kernel_named(s, "pytorch_flash::flash_fwd_kernel").origin.facts.mma_path == "mma_sync");
    CHECK(kernel_named(a, "nvjet_sm90").origin.facts.mma_path == "wgmma");
    CHECK(kernel_named(a, "nvjet_sm90_tst").origin.facts.math == "bf16_tensor");  // tst: BF16 (the raw page agrees)
    CHECK(kernel_named(e, "vectorized_elementwise_kernel").origin.facts.math == "no_mma");  // ATen's own
    CHECK(kernel_named(e, "sm90_xmma_fprop_implicit_gemm").origin.facts.mma_path == "wgmma");
    CHECK(wgmma_named(kernel_named(s, "fmha_cutlassF").origin.facts) == false);  // built for sm_80
    CHECK(wgmma_named(legacy.origin.facts) == false);                            // cutlass_75
    CHECK_FALSE(wgmma_named(kernel_named(e, "triton_poi_fused").origin.facts).has_value());
    int compared = 0;
    for (const char* raw : {"examples/user_level/gemm_raw.csv", "examples/user_level/elem_raw.csv",
                            "examples/user_level/sdpa_raw.csv", "examples/h200/forms/layer_full_raw.csv",
                            "examples/heldout/step_raw.csv", "examples/heldout_vision/step_raw.csv",
                            "examples/heldout_decode/step_raw.csv", "examples/heldout_moe/step_raw.csv",
                            "examples/heldout_unet/step_raw.csv", "examples/heldout_bert/step_raw.csv"})
        for (const auto& k : analyze_example(raw, keeping_metrics()).kernels)
            if (auto named = wgmma_named(k.origin.facts)) {
                CAPTURE(k.group.name);
                const auto gmma =
                    k.group.metrics.find("sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed");
                REQUIRE(gmma);
                CHECK((*gmma > 0.0) == *named);
                ++compared;
            }
    CHECK(compared >= 6);

    // A tensor math path the name states is the only precision its MMA work is in (the model zeroes the others
    // on a details page: models/roofline_model.cpp), on every raw page named here.
    int named_tensor = 0;
    for (const char* raw :
         {"examples/user_level/gemm_raw.csv", "examples/user_level/elem_raw.csv", "examples/user_level/sdpa_raw.csv",
          "examples/h200/forms/layer_full_raw.csv", "examples/h100/cublas_ref_raw.csv", "examples/wild/lib_a_raw.csv",
          "examples/heldout/step_raw.csv", "examples/heldout_vision/step_raw.csv",
          "examples/heldout_decode/step_raw.csv", "examples/heldout_moe/step_raw.csv",
          "examples/heldout_unet/step_raw.csv", "examples/heldout_bert/step_raw.csv"})
        for (const auto& k : analyze_example(raw).kernels) {
            const std::string math = k.origin.facts.math.str();
            if (math.size() < 7 || math.compare(math.size() - 7, 7, "_tensor") != 0) continue;
            CAPTURE(k.group.name);
            const std::string named = "tensor_" + math.substr(0, math.find('_'));
            bool mma = false;
            for (const auto& use : k.roof.resources)
                if (info(use.id).tensor && use.work > 0) {
                    CHECK(std::string(name(use.id)) == named);
                    mma = true;
                }
            // And it ran MMA work (the mma fact reads the name where a details page lacks the counters).
            CHECK(mma);
            ++named_tensor;
        }
    CHECK(named_tensor >= 30);

    // The held-out training step (examples/heldout): arange's anonymous-namespace kernel is ATen's too.
    const analysis step = held_out("examples/heldout/step_raw.csv");
    CHECK(kernel_named(step, "elementwise_kernel_with_index").origin.kind == origin_kind::aten);
    // The second held-out step (examples/heldout_vision, labelled before its capture): the origins its labels give.
    const analysis vision = held_out("examples/heldout_vision/step_raw.csv");
    CHECK(kernel_named(vision, "sm80_xmma_fprop_implicit_gemm_indexed").origin.kind == origin_kind::cudnn);
    CHECK(kernel_named(vision, "sm80_xmma_fprop_implicit_gemm_indexed").origin.facts.built_for_sm == 80);
    CHECK(kernel_named(vision, "sm90_xmma_fprop_implicit_gemm").origin.kind == origin_kind::cudnn);
    CHECK(kernel_named(vision, "batchnorm_fwtr_nhwc_semiPersist").origin.kind == origin_kind::cudnn);
    CHECK(kernel_named(vision, "nvjet_sm90_hsh").origin.kind == origin_kind::cublas);
    CHECK(kernel_named(vision, "nvjet_sm90_hsh").origin.facts.math == "fp16_tensor");
    CHECK(kernel_named(vision, "splitKreduce_kernel").origin.kind == origin_kind::cublas);
    CHECK(kernel_named(vision, "triton_poi_fused").origin.kind == origin_kind::triton);
    CHECK(kernel_named(vision, "fused_dropout_kernel_vec").origin.kind == origin_kind::aten);
    CHECK(kernel_named(vision, "softmax_warp_forward").origin.kind == origin_kind::aten);
    CHECK(kernel_named(vision, "triu_tril_kernel").origin.kind == origin_kind::aten);
    // The third (examples/heldout_decode): a bf16 decode step, cuBLAS's skinny products and cuDNN's attention.
    const analysis decode = held_out("examples/heldout_decode/step_raw.csv");
    CHECK(kernel_named(decode, "nvjet_sm90_tst_64x8").origin.kind == origin_kind::cublas);
    CHECK(kernel_named(decode, "nvjet_sm90_tst_64x8").origin.facts.math == "bf16_tensor");
    CHECK(kernel_named(decode, "cudnn_generated_fort_native_sdpa_sm80").origin.kind == origin_kind::cudnn);
    CHECK(kernel_named(decode, "lean_reduction_kernel").origin.kind == origin_kind::cudnn);
    CHECK(kernel_named(decode, "vectorized_gather_kernel").origin.kind == origin_kind::aten);
    // The fourth (examples/heldout_moe): an FP32/TF32 mixture-of-experts step, cuBLAS's TF32 kernels, CUB's selects,
    // cuDNN's LSTM, FP32 memory-efficient attention (TF32 MMA where built for sm_80 on: its raw page's tensor work).
    const analysis moe = held_out("examples/heldout_moe/step_raw.csv");
    CHECK(kernel_named(moe, "sm90_xmma_gemm_f32f32_tf32f32").origin.kind == origin_kind::cublas);
    CHECK(kernel_named(moe, "sm90_xmma_gemm_f32f32_tf32f32").origin.facts.math == "tf32_tensor");
    CHECK(kernel_named(moe, "cutlass_80_tensorop_s1688gemm").origin.kind == origin_kind::cublas);
    CHECK(kernel_named(moe, "elemWiseRNNcell").origin.kind == origin_kind::cudnn);
    CHECK(kernel_named(moe, "DeviceSelectSweepKernel").origin.kind == origin_kind::cub);
    CHECK(kernel_named(moe, "fmha_cutlassF_f32").origin.kind == origin_kind::attention);
    CHECK(kernel_named(moe, "fmha_cutlassF_f32").origin.facts.math == "tf32_tensor");
    CHECK(kernel_named(moe, "gatherTopK").origin.kind == origin_kind::aten);
    // The fifth (examples/heldout_unet): a bf16 NCHW UNet step. cuDNN's convolutions and layout conversions, ATen's
    // GroupNorm and pooling, and SDPA's math path (its q, k, v are not contiguous in the head dimension): cuBLAS's
    // FP32 SIMT batched product and ATen's softmax.
    const analysis unet = held_out("examples/heldout_unet/step_raw.csv");
    CHECK(kernel_named(unet, "implicit_convolve_sgemm").origin.kind == origin_kind::cudnn);
    CHECK(kernel_named(unet, "nchwToNhwcKernel").origin.kind == origin_kind::cudnn);
    CHECK(kernel_named(unet, "sm90_xmma_fprop_implicit_gemm").origin.kind == origin_kind::cudnn);
    CHECK(kernel_named(unet, "RowwiseMomentsCUDAKernel").origin.kind == origin_kind::aten);
    CHECK(kernel_named(unet, "avg_pool2d_out_cuda_frame").origin.kind == origin_kind::aten);
    CHECK(kernel_named(unet, "cutlass_80_simt_sgemm").origin.kind == origin_kind::cublas);
    CHECK(kernel_named(unet, "cutlass_80_simt_sgemm").origin.facts.math == "fp32_simt");
    CHECK(kernel_named(unet, "nvjet_sm90_tst").origin.kind == origin_kind::cublas);
    // The sixth (examples/heldout_bert): an fp16 encoder's masked inference. cuDNN ran the masked attention; cuBLAS
    // ran the two-way classifier (N = 2) as an align2 wmma kernel.
    const analysis bert = held_out("examples/heldout_bert/step_raw.csv");
    CHECK(kernel_named(bert, "cudnn_generated_fort_native_sdpa_sm90").origin.kind == origin_kind::cudnn);
    CHECK(kernel_named(bert, "nvjet_sm90_hsh").origin.facts.math == "fp16_tensor");
    CHECK(kernel_named(bert, "cutlass_80_wmma_tensorop_f16").origin.kind == origin_kind::cublas);
    CHECK(kernel_named(bert, "cutlass_80_wmma_tensorop_f16").origin.facts.alignment == 2);
    CHECK(kernel_named(bert, "vectorized_layer_norm_kernel").origin.kind == origin_kind::aten);

    // The user's own kernels stay theirs, templates of their own included.
    for (const auto& k : analyze_example("examples/wild/own_raw.csv").kernels) {
        CAPTURE(k.group.name);
        CHECK(k.origin.kind == origin_kind::user);
    }
}

TEST_CASE("ncu's mangled names and Kineto's demangling give the same origin as ncu's demangled names") {
    std::map<std::string, origin_kind> mangled;
    for (const auto& k : analyze_example("examples/user_level/elem_raw_mangled.csv").kernels)
        mangled[k.group.name] = k.origin.kind;
    REQUIRE(!mangled.empty());
    for (const auto& [n, kind] : mangled) {
        CAPTURE(n);
        CHECK(kind != origin_kind::user);  // every kernel of that program is PyTorch's, cuDNN's or Triton's
    }
    const auto trace = nlohmann::json::parse(all_of_gz(source_path("examples/user_level/trace_naive.json.gz")));
    std::size_t kernels = 0;
    for (const auto& ev : trace["traceEvents"]) {
        if (ev.value("cat", "") != "kernel") continue;
        ++kernels;
        const std::string n = ev.value("name", "");
        CAPTURE(n);
        const kernel_origin o = classify_origin(n);
        if (n.find("cutlass_75") != std::string::npos) {
            CHECK(o.kind == origin_kind::cublas);
            CHECK(o.facts.alignment == 1);
        } else {
            CHECK(o.kind == origin_kind::aten);  // at::native::..., with (anonymous namespace) and {lambda()#2}
        }
    }
    CHECK(kernels > 0);
}

TEST_CASE("a library kernel's fixes are what its caller controls; the user's own kernels keep author advice") {
    const analysis a = analyze_example("examples/user_level/gemm_raw.csv");
    // The LM head with a vocabulary of 50257: cuBLAS ran an sm_75 align1 kernel. The fix is the padding.
    const auto& lm = kernel_named(a, "cutlass_75_tensorop_bf16");
    REQUIRE(!lm.diagnosis.findings.empty());
    CHECK(lm.diagnosis.findings.front().id == "tensor-underused");
    CHECK(fixes_mention(lm, "tensor-underused", "50304"));
    CHECK_FALSE(fixes_mention(lm, "tensor-underused", "wgmma"));
    CHECK_FALSE(fixes_mention(lm, "tensor-underused", "cp.async"));
    // FP32 on CUDA cores: allow TF32, not "write wmma fragments".
    const auto& simt = kernel_named(a, "tilesize256x128x8");
    CHECK(fixes_mention(simt, "cuda-core-matmul", "set_float32_matmul_precision"));
    CHECK_FALSE(fixes_mention(simt, "cuda-core-matmul", "wmma"));
    // A strided ATen elementwise kernel: make the tensor contiguous.
    const analysis e = analyze_example("examples/user_level/elem_raw.csv");
    CHECK(fixes_mention(kernel_named(e, "at::elementwise_kernel<128"), "uncoalesced-global", ".contiguous()"));
    // Every finding of every library kernel has a fix, and none is kernel-author advice.
    // The six held-out programs (examples/heldout*), raw and details pages, were written after this test.
    for (const char* capture :
         {"examples/user_level/gemm_raw.csv", "examples/user_level/elem_raw.csv", "examples/user_level/sdpa_raw.csv",
          "examples/wild/lib_a_raw.csv", "examples/heldout/step_raw.csv", "examples/heldout/step_details.csv",
          "examples/heldout_vision/step_raw.csv", "examples/heldout_vision/step_details.csv",
          "examples/heldout_decode/step_raw.csv", "examples/heldout_decode/step_details.csv",
          "examples/heldout_moe/step_raw.csv", "examples/heldout_moe/step_details.csv",
          "examples/heldout_unet/step_raw.csv", "examples/heldout_unet/step_details.csv",
          "examples/heldout_bert/step_raw.csv", "examples/heldout_bert/step_details.csv"})
        for (const auto& k : analyze_example(capture).kernels) {
            if (source_owned(k.origin.kind)) continue;
            CAPTURE(k.group.name);
            for (const auto& f : k.diagnosis.findings) {
                if (f.engine != diagnose::engine_finding::none) continue;
                CAPTURE(f.id);
                CHECK_FALSE(f.fixes.empty());
                for (const auto& x : f.fixes)
                    for (const char* author :
                         {"cp.async", "__shfl", "shared-memory tile", "float4", "__launch_bounds__", "Pad each row"})
                        CHECK(x.str().find(author) == std::string::npos);
            }
        }
    // The user's own kernels keep the kernel-author fixes.
    const analysis own = analyze_example("examples/wild/own_raw.csv");
    CHECK(fixes_mention(kernel_named(own, "sgemm_blocked64"), "cuda-core-matmul", "wmma"));
}

TEST_CASE("an origin pattern file with a mistake is refused with the file and what is wrong") {
    CHECK_THROWS_WITH_AS(check_origin_patterns(R"({"origins": [{"id": "x", "kind": "blas", "library": "L",
        "contains": ["a"], "match": "a", "levers": ["l"]}]})",
                                               "o.json"),
                         doctest::Contains("o.json"), input_error);
    CHECK_THROWS_WITH_AS(check_origin_patterns(R"({"origins": [{"id": "x", "kind": "cublas", "library": "L",
        "contains": ["a"], "match": "(", "levers": ["l"]}]})",
                                               "o.json"),
                         doctest::Contains("not a regular expression"), input_error);
    CHECK_THROWS_WITH_AS(check_origin_patterns(R"({"origins": [{"id": "x", "kind": "cublas", "library": "L",
        "contains": ["a"], "match": "a"}]})",
                                               "o.json"),
                         doctest::Contains("levers"), input_error);
    CHECK_NOTHROW(check_origin_patterns(R"({"origins": [{"id": "x", "kind": "user", "library": "L",
        "contains": ["a"], "match": "a"}]})",
                                        "o.json"));
}

TEST_CASE("the ncu filter made from a trace's kernel name matches that kernel alone in ncu's capture of the program") {
    // The same program (kernels/user_level/user_ops.py): its Kineto trace, and ncu's raw pages of its ops.
    std::set<std::string> ncu_names;
    for (const char* capture : {"examples/user_level/gemm_raw.csv", "examples/user_level/elem_raw.csv"})
        for (const auto& launch : read_example(capture)) ncu_names.insert(launch.kernel_name);
    REQUIRE(ncu_names.size() > 10);
    const auto trace = nlohmann::json::parse(all_of_gz(source_path("examples/user_level/trace_naive.json.gz")));
    std::set<std::string> kineto_names;
    for (const auto& ev : trace["traceEvents"])
        if (ev.value("cat", "") == "kernel") kineto_names.insert(ev.value("name", ""));
    REQUIRE(kineto_names.size() == 8);
    for (const auto& k : kineto_names) {
        CAPTURE(k);
        const std::regex portable(ncu_name_regex(k));
        std::vector<std::string> matched;
        for (const auto& n : ncu_names)
            if (std::regex_search(n, portable)) matched.push_back(n);
        REQUIRE(matched.size() == 1);  // one kernel: --launch-skip counts its launches alone
        CHECK(function_name(matched.front()) == function_name(k));
        // The trace's own text, as the filter was made before, matches nothing ncu writes.
        for (const auto& n : ncu_names) CHECK(n != k);
    }
}

TEST_CASE("a fix's 'for' names origin kinds, 'library' or 'any'; anything else is a load error") {
    const std::string head = R"({"id": "t", "title": "T", "roots": [{"id": "n", "title": "N", "explain": "x",
        "when": "true", "finding": "f", "fixes": [{"text": "pad it", "for": )";
    const auto tree = diagnose::parse_rule_tree(head + R"(["library"]}]}]})", "t.json");
    const auto& f = tree.roots.front().fixes.front();
    CHECK(f.applies_to(origin_kind::cublas));
    CHECK(f.applies_to(origin_kind::aten));
    CHECK_FALSE(f.applies_to(origin_kind::user));
    CHECK_FALSE(f.applies_to(origin_kind::cutlass));
    const auto plain = diagnose::parse_rule_tree(
        R"({"id": "t", "title": "T", "roots": [{"id": "n", "title": "N", "explain": "x", "when": "true",
            "finding": "f", "fixes": [{"text": "use wgmma"}]}]})",
        "t.json");
    CHECK(plain.roots.front().fixes.front().applies_to(origin_kind::user));
    CHECK(plain.roots.front().fixes.front().applies_to(origin_kind::cutlass));
    CHECK_FALSE(plain.roots.front().fixes.front().applies_to(origin_kind::cublas));
    CHECK_THROWS_WITH_AS(diagnose::parse_rule_tree(head + R"(["blas"]}]}]})", "t.json"),
                         doctest::Contains("\"blas\" is not an origin kind"), input_error);
}

TEST_CASE("user-level pairs: the first finding's estimate is within [0.67, 1.5] of the speedup measured unprofiled") {
    // Medians of kernels/user_level/user_ops.py --time (examples/user_level/timing.txt), whole op, 25 runs.
    const std::string timing = read_text(source_path("examples/user_level/timing.txt"));
    auto median_ms = [&](const std::string& op) {
        const std::string key = "time " + op + " median ";
        const auto at = timing.find(key);
        REQUIRE(at != std::string::npos);
        return std::stod(timing.substr(at + key.size()));
    };
    struct pair_case {
        const char *op, *capture, *kernel, *finding;
    };
    // One kernel each, and one change at the call: padding the vocabulary, allowing TF32, a contiguous tensor.
    for (const pair_case& p :
         {pair_case{"lmhead_bf16", "examples/user_level/gemm_raw.csv", "cutlass_75_tensorop_bf16", "tensor-underused"},
          pair_case{"gemm_tf32", "examples/user_level/gemm_raw.csv", "tilesize256x128x8", "cuda-core-matmul"},
          pair_case{"noncontig", "examples/user_level/elem_raw.csv", "at::elementwise_kernel<128",
                    "uncoalesced-global"}}) {
        CAPTURE(p.op);
        const double measured = median_ms(std::string(p.op) + ":naive") / median_ms(std::string(p.op) + ":fixed");
        const analysis a = analyze_example(p.capture);
        const auto& k = kernel_named(a, p.kernel);
        REQUIRE(!k.diagnosis.findings.empty());
        const auto& first = k.diagnosis.findings.front();
        CHECK(first.id == p.finding);
        REQUIRE(first.est_speedup.has_value());
        CAPTURE(*first.est_speedup);
        CAPTURE(measured);
        CHECK(*first.est_speedup >= 0.67 * measured);
        CHECK(*first.est_speedup <= 1.5 * measured);
    }
}

TEST_CASE("operand alignment is judged in bytes: align4 FP32 is the 16 bytes tensor cores want, align1 bf16 is 2") {
    const analysis a = analyze_example("examples/user_level/gemm_raw.csv");
    auto bytes = [&](const char* part) {
        const auto facts = diagnose::kernel_facts(kernel_named(a, part), a.gpu);
        return facts("name_alignment_bytes").value();
    };
    CHECK(bytes("cutlass_75_tensorop_bf16") == 2.0);  // align1 x bf16
    CHECK(bytes("tilesize256x128x8") == 16.0);        // aligna4/alignc4 x fp32
    CHECK(bytes("nvjet_sm90") == 0.0);                // the name states no alignment
}
