// comet/compiled/mpi.hpp — the MPI transport (needs MPI and Boost.MPI: link comet::compiled_mpi), and, with
// COMET_COMPILED, the kernels included before this header declared as instantiated on it in
// the library, so that this unit does not instantiate them (docs/compiled.md):
//
//   #include <comet/kernels/echo.hpp>
//   #include <comet/compiled/mpi.hpp>      // instead of comet/transport/mpi.hpp
//
// Header-only (no COMET_COMPILED) this is comet/transport/mpi.hpp and nothing more, so the same
// code builds both ways.
//
// Why a header of its own, above the kernels and the transports, and not the declarations in
// either: an explicit instantiation names the kernel and the complete transport type (the
// concept `transport` is checked on it), and a kernel header must not include a transport
// header nor a transport header a kernel one (every include points down, docs/layout.md). Only
// a header above both may name both. Why "the kernels included before": see
// comet/compiled/instances.hpp. A kernel included after this header is instantiated in the
// unit as header-only would (slower to compile, the same code); include this header again after
// it to declare it too — the header has no include guard for that reason, and declaring an
// instantiation twice is allowed. Decorated transports (tracing<threads::transport>, ...) and a
// user's own transports are instantiated in the unit as always: the templates stay defined.

#include <comet/core/compiled.hpp>
#include <comet/transport/mpi.hpp>

#if defined(COMET_COMPILED)
#define COMET_COMPILED_TRANSPORT ::comet::mpi::transport
#define COMET_COMPILED_INSTANCE(result, kernel, ...) \
    extern template result kernel<COMET_COMPILED_TRANSPORT>(COMET_COMPILED_TRANSPORT&, __VA_ARGS__);
#include <comet/compiled/instances.hpp>
#undef COMET_COMPILED_INSTANCE
#undef COMET_COMPILED_TRANSPORT
#endif
