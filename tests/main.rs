//! The integration tests: one test crate (one link of the library) with a module per
//! area, instead of one crate per file. Add a test file as `tests/NAME.rs` and a `mod NAME;`
//! line here; helpers shared between modules live in `tests/*_common/` and are used as
//! `crate::NAME_common`.

mod device_common;
mod mgk_common;
#[cfg(feature = "cuda")]
mod nvrtc_common;

mod algorithms_devices;
mod algorithms_paths;
mod algorithms_reduce_devices;
mod algorithms_sssp;
mod algorithms_triangles;
mod baked_kernels;
mod basekernel_cuda;
mod basekernel_expr;
mod basekernel_kernels;
mod basekernel_spec;
mod basekernel_spec_compiled;
mod basekernel_spec_limits;
mod basekernel_tables;
mod cli_algorithms;
mod cli_fglt;
mod cli_gram_tiles;
mod cli_info;
mod cli_motif;
mod cuda_gram;
mod cuda_nvrtc;
mod errors_report;
mod example_errors;
mod generate_models;
mod graph_petgraph;
mod graphblas_gpu;
mod graphblas_gpu_ewise;
mod graphblas_nvrtc;
mod graphlets_fglt;
mod graphlets_gpu;
mod io_cli;
mod io_fuzz;
mod io_readers;
mod kron_gpu;
mod matrix_methods;
mod matrix_ops;
mod matrix_places;
mod matrix_places_device;
mod matrix_places_methods;
mod mgk_backend;
mod mgk_data;
mod mgk_gpu_tuning;
mod mgk_lowrank;
mod mgk_numerics;
mod mgk_props;
mod mgk_reorder;
mod motif_gpu;
mod motif_nvrtc;
mod motif_search;
mod reorder_cli;
mod reorder_datasets;
mod reorder_permutation;
mod reorder_tiles;
mod rw;
mod rw_variants;
mod semirings_nvrtc;
