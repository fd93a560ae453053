//! `cudnn_check`: runs the cuDNN graph-API baseline on the GPU.
//!
//! 1. Correctness: for a dozen small problems (fwd/dgrad/wgrad; bf16, f16, f32; grouped,
//!    depthwise, odd channels; 1D, 2D, 3D) every engine configuration cuDNN finalizes is run
//!    once and its output compared with the f64 CPU reference.
//! 2. Timing: the 81 keys of `corpus/model_zoo_public.txt`, fastest configuration per key,
//!    printed next to the corpus's `cudnn_graph_ms` (PyTorch + cuDNN 9.19, CUDA-graph replay)
//!    with the ratio ours / corpus and the roofline fraction.
//!
//! Options: `--deadline-s S` (stop starting corpus keys after S seconds, default 280),
//! `--csv PATH` (one row per corpus key), `--no-check`, `--no-corpus`, `--filter SUBSTR`
//! (corpus keys containing it), `--heur A,B,FALLBACK`, `--max-configs N`, `--rounds N`,
//! `--iters N`, `--layouts nhwc,nchw` (corpus timing; default both: the corpus figure is the
//! best of both layouts), `--verbose` (print every configuration of every corpus key).
//!
//! Run on the GPU machine with cuDNN's folder in `LD_LIBRARY_PATH`.

use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use gconv_cuda::cudnn::{
    CudnnBaseline, CudnnEngineResult, CudnnLayout, CudnnTiming, EngineStatus, HeurMode,
};
use gconv_problem::{
    compare, DType, DeviceSpec, Direction, HostTensor, Problem, TensorRole, Tolerance,
};
use std::collections::BTreeMap;
use std::error::Error;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

type Res<T> = Result<T, Box<dyn Error>>;

