/* roofline/export.h — RF_API, the mark of a public declaration. The library is compiled with
 * hidden visibility (CMakeLists.txt: C_VISIBILITY_PRESET hidden), so libroofline.so exports the
 * functions declared with RF_API in include/roofline and nothing else: no rf__ internals, no
 * protobuf-c code. tests/cli/symbols.sh checks the export list against these headers. */
#ifndef ROOFLINE_EXPORT_H
#define ROOFLINE_EXPORT_H

/** Put before every function declared in a public header: the symbol is exported from the shared
 *  library. Harmless for a program that includes the header (a declaration, not a definition). */
#if defined(__GNUC__) || defined(__clang__)
#define RF_API __attribute__((visibility("default")))
#else
#define RF_API
#endif

#endif
