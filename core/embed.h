/* Embed a text file in the binary as a NUL-terminated string, so tools run
 * from any directory.  The path is relative to the repository root (where
 * make runs the compiler). */
#ifndef LBP_EMBED_H
#define LBP_EMBED_H
#define LBP_EMBED_TEXT(symbol, path)                                   \
    __asm__(".section .rodata\n"                                       \
            ".global " #symbol "\n"                                    \
            ".type " #symbol ", @object\n"                             \
            ".balign 16\n" #symbol ":\n"                               \
            ".incbin \"" path "\"\n"                                   \
            ".byte 0\n"                                                \
            ".previous\n");                                            \
    extern const char symbol[]
#endif
