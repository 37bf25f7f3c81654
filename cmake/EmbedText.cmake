# Writes the text of IN as a C++ raw string literal into OUT.
file(READ ${IN} content)
file(WRITE ${OUT} "R\"DLC_EMBED(${content})DLC_EMBED\"\n")
