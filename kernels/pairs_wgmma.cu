// The tensor-core pair's fixed kernel, written the Hopper way: TMA copies 128x64 tiles of A and
// 256x64 tiles of B (128-byte swizzle) into a four-stage ring in shared memory; one producer
// warpgroup issues the copies, two consumer warpgroups each multiply a 64x256 slice with
// wgmma.mma_async reading both operands straight from shared memory. C = A * B^T, A and B both
// K-major (row-major M x K and N x K), as torch.nn.Linear multiplies.
//
// wgmma exists only in sm_90a code: this file is compiled for sm_90a alone (kernels/CMakeLists.txt)
// and its case runs on compute capability 9.0 devices (H100, H200); elsewhere the runner skips it.
// The PTX below follows the PTX ISA 8.x sections on wgmma, mbarrier and cp.async.bulk.tensor.
#include "half_gemm.hpp"

#include <cuda.h>

#include <cstdint>

namespace roofline::kernels {
namespace {

constexpr int wg_bm = 128, wg_bn = 256, wg_bk = 64, wg_stages = 4, wg_consumers = 2;
constexpr int wg_threads = 128 * (wg_consumers + 1);
constexpr int wg_a_tile = wg_bm * wg_bk, wg_b_tile = wg_bn * wg_bk;  // halves per stage
constexpr int wg_tile_bytes = (wg_a_tile + wg_b_tile) * int(sizeof(half));
// Tiles, then a full and an empty barrier per stage; 1 KiB of slack to align the tiles to the
// 1,024-byte period of the 128-byte swizzle.
constexpr int wg_smem_bytes = wg_stages * wg_tile_bytes + 2 * wg_stages * 8 + 1024;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ inline uint32_t smem_addr(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

__device__ inline void mbar_init(uint64_t* bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
__device__ inline void mbar_expect_bytes(uint64_t* bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ inline void mbar_arrive(uint64_t* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
__device__ inline void mbar_wait(uint64_t* bar, unsigned parity) {
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT;\n"
        "}\n" ::"r"(smem_addr(bar)),
        "r"(parity)
        : "memory");
}

// One TMA copy of the box at (x = column, y = row) of `map` into shared memory; it counts its
// bytes against `bar`.
__device__ inline void tma_load(half* dst, const CUtensorMap* map, uint64_t* bar, int x, int y) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            smem_addr(dst)),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(smem_addr(bar))
        : "memory");
}

// Shared-memory matrix descriptor: start address, leading byte offset (unused for K-major
// swizzled tiles), stride byte offset 1,024 (eight 128-byte rows), 128-byte swizzle.
__device__ inline uint64_t smem_desc(const half* p) {
    uint64_t addr = smem_addr(p);
    return ((addr & 0x3FFFF) >> 4) | (uint64_t(16 >> 4) << 16) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

// d (64x256 per warpgroup, 128 floats per thread) += A (64x16) * B^T (16x256).
__device__ inline void wgmma_m64n256k16(float (&d)[128], uint64_t a, uint64_t b) {
    asm volatile(
        "{\n"
        ".reg .pred acc;\n"
        "setp.ne.b32 acc, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "
        "%30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "
        "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, "
        "%58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "
        "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, "
        "%100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, "
        "%124, %125, %126, %127"
        "}, %128, %129, acc, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), 
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), 
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), 
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), 
          "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), 
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), 
          "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), 
          "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), 
          "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), 
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), 
          "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), 
          "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), 
          "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), 
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), 
          "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), 
          "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), 
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), 
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), 
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), 
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), 
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b), "r"(1));
}

// A consumer warpgroup: multiplies rows slice*64 .. slice*64+63 of the block tile by its 256
// columns, then stores C. One group of wgmmas stays in flight while the next stage's are
// issued; a stage goes back to the producer (one arrival per warp) once the group reading it is
// done.
__device__ inline void consume(const half* sa, const half* sb, uint64_t* full, uint64_t* empty, float* __restrict__ c,
                               int n, int slice, int tid, int row0, int col0) {
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) d[i] = 0.0f;
    for (int kt = 0; kt < n / wg_bk; ++kt) {
        int s = kt % wg_stages;
        mbar_wait(&full[s], (kt / wg_stages) & 1);
        const half* a = sa + s * wg_a_tile + slice * 64 * wg_bk;
        const half* b = sb + s * wg_b_tile;
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int k = 0; k < wg_bk; k += 16) wgmma_m64n256k16(d, smem_desc(a + k), smem_desc(b + k));
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
        if (kt > 0 && tid % 32 == 0) mbar_arrive(&empty[(kt - 1) % wg_stages]);
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

    // Accumulator layout of m64nNk16: warp w holds rows 16w..16w+15; lane l holds rows l/4 and
    // l/4 + 8, columns 8i + 2(l%4) and the next one, for i = 0..N/8-1.
    const int warp = tid / 32, lane = tid % 32;
    const size_t r = size_t(row0 + slice * 64 + warp * 16 + lane / 4);
