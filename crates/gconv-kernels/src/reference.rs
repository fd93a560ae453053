//! GPU reference kernels (`ref` family): naive direct convolution for every direction, dtype
//! and rank, used only to verify generated kernels on the device — never a candidate in a pool.
//!
//! The module is specialised on the problem: every size is a `constexpr` constant, so the
//! index arithmetic compiles to multiplications by constants. Every problem is handled as 3D
//! (the neutral leading slots of [`Problem`] make the extra loops vanish).
//!
//! - **fwd**: one thread per Y element (grid-stride loop), sum over the filter taps that fall
//!   inside the input and C/G channels.
//! - **dgrad**: one thread per dX element, a gather over the filter taps: tap `z` contributes
//!   when `id + pad - z·dil` is a non-negative multiple of the stride whose quotient is a valid
//!   output coordinate; then a sum over K/G.
//! - **wgrad**: one block of [`BLOCK`] threads per dW element (block-stride loop); the threads
//!   split the N·outspatial reduction by index and combine their partial sums with a fixed
//!   shared-memory tree, so the result is deterministic.
//!
//! Storage is f32, f16 or bf16, accumulation f32. The source is header-free (see
//! [`crate::source`]): f16/bf16 are `unsigned short` converted with `cvt` PTX instructions.
//! Offsets are 32-bit (`int`) when every tensor has at most 2^30 elements, else 64-bit.

use crate::source::{Arch, KernelSource, Launch};
use gconv_problem::{DType, Direction, Problem, TensorRole};
use std::fmt::Write;

/// Threads per block of every reference launch.
pub const BLOCK: u32 = 256;

/// Largest grid (blocks); larger problems are covered by the grid-stride loops.
pub const MAX_GRID: u64 = 1 << 20;

/// Entry point of every reference module.
pub const ENTRY: &str = "gconv_ref";

/// Largest element count of any tensor for which 32-bit offsets are used.
pub const MAX_ELEMENTS_32BIT: u64 = 1 << 30;

/// The canonical name of the reference kernel for a problem: `ref_{problem key}`.
pub fn reference_name(problem: &Problem) -> String {
    format!("ref_{problem}")
}

/// True when the reference module for `problem` uses 64-bit offsets.
pub fn uses_64bit_index(problem: &Problem) -> bool {
    [TensorRole::X, TensorRole::W, TensorRole::Y]
        .iter()
        .any(|&r| problem.elements(r) > MAX_ELEMENTS_32BIT)
}

/// The reference module (source and launch) for a problem. Deterministic: the same problem
/// gives byte-identical source.
pub fn reference_source(problem: &Problem) -> KernelSource {
    let p = problem;
    let wide = uses_64bit_index(p);
    let idx = if wide { "long long" } else { "int" };
    let [di, hi, wi] = p.input;
    let [fz, fy, fx] = p.filter;
    let [od, oh, ow] = p.output();
    let [sd, sh, sw] = p.stride;
    let [pd, ph, pw] = p.pad;
    let [dd, dh, dw] = p.dilation;
    let out_role = p.roles().1;
    let out_elems = p.elements(out_role);

    let mut s = String::new();
    // `write!` to a String cannot fail.
    let _ = writeln!(
        s,
        "// gconv GPU reference kernel (verification only).\n\
         // problem: {p}\n\
         // direction {dir}, storage {dt}, f32 accumulation, {idx} offsets, header-free.\n\
         // Layouts: X = N,D,H,W,G,C/G; W = G,K/G,Z,Y,X,C/G; Y = N,Do,Ho,Wo,G,K/G.\n",
        dir = p.direction,
        dt = p.dtype,
    );
    let _ = writeln!(s, "typedef {idx} idx_t;");
    s.push_str(storage_helpers(p.dtype));
    let _ = writeln!(
        s,
        "\nconstexpr idx_t NB = {n}, GR = {g}, CPG = {cpg}, KPG = {kpg};\n\
         constexpr idx_t DI = {di}, HI = {hi}, WI = {wi};\n\
         constexpr idx_t FZ = {fz}, FY = {fy}, FX = {fx};\n\
         constexpr idx_t DO = {od}, HO = {oh}, WO = {ow};\n\
         constexpr idx_t SD = {sd}, SH = {sh}, SW = {sw};\n\
         constexpr idx_t PD = {pd}, PH = {ph}, PW = {pw};\n\
         constexpr idx_t DD = {dd}, DH = {dh}, DW = {dw};\n\
         constexpr int BLOCK = {BLOCK};\n",
        n = p.n,
        g = p.g,
        cpg = p.cpg(),
        kpg = p.kpg(),
    );
    s.push_str(OFFSETS);
    s.push_str(match p.direction {
        Direction::Fwd => FWD,
        Direction::Dgrad => DGRAD,
        Direction::Wgrad => WGRAD,
    });

    let blocks = match p.direction {
        Direction::Wgrad => out_elems,
        Direction::Fwd | Direction::Dgrad => out_elems.div_ceil(BLOCK as u64),
    }
    .clamp(1, MAX_GRID) as u32;
    KernelSource {
        kernel_name: reference_name(p),
        code: s,
        arch: Arch::Sm90,
        launches: vec![Launch {
            entry: ENTRY.to_string(),
            grid: [blocks, 1, 1],
            block: [BLOCK, 1, 1],
            dynamic_smem_bytes: 0,
            overlaps_previous: false,
            cluster: 1,
            tensor_maps: Vec::new(),
        }],
        workspace_bytes: 0,
    }
}

