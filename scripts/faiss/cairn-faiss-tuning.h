// Cairn: faiss settings for how Cairn searches, force-included into faiss-node's sources by
// deps/faiss/CMakeLists.txt (see scripts/faiss/), so they hold from the moment the addon loads.
#pragma once

#include <faiss/utils/distances.h>

namespace cairn_faiss_tuning {
// A flat index answers fewer queries than this threshold (20 by default) with faiss's own loop, which a faiss built
// for generic x86-64 (Debian's) runs without SIMD; from it on, with BLAS, whose kernels OpenBLAS picks for the CPU at
// run time. Cairn searches one query at a time: with BLAS, an exact search of 51,293 vectors of 101 dimensions takes
// 1.1-1.9 ms instead of 3.2-3.9 ms on the 2-core benchmark machine, with the same labels (scores within 2e-6).
inline const bool blas_for_single_queries = (faiss::distance_compute_blas_threshold = 1, true);
}  // namespace cairn_faiss_tuning