#pragma unroll
    for (int i = 0; i < wg_bn / 8; ++i) {
        int col = col0 + i * 8 + 2 * (lane % 4);
        *reinterpret_cast<float2*>(c + r * n + col) = make_float2(d[4 * i], d[4 * i + 1]);
        *reinterpret_cast<float2*>(c + (r + 8) * n + col) = make_float2(d[4 * i + 2], d[4 * i + 3]);
    }
}
#endif

__global__ void __launch_bounds__(wg_threads, 1)
    wgmma_tma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, float* __restrict__ c, int n) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ unsigned char smem_raw[];
    unsigned char* base = smem_raw + ((1024 - (smem_addr(smem_raw) & 1023)) & 1023);
    half* sa = reinterpret_cast<half*>(base);
    half* sb = sa + wg_stages * wg_a_tile;
    uint64_t* full = reinterpret_cast<uint64_t*>(sb + wg_stages * wg_b_tile);
    uint64_t* empty = full + wg_stages;

    const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
    const int row0 = blockIdx.y * wg_bm, col0 = blockIdx.x * wg_bn;
    if (threadIdx.x == 0) {
        for (int s = 0; s < wg_stages; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], wg_consumers * 4);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    // setmaxnreg takes effect only with the roles as the two branches of one if/else.
    if (wg == 0) {
        // Producer: gives registers back to the consumers; one thread streams the tiles.
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (tid == 0) {
            for (int kt = 0; kt < n / wg_bk; ++kt) {
                int s = kt % wg_stages;
                if (kt >= wg_stages) mbar_wait(&empty[s], ((kt / wg_stages) - 1) & 1);
                mbar_expect_bytes(&full[s], wg_tile_bytes);
                tma_load(sa + s * wg_a_tile, &map_a, &full[s], kt * wg_bk, row0);
                tma_load(sb + s * wg_b_tile, &map_b, &full[s], kt * wg_bk, col0);
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        consume(sa, sb, full, empty, c, n, wg - 1, tid, row0, col0);
    }
#endif
}

// A K-major n x n half matrix as TMA sees it: rows of n halves, boxes of 64 columns x `rows`.
CUtensorMap tensor_map(const half* p, int n, int rows) {
    CUtensorMap map;
    cuuint64_t dims[2] = {cuuint64_t(n), cuuint64_t(n)};
    cuuint64_t strides[1] = {cuuint64_t(n) * sizeof(half)};
    cuuint32_t box[2] = {cuuint32_t(wg_bk), cuuint32_t(rows)};
    cuuint32_t elem[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<half*>(p), dims, strides,
                                        box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        std::fprintf(stderr, "cuTensorMapEncodeTiled failed: error %d\n", int(r));
        std::exit(3);
    }
    return map;
}

class wgmma_case : public half_gemm_case {
public:
    explicit wgmma_case(int n) : half_gemm_case(n) {}
    std::string name() const override { return "wgmma_tma"; }
    std::string intent() const override {
        return "compute/tensor_fp16: TMA into a 4-stage ring, producer + 2 consumer warpgroups, wgmma from shared memory";
    }
    std::string skip_reason() const override {
        int dev = 0;
        cudaDeviceProp prop{};
        ROOFLINE_CUDA_CHECK(cudaGetDevice(&dev));
        ROOFLINE_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
        if (prop.major == 9 && prop.minor == 0) return {};
        return "wgmma needs a compute capability 9.0 GPU (this one is " + std::to_string(prop.major) + "." +
               std::to_string(prop.minor) + ")";
    }
    void launch(cudaStream_t s) override {
        wgmma_tma<<<dim3(n_ / wg_bn, n_ / wg_bm), wg_threads, wg_smem_bytes, s>>>(map_a_, map_b_, c_.get(), n_);
    }

private:
    void prepare() override {
        map_a_ = tensor_map(a_.get(), n_, wg_bm);
        map_b_ = tensor_map(b_.get(), n_, wg_bn);
        ROOFLINE_CUDA_CHECK(cudaFuncSetAttribute(wgmma_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, wg_smem_bytes));
    }

    CUtensorMap map_a_{}, map_b_{};
};

}  // namespace

void add_wgmma_cases(case_list& out) { out.push_back(std::make_unique<wgmma_case>(scaled_dim(4096, 256))); }

}  // namespace roofline::kernels