fn storage_helpers(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => {
            "typedef float st_t;\n\
             __device__ __forceinline__ float ld(st_t v) { return v; }\n\
             __device__ __forceinline__ st_t st(float f) { return f; }\n"
        }
        DType::F16 => {
            "typedef unsigned short st_t;  // IEEE binary16 bits\n\
             __device__ __forceinline__ float ld(st_t v) {\n  \
               float f;\n  asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(v));\n  return f;\n}\n\
             __device__ __forceinline__ st_t st(float f) {\n  \
               st_t v;\n  asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(v) : \"f\"(f));\n  return v;\n}\n"
        }
        DType::Bf16 => {
            "typedef unsigned short st_t;  // bfloat16 bits\n\
             __device__ __forceinline__ float ld(st_t v) { return __uint_as_float(((unsigned int)v) << 16); }\n\
             __device__ __forceinline__ st_t st(float f) {\n  \
               st_t v;\n  asm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(v) : \"f\"(f));\n  return v;\n}\n"
        }
    }
}

const OFFSETS: &str = "\
__device__ __forceinline__ idx_t x_off(idx_t n, idx_t d, idx_t h, idx_t w, idx_t g, idx_t c) {
  return ((((n * DI + d) * HI + h) * WI + w) * GR + g) * CPG + c;
}
__device__ __forceinline__ idx_t w_off(idx_t g, idx_t k, idx_t z, idx_t y, idx_t x, idx_t c) {
  return ((((g * KPG + k) * FZ + z) * FY + y) * FX + x) * CPG + c;
}
__device__ __forceinline__ idx_t y_off(idx_t n, idx_t d, idx_t h, idx_t w, idx_t g, idx_t k) {
  return ((((n * DO + d) * HO + h) * WO + w) * GR + g) * KPG + k;
}
";

const FWD: &str = "
// Forward: one thread per Y element.
extern \"C\" __global__ void __launch_bounds__(256)
gconv_ref(const void* in0, const void* in1, void* out, void* workspace) {
  (void)workspace;
  const st_t* __restrict__ X = (const st_t*)in0;
  const st_t* __restrict__ Wt = (const st_t*)in1;
  st_t* __restrict__ Y = (st_t*)out;
  constexpr idx_t TOTAL = NB * DO * HO * WO * GR * KPG;
  const idx_t step = (idx_t)gridDim.x * BLOCK;
  for (idx_t i = (idx_t)blockIdx.x * BLOCK + threadIdx.x; i < TOTAL; i += step) {
    idx_t r = i;
    const idx_t k = r % KPG; r /= KPG;
    const idx_t g = r % GR; r /= GR;
    const idx_t ow = r % WO; r /= WO;
    const idx_t oh = r % HO; r /= HO;
    const idx_t od = r % DO; r /= DO;
    const idx_t n = r;
    float acc = 0.0f;
    for (idx_t z = 0; z < FZ; ++z) {
      const idx_t id = od * SD - PD + z * DD;
      if (id < 0 || id >= DI) continue;
      for (idx_t y = 0; y < FY; ++y) {
        const idx_t ih = oh * SH - PH + y * DH;
        if (ih < 0 || ih >= HI) continue;
        for (idx_t x = 0; x < FX; ++x) {
          const idx_t iw = ow * SW - PW + x * DW;
          if (iw < 0 || iw >= WI) continue;
          const st_t* xp = X + x_off(n, id, ih, iw, g, 0);
          const st_t* wp = Wt + w_off(g, k, z, y, x, 0);
          float part = 0.0f;
          for (idx_t c = 0; c < CPG; ++c) part += ld(xp[c]) * ld(wp[c]);
          acc += part;
        }
      }
    }
    Y[i] = st(acc);
  }
}
";

