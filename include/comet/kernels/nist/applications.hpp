// comet/kernels/nist/applications.hpp — the three synthetic applications of the NIST study
// (seed 003, section 3): the ring (high interdependencies), random communication (low) and the
// mesh (local), each with the seed's communication- and computation-intensive settings.
//
//   namespace nist = comet::kernels::nist;
//   nist::application_result r = nist::ring(t, nist::ring_setting(nist::setting::cm));
//   nist::application_result q = nist::rc(t, nist::rc_setting(nist::setting::cp));
//   nist::application_result m = nist::mesh(t, nist::mesh_setting(nist::setting::cm));   // P = N x N
#pragma once

#include <comet/kernels/nist/common.hpp>
#include <comet/kernels/nist/mesh.hpp>
#include <comet/kernels/nist/rc.hpp>
#include <comet/kernels/nist/ring.hpp>
