// Cairn: lets faiss-node 0.5.1 (written for faiss >= 1.7.4) compile against
// an older installed faiss, e.g. Debian 12's 1.7.3. Force-included into
// faiss-node's sources by deps/faiss/CMakeLists.txt (see scripts/faiss/).
#pragma once

#include <faiss/Index.h>

#if (FAISS_VERSION_MAJOR * 10000 + FAISS_VERSION_MINOR * 100 + FAISS_VERSION_PATCH) < 10704
namespace faiss {
// faiss 1.7.4 moved idx_t from faiss::Index to namespace faiss.
using idx_t = Index::idx_t;
}  // namespace faiss
#endif