/// The 81 keys of `corpus/model_zoo_public.txt` (layer, key) with the `cudnn_graph_ms` and
/// `cudnn_graph_layout` columns of `corpus/cudnn_graph_h200_public.csv` (PyTorch 2.11 +
/// cuDNN 9.19, CUDA-graph replay, H200).
const CORPUS: &[(&str, &str, f64, &str)] = &[
    (
        "mbv2_dw32_112",
        "fwd_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
        0.0260,
        "nhwc",
    ),
    (
        "mbv2_dw32_112",
        "dgrad_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
        0.0428,
        "nhwc",
    ),
    (
        "mbv2_dw32_112",
        "wgrad_bf16_n32_g32_c32_k32_i112x112_f3x3_s1x1_p1x1_d1x1",
        0.0526,
        "nhwc",
    ),
    (
        "mbv2_dw96_112s2",
        "fwd_bf16_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
        0.0384,
        "nhwc",
    ),
    (
        "mbv2_dw96_112s2",
        "dgrad_bf16_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
        0.1221,
        "nhwc",
    ),
    (
        "mbv2_dw96_112s2",
        "wgrad_bf16_n32_g96_c96_k96_i112x112_f3x3_s2x2_p1x1_d1x1",
        0.0570,
        "nhwc",
    ),
    (
        "mbv2_dw144_56",
        "fwd_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1",
        0.0309,
        "nhwc",
    ),
    (
        "mbv2_dw144_56",
        "dgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1",
        0.0486,
        "nhwc",
    ),
    (
        "mbv2_dw144_56",
        "wgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1",
        0.0372,
        "nhwc",
    ),
    (
        "mbv2_dw192_28",
        "fwd_bf16_n32_g192_c192_k192_i28x28_f3x3_s1x1_p1x1_d1x1",
        0.0119,
        "nhwc",
    ),
    (
        "mbv2_dw192_28",
        "dgrad_bf16_n32_g192_c192_k192_i28x28_f3x3_s1x1_p1x1_d1x1",
        0.0169,
        "nhwc",
    ),
    (
        "mbv2_dw192_28",
        "wgrad_bf16_n32_g192_c192_k192_i28x28_f3x3_s1x1_p1x1_d1x1",
        0.0140,
        "nhwc",
    ),
    (
        "mbv2_dw384_14",
        "fwd_bf16_n32_g384_c384_k384_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0075,
        "nhwc",
    ),
    (
        "mbv2_dw384_14",
        "dgrad_bf16_n32_g384_c384_k384_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0093,
        "nhwc",
    ),
    (
        "mbv2_dw384_14",
        "wgrad_bf16_n32_g384_c384_k384_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0099,
        "nhwc",
    ),
    (
        "mbv2_dw576_14s2",
        "fwd_bf16_n32_g576_c576_k576_i14x14_f3x3_s2x2_p1x1_d1x1",
        0.0067,
        "nhwc",
    ),
    (
        "mbv2_dw576_14s2",
        "dgrad_bf16_n32_g576_c576_k576_i14x14_f3x3_s2x2_p1x1_d1x1",
        0.0137,
        "nhwc",
    ),
    (
        "mbv2_dw576_14s2",
        "wgrad_bf16_n32_g576_c576_k576_i14x14_f3x3_s2x2_p1x1_d1x1",
        0.0084,
        "nhwc",
    ),
    (
        "mbv2_dw960_7",
        "fwd_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1",
        0.0057,
        "nhwc",
    ),
    (
        "mbv2_dw960_7",
        "dgrad_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1",
        0.0081,
        "nhwc",
    ),
    (
        "mbv2_dw960_7",
        "wgrad_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1",
        0.0079,
        "nhwc",
    ),
    (
        "effb0_dw240_28_5",
        "fwd_bf16_n32_g240_c240_k240_i28x28_f5x5_s1x1_p2x2_d1x1",
        0.0269,
        "nhwc",
    ),
    (
        "effb0_dw240_28_5",
        "dgrad_bf16_n32_g240_c240_k240_i28x28_f5x5_s1x1_p2x2_d1x1",
        0.0425,
        "nhwc",
    ),
    (
        "effb0_dw240_28_5",
        "wgrad_bf16_n32_g240_c240_k240_i28x28_f5x5_s1x1_p2x2_d1x1",
        0.0261,
        "nhwc",
    ),
    (
        "effb0_dw672_14_5",
        "fwd_bf16_n32_g672_c672_k672_i14x14_f5x5_s1x1_p2x2_d1x1",
        0.0205,
        "nhwc",
    ),
    (
        "effb0_dw672_14_5",
        "dgrad_bf16_n32_g672_c672_k672_i14x14_f5x5_s1x1_p2x2_d1x1",
        0.0305,
        "nhwc",
    ),
    (
        "effb0_dw672_14_5",
        "wgrad_bf16_n32_g672_c672_k672_i14x14_f5x5_s1x1_p2x2_d1x1",
        0.0267,
        "nhwc",
    ),
    (
        "effb0_dw1152_7_5",
        "fwd_bf16_n32_g1152_c1152_k1152_i7x7_f5x5_s1x1_p2x2_d1x1",
        0.0129,
        "nhwc",
    ),
    (
        "effb0_dw1152_7_5",
        "dgrad_bf16_n32_g1152_c1152_k1152_i7x7_f5x5_s1x1_p2x2_d1x1",
        0.0180,
        "nhwc",
    ),
    (
        "effb0_dw1152_7_5",
        "wgrad_bf16_n32_g1152_c1152_k1152_i7x7_f5x5_s1x1_p2x2_d1x1",
        0.0135,
        "nhwc",
    ),
    (
        "cnxt_dw96_56_7",
        "fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
        0.0732,
        "nhwc",
    ),
    (
        "cnxt_dw96_56_7",
        "dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
        0.1648,
        "nhwc",
    ),
    (
        "cnxt_dw96_56_7",
        "wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1",
        0.0730,
        "nhwc",
    ),
    (
        "cnxt_dw192_28_7",
        "fwd_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1",
        0.0436,
        "nhwc",
    ),
    (
        "cnxt_dw192_28_7",
        "dgrad_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1",
        0.0794,
        "nhwc",
    ),
    (
        "cnxt_dw192_28_7",
        "wgrad_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1",
        0.0338,
        "nhwc",
    ),
    (
        "cnxt_dw384_14_7",
        "fwd_bf16_n32_g384_c384_k384_i14x14_f7x7_s1x1_p3x3_d1x1",
        0.0234,
        "nhwc",
    ),
    (
        "cnxt_dw384_14_7",
        "dgrad_bf16_n32_g384_c384_k384_i14x14_f7x7_s1x1_p3x3_d1x1",
        0.0420,
        "nhwc",
    ),
    (
        "cnxt_dw384_14_7",
        "wgrad_bf16_n32_g384_c384_k384_i14x14_f7x7_s1x1_p3x3_d1x1",
        0.0225,
        "nhwc",
    ),
    (
        "cnxt_dw768_7_7",
        "fwd_bf16_n32_g768_c768_k768_i7x7_f7x7_s1x1_p3x3_d1x1",
        0.0180,
        "nhwc",
    ),
    (
        "cnxt_dw768_7_7",
        "dgrad_bf16_n32_g768_c768_k768_i7x7_f7x7_s1x1_p3x3_d1x1",
        0.0281,
        "nhwc",
    ),
    (
        "cnxt_dw768_7_7",
        "wgrad_bf16_n32_g768_c768_k768_i7x7_f7x7_s1x1_p3x3_d1x1",
        0.0158,
        "nhwc",
    ),
    (
        "rnxt_g32_128_56",
        "fwd_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
        0.0480,
        "nhwc",
    ),
    (
        "rnxt_g32_128_56",
        "dgrad_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
        0.0559,
        "nhwc",
    ),
    (
        "rnxt_g32_128_56",
        "wgrad_bf16_n32_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1",
        0.0755,
        "nhwc",
    ),
    (
        "rnxt_g32_256_28",
        "fwd_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
        0.0314,
        "nhwc",
    ),
    (
        "rnxt_g32_256_28",
        "dgrad_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
        0.0337,
        "nhwc",
    ),
    (
        "rnxt_g32_256_28",
        "wgrad_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
        0.0305,
        "nhwc",
    ),
    (
        "rnxt_g32_512_14",
        "fwd_bf16_n32_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0149,
        "nhwc",
    ),
    (
        "rnxt_g32_512_14",
        "dgrad_bf16_n32_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0150,
        "nhwc",
    ),
    (
        "rnxt_g32_512_14",
        "wgrad_bf16_n32_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0150,
        "nhwc",
    ),
    (
        "rnxt_g32_1024_7",
        "fwd_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
        0.0088,
        "nhwc",
    ),
    (
        "rnxt_g32_1024_7",
        "dgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
        0.0109,
        "nhwc",
    ),
    (
        "rnxt_g32_1024_7",
        "wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1",
        0.0102,
        "nhwc",
    ),
    (
        "regnety_gw24_48_56",
        "fwd_bf16_n32_g2_c48_k48_i56x56_f3x3_s1x1_p1x1_d1x1",
        0.0496,
        "nhwc",
    ),
    (
        "regnety_gw24_48_56",
        "dgrad_bf16_n32_g2_c48_k48_i56x56_f3x3_s1x1_p1x1_d1x1",
        0.0497,
        "nhwc",
    ),
    (
        "regnety_gw24_48_56",
        "wgrad_bf16_n32_g2_c48_k48_i56x56_f3x3_s1x1_p1x1_d1x1",
        0.0702,
        "nchw",
    ),
    (
        "regnety_gw24_336_14",
        "fwd_bf16_n32_g14_c336_k336_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0418,
        "nchw",
    ),
    (
        "regnety_gw24_336_14",
        "dgrad_bf16_n32_g14_c336_k336_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0407,
        "nchw",
    ),
    (
        "regnety_gw24_336_14",
        "wgrad_bf16_n32_g14_c336_k336_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0429,
        "nchw",
    ),
    (
        "regnetx_gw56_448_14",
        "fwd_bf16_n32_g8_c448_k448_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0465,
        "nchw",
    ),
    (
        "regnetx_gw56_448_14",
        "dgrad_bf16_n32_g8_c448_k448_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0233,
        "nhwc",
    ),
    (
        "regnetx_gw56_448_14",
        "wgrad_bf16_n32_g8_c448_k448_i14x14_f3x3_s1x1_p1x1_d1x1",
        0.0455,
        "nchw",
    ),
    (
        "g2_256_28",
        "fwd_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
        0.0304,
        "nhwc",
    ),
    (
        "g2_256_28",
        "dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
        0.0291,
        "nhwc",
    ),
    (
        "g2_256_28",
        "wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1",
        0.0440,
        "nhwc",
    ),
    (
        "g4_512_14_1x1",
        "fwd_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
        0.0081,
        "nhwc",
    ),
    (
        "g4_512_14_1x1",
        "dgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
        0.0072,
        "nhwc",
    ),
    (
        "g4_512_14_1x1",
        "wgrad_bf16_n32_g4_c512_k512_i14x14_f1x1_s1x1_p0x0_d1x1",
        0.0326,
        "nhwc",
    ),
    (
        "shufv2_g1_1x1_116_28",
        "fwd_bf16_n32_g1_c116_k116_i28x28_f1x1_s1x1_p0x0_d1x1",
        0.0099,
        "nchw",
    ),
    (
        "shufv2_g1_1x1_116_28",
        "dgrad_bf16_n32_g1_c116_k116_i28x28_f1x1_s1x1_p0x0_d1x1",
        0.0093,
        "nhwc",
    ),
    (
        "shufv2_g1_1x1_116_28",
        "wgrad_bf16_n32_g1_c116_k116_i28x28_f1x1_s1x1_p0x0_d1x1",
        0.0137,
        "nchw",
    ),
    (
        "x3d_dw3d_54_16_56",
        "fwd_bf16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        0.4256,
        "nchw",
    ),
    (
        "x3d_dw3d_54_16_56",
        "dgrad_bf16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        0.4724,
        "nchw",
    ),
    (
        "x3d_dw3d_54_16_56",
        "wgrad_bf16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        1.2152,
        "nchw",
    ),
    (
        "x3d_dw3d_216_16_14",
        "fwd_bf16_n8_g216_c216_k216_i16x14x14_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        0.1105,
        "nchw",
    ),
    (
        "x3d_dw3d_216_16_14",
        "dgrad_bf16_n8_g216_c216_k216_i16x14x14_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        0.1205,
        "nchw",
    ),
    (
        "x3d_dw3d_216_16_14",
        "wgrad_bf16_n8_g216_c216_k216_i16x14x14_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        0.3170,
        "nchw",
    ),
    (
        "rnxt3d_g32_256_8_28",
        "fwd_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        0.1464,
        "nhwc",
    ),
    (
        "rnxt3d_g32_256_8_28",
        "dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        0.1185,
        "nhwc",
    ),
    (
        "rnxt3d_g32_256_8_28",
        "wgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
        0.0942,
        "nhwc",
    ),
];

