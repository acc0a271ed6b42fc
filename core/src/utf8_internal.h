/* SPDX-License-Identifier: Apache-2.0 */
/*
 * utf8_internal.h — private to libscrollcase: measure one UTF-8 sequence;
 * make a bounded message one line of text.
 *
 * Shared by the JSON reader (which needs the byte offset of a bad sequence)
 * and sc_utf8_valid.  RFC 3629: no overlong forms, no UTF-16 surrogates
 * (U+D800..U+DFFF), nothing above U+10FFFF.
 */
#ifndef SCROLLCASE_UTF8_INTERNAL_H
#define SCROLLCASE_UTF8_INTERNAL_H

#include <stddef.h>

/*
 * Length (1..4) of the well-formed sequence that starts at s, looking at no
 * more than avail bytes; 0 if the bytes there are not a well-formed sequence
 * (avail == 0 included).
 */
static inline size_t sc_utf8_sequence_length(const unsigned char *s,
                                             size_t avail)
{
    if (avail == 0)
        return 0;
    unsigned char b0 = s[0];
    if (b0 < 0x80)
        return 1;
    /* The allowed range of the second byte depends on the first; the
     * later bytes are always plain continuation bytes 80..BF. */
    unsigned char lo = 0x80, hi = 0xBF;
    size_t n;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        n = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        n = 3;
        if (b0 == 0xE0)
            lo = 0xA0; /* below is overlong */
        else if (b0 == 0xED)
            hi = 0x9F; /* above is a surrogate */
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        n = 4;
        if (b0 == 0xF0)
            lo = 0x90; /* below is overlong */
        else if (b0 == 0xF4)
            hi = 0x8F; /* above is beyond U+10FFFF */
    } else {
        return 0; /* continuation byte, C0/C1 overlong lead, F5..FF */
    }
    if (avail < n)
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

/*
 * Make s (NUL-terminated, written by a bounded copy such as vsnprintf into a
 * fixed buffer) one line of text: every control character and DEL becomes
 * '?', and a multi-byte character that the bound cut short at the end is
 * dropped whole.  So a message made of valid UTF-8 stays valid UTF-8 however
 * it was cut, and can be written as a JSON string (error.c, audit.c).
 */
static inline void sc_utf8_one_line(char *s)
{
    size_t len = 0;
    for (; s[len] != '\0'; len++)
        if ((unsigned char)s[len] < 0x20 || s[len] == 0x7f)
            s[len] = '?';
    /* the last lead byte, at most three continuation bytes from the end */
    size_t i = len;
    while (i > 0 && len - i < 3 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
        i--;
    if (i > 0 && (unsigned char)s[i - 1] >= 0xC0 &&
        sc_utf8_sequence_length((const unsigned char *)s + i - 1, len - i + 1) == 0)
        s[i - 1] = '\0'; /* a character cut short (or not one at all): dropped */
}

#endif
