# embed.cmake — turn the binary file IN into a C source OUT defining
#   const unsigned char rf__demo_model[]; const size_t rf__demo_model_size;
# (the built-in demo model, data/resnet18.onnx). Run with cmake -DIN=... -DOUT=... -P embed.cmake.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR size "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" body "${body}")
file(WRITE ${OUT} "/* generated from ${IN} by cmake/embed.cmake; do not edit */\n#include <stddef.h>\n"
  "const unsigned char rf__demo_model[] = {\n${body}\n};\nconst size_t rf__demo_model_size = ${size};\n")
