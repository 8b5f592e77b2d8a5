/* empty.c — the one source of the shared library target (roofline_shared), which is the
 * static library linked whole; CMake needs a source to make a target of it. */
typedef int rf__empty_translation_unit;