const DGRAD: &str = "
// Backward data: one thread per dX element, gathering over the filter taps.
extern \"C\" __global__ void __launch_bounds__(256)
gconv_ref(const void* in0, const void* in1, void* out, void* workspace) {
  (void)workspace;
  const st_t* __restrict__ DY = (const st_t*)in0;
  const st_t* __restrict__ Wt = (const st_t*)in1;
  st_t* __restrict__ DX = (st_t*)out;
  constexpr idx_t TOTAL = NB * DI * HI * WI * GR * CPG;
  const idx_t step = (idx_t)gridDim.x * BLOCK;
  for (idx_t i = (idx_t)blockIdx.x * BLOCK + threadIdx.x; i < TOTAL; i += step) {
    idx_t r = i;
    const idx_t c = r % CPG; r /= CPG;
    const idx_t g = r % GR; r /= GR;
    const idx_t iw = r % WI; r /= WI;
    const idx_t ih = r % HI; r /= HI;
    const idx_t id = r % DI; r /= DI;
    const idx_t n = r;
    float acc = 0.0f;
    for (idx_t z = 0; z < FZ; ++z) {
      const idx_t td = id + PD - z * DD;
      if (td < 0 || td % SD != 0) continue;
      const idx_t od = td / SD;
      if (od >= DO) continue;
      for (idx_t y = 0; y < FY; ++y) {
        const idx_t th = ih + PH - y * DH;
        if (th < 0 || th % SH != 0) continue;
        const idx_t oh = th / SH;
        if (oh >= HO) continue;
        for (idx_t x = 0; x < FX; ++x) {
          const idx_t tw = iw + PW - x * DW;
          if (tw < 0 || tw % SW != 0) continue;
          const idx_t ow = tw / SW;
          if (ow >= WO) continue;
          const st_t* yp = DY + y_off(n, od, oh, ow, g, 0);
          const st_t* wp = Wt + w_off(g, 0, z, y, x, c);
          float part = 0.0f;
          for (idx_t k = 0; k < KPG; ++k) part += ld(yp[k]) * ld(wp[k * (FZ * FY * FX * CPG)]);
          acc += part;
        }
      }
    }
    DX[i] = st(acc);
  }
}
";

const WGRAD: &str = "
// Backward weight: one block per dW element; the threads split the N*outspatial reduction and
// combine partial sums with a fixed tree (deterministic).
extern \"C\" __global__ void __launch_bounds__(256)
gconv_ref(const void* in0, const void* in1, void* out, void* workspace) {
  (void)workspace;
  const st_t* __restrict__ X = (const st_t*)in0;
  const st_t* __restrict__ DY = (const st_t*)in1;
  st_t* __restrict__ DWt = (st_t*)out;
  __shared__ float red[BLOCK];
  constexpr idx_t TOTAL = GR * KPG * FZ * FY * FX * CPG;
  constexpr idx_t RED = NB * DO * HO * WO;
  for (idx_t e = blockIdx.x; e < TOTAL; e += gridDim.x) {
    idx_t r = e;
    const idx_t c = r % CPG; r /= CPG;
    const idx_t x = r % FX; r /= FX;
    const idx_t y = r % FY; r /= FY;
    const idx_t z = r % FZ; r /= FZ;
    const idx_t k = r % KPG; r /= KPG;
    const idx_t g = r;
    float acc = 0.0f;
    for (idx_t j = threadIdx.x; j < RED; j += BLOCK) {
      idx_t q = j;
      const idx_t ow = q % WO; q /= WO;
      const idx_t oh = q % HO; q /= HO;
      const idx_t od = q % DO; q /= DO;
      const idx_t n = q;
      const idx_t id = od * SD - PD + z * DD;
      const idx_t ih = oh * SH - PH + y * DH;
      const idx_t iw = ow * SW - PW + x * DW;
      if (id < 0 || id >= DI || ih < 0 || ih >= HI || iw < 0 || iw >= WI) continue;
      acc += ld(X[x_off(n, id, ih, iw, g, c)]) * ld(DY[y_off(n, od, oh, ow, g, k)]);
    }
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) DWt[e] = st(red[0]);
    __syncthreads();
  }
}
";

