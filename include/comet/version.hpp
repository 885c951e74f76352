// comet/version.hpp — comet's version, in this one place: CMakeLists.txt reads the three numbers
// from here for the package (find_package(comet 0.2)), and every report writes the string.
#pragma once

#define COMET_VERSION_MAJOR 0
#define COMET_VERSION_MINOR 2
#define COMET_VERSION_PATCH 0

#define COMET_DETAIL_STRINGIZE2(x) #x
#define COMET_DETAIL_STRINGIZE(x) COMET_DETAIL_STRINGIZE2(x)
/// "major.minor.patch", e.g. "0.2.0".
#define COMET_VERSION_STRING                                                                         \
    COMET_DETAIL_STRINGIZE(COMET_VERSION_MAJOR) "." COMET_DETAIL_STRINGIZE(COMET_VERSION_MINOR) "." \
        COMET_DETAIL_STRINGIZE(COMET_VERSION_PATCH)

namespace comet {
/// comet's version, "major.minor.patch".
inline constexpr const char* version = COMET_VERSION_STRING;
}  // namespace comet
