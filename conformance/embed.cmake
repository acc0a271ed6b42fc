# SPDX-License-Identifier: Apache-2.0
# cmake -DIN=FILE -DOUT=HEADER -DNAME=SYMBOL -P embed.cmake
# Writes HEADER with FILE's bytes as `static const unsigned char SYMBOL[]`
# and its length as `SYMBOL_len` (no NUL added): the report page template
# compiled into scrollcase-conform, by both builds of the runner.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" body "${body}")
get_filename_component(from "${IN}" NAME)
file(WRITE "${OUT}.tmp"
  "/* generated from ${from} by embed.cmake: do not edit */\n"
  "static const unsigned char ${NAME}[] = {\n${body}\n};\n"
  "static const size_t ${NAME}_len = ${len};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