/// Small problems for the correctness pass.
const CHECKS: &[&str] = &[
    "fwd_bf16_n2_g4_c32_k64_i9x11_f3x3_s1x1_p1x1_d1x1",
    "dgrad_bf16_n2_g4_c32_k32_i10x9_f3x3_s2x2_p1x1_d1x1",
    "wgrad_bf16_n2_g8_c64_k64_i8x8_f3x3_s1x1_p1x1_d1x1",
    "fwd_bf16_n2_g32_c32_k32_i12x12_f5x5_s1x1_p2x2_d1x1",
    "dgrad_bf16_n2_g32_c32_k32_i11x11_f3x3_s2x2_p1x1_d1x1",
    "wgrad_bf16_n2_g32_c32_k32_i10x10_f7x7_s1x1_p3x3_d1x1",
    "fwd_bf16_n1_g4_c32_k32_i5x6x7_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    "wgrad_bf16_n1_g16_c16_k16_i4x6x6_f3x3x3_s1x1x1_p1x1x1_d1x1x1",
    "fwd_f16_n2_g8_c64_k64_i9x9_f3x3_s1x1_p1x1_d2x2",
    "dgrad_f32_n2_g4_c16_k16_i7x7_f3x3_s1x1_p1x1_d1x1",
    "fwd_bf16_n2_g3_c12_k24_i9x9_f3x3_s1x1_p1x1_d1x1",
    "fwd_bf16_n2_g4_c32_k32_i33_f5_s2_p2_d1",
];

