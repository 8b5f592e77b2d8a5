/* roofline/version.h — roofline's version, for code that builds against it: compare
 * RF_VERSION_NUMBER at compile time, rf_version() (ctx.h) for the library actually loaded.
 * CMakeLists.txt reads the project's version from these three lines. */
#ifndef ROOFLINE_VERSION_H
#define ROOFLINE_VERSION_H

#define RF_VERSION_MAJOR 0
#define RF_VERSION_MINOR 1
#define RF_VERSION_PATCH 0

/** MAJOR·10000 + MINOR·100 + PATCH (0.1.0 is 100). */
#define RF_VERSION_NUMBER (RF_VERSION_MAJOR * 10000 + RF_VERSION_MINOR * 100 + RF_VERSION_PATCH)

#endif
