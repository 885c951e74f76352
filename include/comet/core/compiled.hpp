// comet/core/compiled.hpp — the switch between header-only (the default) and the compiled part.
//
// Header-only, every function is defined in the headers and a translation unit that calls one
// compiles it. With COMET_COMPILED defined (linking the CMake target comet::compiled defines
// it), two things move into the library, compiled once (docs/compiled.md):
//   - the kernels on the shipped transports: comet/compiled/<transport>.hpp declares them as
//     explicit instantiations the library holds (`extern template`), so a unit calling
//     comet::kernels::echo on threads::transport does not instantiate echo;
//   - ordinary (non-template) functions whose bodies cost most to parse: their headers declare
//     them with COMET_DECL and include their definitions (the .ipp beside the header) only
//     header-only; the library compiles each .ipp once (src/).
// Why a macro and not two sets of headers: the headers stay complete, so header-only keeps
// working with nothing built, as Boost.Asio's separate compilation and nanobench's
// implementation switch do.
//
// A member function moved to an .ipp is declared COMET_DECL in its class too: header-only it is
// then inline from its first declaration, so a virtual one is no key function (whose class's
// vtable, and all it names, every unit including the header would otherwise emit).
//
// A function whose .ipp definition is [[gnu::noinline]] is declared in its header without
// COMET_DECL: GCC does not accept one declaration saying `inline` and another `noinline`.
#pragma once

#if defined(COMET_COMPILED)
/// Declares a function the library defines once (an .ipp compiled in src/).
#define COMET_DECL
#else
/// Declares a function defined in the headers (its .ipp, included at the header's end).
#define COMET_DECL inline
#endif
