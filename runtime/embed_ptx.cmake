# cmake -DIN=kernels.ptx -DOUT=kernels_ptx.cpp -DSYMBOL=kName -P embed_ptx.cmake: the PTX as a C++
# string the runtime links (IN empty: an empty string, for a build without nvcc).
if(IN)
  file(READ "${IN}" ptx)
else()
  set(ptx "")
endif()
file(WRITE "${OUT}" "// Generated from ${IN} by runtime/embed_ptx.cmake.\nnamespace tvms::runtime {\nextern const char ${SYMBOL}[];\nconst char ${SYMBOL}[] = R\"tvmsptx(${ptx})tvmsptx\";\n}  // namespace tvms::runtime\n")
