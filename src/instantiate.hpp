// src/instantiate.hpp — the explicit instantiation definitions of the kernels whose headers the
// including source file included, on one transport: the library's side of
// comet/compiled/instances.hpp (the user's side is comet/compiled/<transport>.hpp).
//
// The CMake target compiling the source names the transport: COMET_COMPILED_TRANSPORT (its type)
// and COMET_SRC_TRANSPORT_HEADER (its umbrella header, a quoted name). The same four sources
// build the kernels on every shipped transport, each in its own library (CMakeLists.txt), and
// split the kernels in four units so that a build at -j2 uses both cores.
#pragma once

#include <comet/core/compiled.hpp>

#if !defined(COMET_COMPILED)
#error "src/: the compiled part is built with COMET_COMPILED defined"
#endif
#if !defined(COMET_COMPILED_TRANSPORT) || !defined(COMET_SRC_TRANSPORT_HEADER)
#error "src/: define COMET_COMPILED_TRANSPORT and COMET_SRC_TRANSPORT_HEADER"
#endif

#include COMET_SRC_TRANSPORT_HEADER

#define COMET_COMPILED_INSTANCE(result, kernel, ...) \
    template result kernel<COMET_COMPILED_TRANSPORT>(COMET_COMPILED_TRANSPORT&, __VA_ARGS__);
#include <comet/compiled/instances.hpp>
#undef COMET_COMPILED_INSTANCE