struct Args {
    deadline_s: f64,
    csv: Option<String>,
    check: bool,
    corpus: bool,
    filter: Option<String>,
    heur: Vec<HeurMode>,
    max_configs: Option<usize>,
    rounds: Option<usize>,
    iters: Option<usize>,
    verbose: bool,
    layouts: Vec<CudnnLayout>,
}

fn parse_args() -> Res<Args> {
    let mut a = Args {
        deadline_s: 280.0,
        csv: None,
        check: true,
        corpus: true,
        filter: None,
        heur: CudnnTiming::default().heur_modes,
        max_configs: None,
        rounds: None,
        iters: None,
        verbose: false,
        layouts: vec![CudnnLayout::ChannelsLast, CudnnLayout::ChannelsFirst],
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--deadline-s" => a.deadline_s = val()?.parse()?,
            "--csv" => a.csv = Some(val()?),
            "--no-check" => a.check = false,
            "--no-corpus" => a.corpus = false,
            "--filter" => a.filter = Some(val()?),
            "--max-configs" => a.max_configs = Some(val()?.parse()?),
            "--rounds" => a.rounds = Some(val()?.parse()?),
            "--iters" => a.iters = Some(val()?.parse()?),
            "--verbose" => a.verbose = true,
            "--layouts" => {
                a.layouts = val()?
                    .split(',')
                    .map(|m| match m {
                        "nhwc" => Ok(CudnnLayout::ChannelsLast),
                        "nchw" => Ok(CudnnLayout::ChannelsFirst),
                        _ => Err(format!("unknown layout {m:?}")),
                    })
                    .collect::<Result<_, _>>()?
            }
            "--heur" => {
                a.heur = val()?
                    .split(',')
                    .map(|m| match m {
                        "A" => Ok(HeurMode::A),
                        "B" => Ok(HeurMode::B),
                        "FALLBACK" => Ok(HeurMode::Fallback),
                        _ => Err(format!("unknown heuristic mode {m:?}")),
                    })
                    .collect::<Result<_, _>>()?
            }
            _ => return Err(format!("unknown argument {arg:?}").into()),
        }
    }
    Ok(a)
}

