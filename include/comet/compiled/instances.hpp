// comet/compiled/instances.hpp — the kernels the compiled part instantiates on each shipped
// transport, listed once: comet/compiled/<transport>.hpp reads this list to declare them
// (`extern template`), the library's sources (src/) to define them (`template`). Not a header
// to include by itself, and meant to be read more than once (no include guard).
//
// The includer (at global scope) defines COMET_COMPILED_INSTANCE(return type, kernel, parameters after the
// transport), and COMET_COMPILED_TRANSPORT, the transport type. Each kernel is listed only when
// its header was included before (each kernel header defines its COMET_KERNELS_... name): why
// not include every kernel here? Because then the unit that calls one kernel would parse all 19,
// which is most of what the compiled part saves it.
//
// A kernel added to the library is added here too, and to the list of sources in src/ that
// includes its header.

#if !defined(COMET_COMPILED_INSTANCE) || !defined(COMET_COMPILED_TRANSPORT)
#error "comet/compiled/instances.hpp: define COMET_COMPILED_INSTANCE and COMET_COMPILED_TRANSPORT first"
#endif

#if defined(COMET_KERNELS_ECHO)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::echo, const ::comet::kernels::echo_config&)
#endif
#if defined(COMET_KERNELS_LOGGP)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::loggp, const ::comet::kernels::loggp_config&)
#endif
#if defined(COMET_KERNELS_EXCHANGE)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::pairwise, const ::comet::kernels::exchange_config&)
#endif
#if defined(COMET_KERNELS_COLLECTIVES)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::broadcast, const ::comet::kernels::broadcast_config&)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::global_sum, const ::comet::kernels::global_sum_config&)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::barrier, const ::comet::kernels::barrier_config&)
#endif
#if defined(COMET_KERNELS_CONTENTION)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::contention, const ::comet::kernels::contention_config&)
#endif
#if defined(COMET_KERNELS_OVERLAP)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::overlap, const ::comet::kernels::overlap_config&)
#endif
#if defined(COMET_KERNELS_MATRIX_UPDATE_GUARD)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::update_guard, const ::comet::kernels::matrix_config&)
#endif
#if defined(COMET_KERNELS_MATRIX_SHIFT)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::shift_matrix, const ::comet::kernels::matrix_config&)
#endif
#if defined(COMET_KERNELS_MATRIX_TRANSPOSE)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::transpose, const ::comet::kernels::matrix_config&)
#endif
#if defined(COMET_KERNELS_MATRIX_BROADCAST)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::row_broadcast, const ::comet::kernels::matrix_config&)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::col_broadcast, const ::comet::kernels::matrix_config&)
#endif
#if defined(COMET_KERNELS_COMMTEST)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::commtest::commtest, const ::comet::kernels::commtest::commtest_config&)
#endif
#if defined(COMET_KERNELS_CLOCK_SYNC)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::clock_sync, const ::comet::kernels::clock_sync_config&)
#endif
#if defined(COMET_KERNELS_WINDOWED_COLLECTIVES)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::windowed_collectives, const ::comet::kernels::windowed_collectives_config&)
#endif
#if defined(COMET_KERNELS_NBC)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::nbc, const ::comet::kernels::nbc_config&)
#endif
#if defined(COMET_KERNELS_NIST_RING)
COMET_COMPILED_INSTANCE(::comet::kernels::nist::application_result, comet::kernels::nist::ring, const ::comet::kernels::nist::ring_config&)
#endif
#if defined(COMET_KERNELS_NIST_RC)
COMET_COMPILED_INSTANCE(::comet::kernels::nist::application_result, comet::kernels::nist::rc, const ::comet::kernels::nist::rc_config&)
#endif
#if defined(COMET_KERNELS_NIST_MESH)
COMET_COMPILED_INSTANCE(::comet::kernels::nist::application_result, comet::kernels::nist::mesh, const ::comet::kernels::nist::mesh_config&)
#endif
#if defined(COMET_KERNELS_NIST_STUDY)
COMET_COMPILED_INSTANCE(::comet::result_set, comet::kernels::nist::dilation_study, ::comet::kernels::nist::application,
                        const ::comet::kernels::nist::study_config&)
#endif