#[cfg(test)]
mod tests {
    use super::*;

    fn prob(key: &str) -> Problem {
        key.parse().unwrap()
    }

    #[test]
    fn source_is_deterministic_and_named() {
        let p = prob("dgrad_bf16_n2_g4_c8_k12_i7x9_f3x3_s2x2_p1x1_d1x2");
        let a = reference_source(&p);
        let b = reference_source(&p);
        assert_eq!(a, b);
        assert_eq!(a.kernel_name, format!("ref_{p}"));
        assert_eq!(a.launches.len(), 1);
        assert_eq!(a.launches[0].entry, ENTRY);
        assert_eq!(a.launches[0].block, [BLOCK, 1, 1]);
        assert_eq!(a.workspace_bytes, 0);
        assert!(a.code.contains("typedef int idx_t;"));
        assert!(a.code.contains("cvt.rn.bf16.f32"));
        assert!(!a.code.contains("#include"));
        // dX has 2*7*9*8 = 1008 elements -> 4 blocks of 256.
        assert_eq!(a.launches[0].grid, [4, 1, 1]);
    }

    #[test]
    fn different_problems_give_different_sources() {
        let keys = [
            "fwd_f32_n1_g1_c4_k4_i8_f3_s1_p1_d1",
            "fwd_f16_n1_g1_c4_k4_i8_f3_s1_p1_d1",
            "fwd_f32_n1_g1_c4_k4_i8_f3_s1_p1_d2",
            "wgrad_f32_n1_g1_c4_k4_i8_f3_s1_p1_d1",
            "dgrad_f32_n1_g1_c4_k4_i8_f3_s1_p1_d1",
            "fwd_f32_n1_g2_c4_k4_i4x4x4_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        ];
        let srcs: Vec<String> = keys
            .iter()
            .map(|k| reference_source(&prob(k)).code)
            .collect();
        for i in 0..srcs.len() {
            for j in i + 1..srcs.len() {
                assert_ne!(srcs[i], srcs[j], "{} vs {}", keys[i], keys[j]);
            }
        }
    }

    #[test]
    fn wgrad_launches_one_block_per_weight() {
        let p = prob("wgrad_f32_n2_g3_c6_k9_i5x5_f3x3_s1x1_p1x1_d1x1");
        let s = reference_source(&p);
        // dW = G * K/G * 3*3 * C/G = 3*3*9*2 = 162 blocks.
        assert_eq!(s.launches[0].grid, [162, 1, 1]);
        assert!(s.code.contains("__shared__ float red[BLOCK]"));
    }

    #[test]
    fn large_problems_use_64bit_offsets_and_capped_grids() {
        // X has 64*512*512*256 = 2^32 elements.
        let p = prob("fwd_bf16_n64_g256_c256_k256_i512x512_f3x3_s1x1_p1x1_d1x1");
        assert!(uses_64bit_index(&p));
        let s = reference_source(&p);
        assert!(s.code.contains("typedef long long idx_t;"));
        assert_eq!(s.launches[0].grid, [MAX_GRID as u32, 1, 1]);
        let small = prob("fwd_bf16_n1_g1_c8_k8_i8x8_f3x3_s1x1_p1x1_d1x1");
        assert!(!uses_64bit_index(&small));
    }

    #[test]
    fn every_direction_dtype_and_rank_generates() {
        for dir in Direction::ALL {
            for dt in DType::ALL {
                for key in [
                    "fwd_f32_n2_g2_c4_k6_i9_f3_s2_p1_d1",
                    "fwd_f32_n2_g2_c4_k6_i9x7_f3x3_s2x1_p1x1_d1x2",
                    "fwd_f32_n2_g2_c4_k6_i5x6x7_f3x3x3_s1x2x1_p1x1x1_d1x1x2",
                ] {
                    let p = prob(key).with_direction(dir).with_dtype(dt);
                    let s = reference_source(&p);
                    assert!(s.code.contains(&format!("// problem: {p}")));
                    assert!(s.code.contains("extern \"C\" __global__"));
                }
            }
        }
    }
}