fn main() {
    if let Err(e) = run() {
        println!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Res<()> {
    let args = parse_args()?;
    let t0 = Instant::now();
    println!(
        "LD_LIBRARY_PATH={}",
        std::env::var("LD_LIBRARY_PATH").unwrap_or_default()
    );
    let version = CudnnBaseline::version()?;
    println!(
        "cuDNN {} ({version})",
        CudnnBaseline::version_string(version)
    );
    let ctx = CudaContext::new(0)?;
    println!("device: {}", ctx.name()?);
    let stream = ctx.new_stream()?;
    let mut cudnn = CudnnBaseline::new(stream.clone())?;

    if args.check {
        check_all(&mut cudnn, &stream, &args)?;
    }
    if args.corpus {
        corpus(&mut cudnn, &stream, &args, version, t0)?;
    }
    println!("total {:.1} s", t0.elapsed().as_secs_f64());
    Ok(())
}

fn upload(stream: &Arc<CudaStream>, t: &HostTensor) -> Res<CudaSlice<u8>> {
    Ok(stream.clone_htod(&t.to_bytes())?)
}

/// (outer, channels, spatial volume) of a tensor: the gconv layout is channels last,
/// `outer, volume, channels`.
fn cl_shape(p: &Problem, role: TensorRole) -> (usize, usize, usize) {
    let (o, c, v) = match role {
        TensorRole::X => (p.n, p.c, p.input_volume()),
        TensorRole::W => (p.k, p.cpg(), p.filter_volume()),
        TensorRole::Y => (p.n, p.k, p.output_volume()),
    };
    (o as usize, c as usize, v as usize)
}

/// Reorders elements of `esz` bytes between channels last and channels first.
fn permute(b: &[u8], esz: usize, shape: (usize, usize, usize), to_cf: bool) -> Vec<u8> {
    let (outer, ch, vol) = shape;
    let mut out = vec![0u8; b.len()];
    for o in 0..outer {
        for s in 0..vol {
            for c in 0..ch {
                let cl = ((o * vol + s) * ch + c) * esz;
                let cf = ((o * ch + c) * vol + s) * esz;
                let (src, dst) = if to_cf { (cl, cf) } else { (cf, cl) };
                out[dst..dst + esz].copy_from_slice(&b[src..src + esz]);
            }
        }
    }
    out
}

fn notes(r: &CudnnEngineResult) -> String {
    let mut v: Vec<&str> = r
        .numerical_notes
        .iter()
        .chain(r.behavior_notes.iter())
        .map(|s| s.as_str())
        .collect();
    v.sort_unstable();
    v.join(",")
}

fn print_rows(rows: &[CudnnEngineResult]) {
    for r in rows {
        let src: Vec<&str> = r.sources.iter().map(|m| m.token()).collect();
        println!(
            "    {:<60} {:>10} {:>7} ws={:<10} fin={:>7.1}ms src={} notes={} {}",
            r.name,
            r.median_ms.map_or("-".to_string(), |m| format!("{m:.4}")),
            r.method.map_or("-", |m| m.token()),
            r.workspace_bytes.map_or("-".to_string(), |w| w.to_string()),
            r.finalize_ms,
            src.join("+"),
            notes(r),
            if r.status == EngineStatus::Ok {
                String::new()
            } else {
                r.status.to_string()
            },
        );
    }
}

fn check_all(cudnn: &mut CudnnBaseline, stream: &Arc<CudaStream>, args: &Args) -> Res<()> {
    println!("== correctness: every finalized engine configuration vs the f64 CPU reference");
    let opts = CudnnTiming {
        warmup: 1,
        rounds: 2,
        iters: 2,
        heur_modes: args.heur.clone(),
        keep_plan_json: true,
        layouts: vec![CudnnLayout::ChannelsLast, CudnnLayout::ChannelsFirst],
        ..CudnnTiming::default()
    };
    let (mut engines, mut bad, mut problems_ok) = (0usize, 0usize, 0usize);
    for (i, key) in CHECKS.iter().enumerate() {
        let p: Problem = key.parse()?;
        let ([r0, r1], ro) = p.roles();
        let h0 = HostTensor::random_for(&p, r0, 1);
        let h1 = HostTensor::random_for(&p, r1, 1);
        let reference = gconv_reference::reference_tensors(&p, &h0, &h1)?;
        let d0 = upload(stream, &h0)?;
        let d1 = upload(stream, &h1)?;
        // Channels-first copies of the inputs for the NCHW plans.
        let esz = p.dtype.size_bytes() as usize;
        let d0f = stream.clone_htod(&permute(&h0.to_bytes(), esz, cl_shape(&p, r0), true))?;
        let d1f = stream.clone_htod(&permute(&h1.to_bytes(), esz, cl_shape(&p, r1), true))?;
        let out_bytes = (p.elements(ro) * p.dtype.size_bytes()) as usize;
        let mut out = stream.alloc_zeros::<u8>(out_bytes)?;
        let rows = match cudnn.time_all_slices(&p, &d0, &d1, &mut out, &opts) {
            Ok(r) => r,
            Err(e) => {
                println!("check {key}: ERROR {e}");
                continue;
            }
        };
        // TF32 tensor-core engines round f32 inputs to 10 mantissa bits: judge f32 with the
        // bf16 tolerance, and say so.
        let tol_dtype = if p.dtype == DType::F32 {
            DType::Bf16
        } else {
            p.dtype
        };
        let tol = Tolerance::for_dtype(tol_dtype, p.reduction_length());
        let names = cudnn.plan_names(&p);
        let mut failures = Vec::new();
        let mut worst: f64 = 0.0;
        for name in &names {
            // Poison the output (all-ones bytes are NaN in every dtype) so that an engine
            // that writes nothing fails.
            stream.memcpy_htod(&vec![0xFFu8; out_bytes], &mut out)?;
            let cf = name.starts_with("cudnn:nchw:");
            let (i0, i1) = if cf { (&d0f, &d1f) } else { (&d0, &d1) };
            cudnn.execute_named_slices(&p, name, i0, i1, &mut out)?;
            let mut bytes = stream.clone_dtoh(&out)?;
            if cf {
                bytes = permute(&bytes, esz, cl_shape(&p, ro), false);
            }
            let got = HostTensor::from_bytes(p.dtype, &bytes)
                .ok_or("output length is not a multiple of the element size")?;
            let c = compare(&got, &reference, tol);
            worst = worst.max(c.max_rel_err);
            if !c.passed() {
                failures.push(format!(
                    "{name}: {} of {} wrong, max abs {:.3e}, max rel {:.3e}",
                    c.failures, c.count, c.max_abs_err, c.max_rel_err
                ));
            }
        }
        // The provider's verification entry point: the fastest channels-last plan.
        stream.memcpy_htod(&vec![0xFFu8; out_bytes], &mut out)?;
        match cudnn.execute_best_slices(&p, &d0, &d1, &mut out, &opts) {
            Ok(best_name) => {
                let got = HostTensor::from_bytes(p.dtype, &stream.clone_dtoh(&out)?)
                    .ok_or("output length is not a multiple of the element size")?;
                let c = compare(&got, &reference, tol);
                if !c.passed() {
                    failures.push(format!(
                        "execute_best ({best_name}): {} of {} wrong, max rel {:.3e}",
                        c.failures, c.count, c.max_rel_err
                    ));
                }
            }
            Err(e) => failures.push(format!("execute_best: {e}")),
        }
        engines += names.len();
        bad += failures.len();
        if failures.is_empty() && !names.is_empty() {
            problems_ok += 1;
        }
        let mut by_status: BTreeMap<String, usize> = BTreeMap::new();
        for r in &rows {
            *by_status.entry(r.status.token().to_string()).or_default() += 1;
        }
        println!(
            "check {key}: {} configs {:?}; {} ran, {} correct (max rel err {:.2e}{}); best {} {:.4} ms",
            rows.len(),
            by_status,
            names.len(),
            names.len() - failures.len(),
            worst,
            if p.dtype == DType::F32 { ", bf16 tolerance for TF32" } else { "" },
            rows[0].name,
            rows[0].median_ms.unwrap_or(f64::NAN),
        );
        for f in &failures {
            println!("  INCORRECT {f}");
        }
        if i == 0 || i == 5 {
            print_rows(&rows);
            if i == 0 {
                if let Some(j) = &rows[0].plan_json {
                    let head: String = j.chars().take(400).collect();
                    println!("  plan JSON of the best ({} bytes): {head}...", j.len());
                }
            }
        } else {
            // Every failure with its status, for diagnosis.
            for r in rows.iter().filter(|r| {
                !matches!(
                    r.status,
                    EngineStatus::Ok | EngineStatus::FinalizeFailed { .. }
                )
            }) {
                println!("    {} : {}", r.name, r.status);
            }
        }
    }
    println!(
        "correctness: {problems_ok}/{} problems fully correct, {} of {engines} engine runs correct",
        CHECKS.len(),
        engines - bad
    );
    Ok(())
}

fn geomean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

fn corpus(
    cudnn: &mut CudnnBaseline,
    stream: &Arc<CudaStream>,
    args: &Args,
    version: usize,
    t0: Instant,
) -> Res<()> {
    println!(
        "== timing: corpus keys, fastest engine configuration per layout (heuristics {:?}, layouts {:?}), CUDA-graph replay, median of rounds",
        args.heur, args.layouts
    );
    let mut problems = Vec::new();
    for &(layer, key, ms, layout) in CORPUS {
        if args
            .filter
            .as_ref()
            .is_some_and(|f| !key.contains(f.as_str()))
        {
            continue;
        }
        let p: Problem = key.parse()?;
        problems.push((layer, p, ms, layout));
    }
    // One buffer per runner slot, as large as the largest key needs, filled once.
    let mut sizes = [0u64; 3];
    for (_, p, _, _) in &problems {
        let ([r0, r1], ro) = p.roles();
        for (s, r) in sizes.iter_mut().zip([r0, r1, ro]) {
            *s = (*s).max(p.elements(r) * p.dtype.size_bytes());
        }
    }
    let fill = |bytes: u64, seed: u64| -> Res<CudaSlice<u8>> {
        let t = HostTensor::random(DType::Bf16, (bytes / 2) as usize, seed);
        upload(stream, &t)
    };
    let b0 = fill(sizes[0].max(16), 11)?;
    let b1 = fill(sizes[1].max(16), 12)?;
    let mut bo = stream.alloc_zeros::<u8>(sizes[2].max(16) as usize)?;
    println!(
        "buffers: {:.1} / {:.1} / {:.1} MiB",
        sizes[0] as f64 / 1048576.0,
        sizes[1] as f64 / 1048576.0,
        sizes[2] as f64 / 1048576.0
    );
    let mut opts = CudnnTiming {
        heur_modes: args.heur.clone(),
        max_configs: args.max_configs,
        layouts: args.layouts.clone(),
        ..CudnnTiming::default()
    };
    if let Some(r) = args.rounds {
        opts.rounds = r;
    }
    if let Some(i) = args.iters {
        opts.iters = i;
    }
    let mut csv = match &args.csv {
        Some(path) => {
            let mut f = std::fs::File::create(path)?;
            writeln!(
                f,
                "problem,layer,cudnn_version,nhwc_engine,nhwc_ms,nchw_engine,nchw_ms,best_layout,best_ms,method,workspace_bytes,tflops,gbps,roofline_frac_nhwc,roofline_frac_best,corpus_ms,corpus_layout,ratio_best,ratio_nhwc,configs_ok,configs_tried,runtime_compiled,notes,finalize_ms_total,key_s"
            )?;
            Some(f)
        }
        None => None,
    };
    let dev = DeviceSpec::H200;
    #[derive(Default)]
    struct Acc {
        ratio_best: Vec<f64>,
        ratio_nhwc: Vec<f64>,
        ratio_like: Vec<f64>,
        frac_nhwc: Vec<f64>,
        frac_best: Vec<f64>,
        frac_corpus: Vec<f64>,
    }
    let mut acc: BTreeMap<Direction, Acc> = BTreeMap::new();
    let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
    let mut methods: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut done, mut rtc_best) = (0usize, 0usize);
    println!(
        "{:<62} {:>8} {:>8} {:>8} {:>4} {:>6} {:>6} {:>6} {:>7}  best channels-last configuration",
        "problem", "nhwc_ms", "nchw_ms", "corpus", "lay", "r_best", "r_nhwc", "roof", "ok/all"
    );
    for (layer, p, corpus_ms, corpus_layout) in &problems {
        if t0.elapsed().as_secs_f64() > args.deadline_s {
            println!("{:<62} not reached (deadline)", p.to_string());
            continue;
        }
        let tk = Instant::now();
        let rows = match cudnn.time_all_slices(p, &b0, &b1, &mut bo, &opts) {
            Ok(r) => r,
            Err(e) => {
                println!("{:<62} ERROR {e}", p.to_string());
                continue;
            }
        };
        let key_s = tk.elapsed().as_secs_f64();
        let best_of = |l: CudnnLayout| {
            rows.iter()
                .find(|r| r.layout == l && r.status == EngineStatus::Ok)
        };
        let nhwc = best_of(CudnnLayout::ChannelsLast);
        let nchw = best_of(CudnnLayout::ChannelsFirst);
        let best = &rows[0];
        let ms_of = |r: Option<&CudnnEngineResult>| r.and_then(|r| r.median_ms).unwrap_or(f64::NAN);
        let (ms_nhwc, ms_nchw, ms_best) = (ms_of(nhwc), ms_of(nchw), ms_of(Some(best)));
        let ok = rows.iter().filter(|r| r.status == EngineStatus::Ok).count();
        for r in &rows {
            *statuses.entry(r.status.token().to_string()).or_default() += 1;
            if let Some(m) = r.method {
                *methods.entry(m.token()).or_default() += 1;
            }
        }
        let fin: f64 = rows.iter().map(|r| r.finalize_ms).sum();
        let ratio_best = ms_best / corpus_ms;
        let ratio_nhwc = ms_nhwc / corpus_ms;
        let like = if *corpus_layout == "nchw" {
            ms_nchw
        } else {
            ms_nhwc
        };
        let frac_nhwc = p.roofline_fraction(&dev, ms_nhwc * 1e-3);
        let frac_best = p.roofline_fraction(&dev, ms_best * 1e-3);
        let a = acc.entry(p.direction).or_default();
        if ratio_best.is_finite() {
            a.ratio_best.push(ratio_best);
            a.frac_best.push(frac_best);
        }
        if ratio_nhwc.is_finite() {
            a.ratio_nhwc.push(ratio_nhwc);
            a.frac_nhwc.push(frac_nhwc);
        }
        if like.is_finite() {
            a.ratio_like.push(like / corpus_ms);
        }
        a.frac_corpus
            .push(p.roofline_fraction(&dev, corpus_ms * 1e-3));
        done += 1;
        let shown = nhwc.unwrap_or(best);
        if shown.is_runtime_compiled() {
            rtc_best += 1;
        }
        println!(
            "{:<62} {:>8.4} {:>8.4} {:>8.4} {:>4} {:>6.2} {:>6.2} {:>6.3} {:>3}/{:<3}  {} [{}] ws={} fin={:.0}ms {:.1}s",
            p.to_string(),
            ms_nhwc,
            ms_nchw,
            corpus_ms,
            corpus_layout,
            ratio_best,
            ratio_nhwc,
            frac_nhwc,
            ok,
            rows.len(),
            shown.name,
            notes(shown),
            shown.workspace_bytes.unwrap_or(0),
            fin,
            key_s
        );
        if args.verbose {
            print_rows(&rows);
        }
        if let Some(f) = csv.as_mut() {
            let secs = ms_nhwc * 1e-3;
            writeln!(
                f,
                "{},{},{},{},{:.5},{},{:.5},{},{:.5},{},{},{:.2},{:.0},{:.4},{:.4},{},{},{:.3},{:.3},{},{},{},{},{:.0},{:.2}",
                p,
                layer,
                CudnnBaseline::version_string(version),
                nhwc.map_or("-", |r| r.name.as_str()),
                ms_nhwc,
                nchw.map_or("-", |r| r.name.as_str()),
                ms_nchw,
                best.layout.token(),
                ms_best,
                shown.method.map_or("-", |m| m.token()),
                shown.workspace_bytes.unwrap_or(0),
                p.flops() / secs / 1e12,
                p.min_bytes() / secs / 1e9,
                frac_nhwc,
                frac_best,
                corpus_ms,
                corpus_layout,
                ratio_best,
                ratio_nhwc,
                ok,
                rows.len(),
                shown.is_runtime_compiled(),
                notes(shown).replace(',', ";"),
                fin,
                key_s
            )?;
        }
    }
    println!(
        "== summary ({done}/{} keys timed, cuDNN {}); ratio = ours / corpus cudnn_graph_ms (<1: ours faster)",
        problems.len(),
        CudnnBaseline::version_string(version)
    );
    println!("  r_best: our best of the timed layouts vs the corpus (best of NHWC and NCHW)");
    println!("  r_like: our time in the corpus's winning layout vs the corpus");
    println!("  r_nhwc: our channels-last (gconv layout, zero-copy) time vs the corpus");
    for (d, a) in &acc {
        println!(
            "  {:<6} n={:<3} geomean r_best {:.3} r_like {:.3} r_nhwc {:.3} | roofline geomean: ours nhwc {:.3}, ours best {:.3}, corpus {:.3}",
            d.token(),
            a.frac_corpus.len(),
            geomean(&a.ratio_best),
            geomean(&a.ratio_like),
            geomean(&a.ratio_nhwc),
            geomean(&a.frac_nhwc),
            geomean(&a.frac_best),
            geomean(&a.frac_corpus)
        );
    }
    println!("  configuration statuses: {statuses:?}; timing methods: {methods:?}");
    println!("  best channels-last configuration runtime-compiled on {rtc_best}/{done} keys");
    Ok(())
}
