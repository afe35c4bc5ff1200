/* linkdest.h: what a link or image destination in a report may be.
 *
 * A destination is allowed when its decoded text is a relative reference or
 * an http, https or mailto URL.  "Decoded" is what any renderer on the way
 * might undo, all of it, repeatedly until nothing changes: HTML character
 * references (numeric with or without ';', and every named one that stands
 * for an ASCII character, `&colon;` included), percent-escapes, then ASCII
 * whitespace and control characters removed (browsers drop a tab or a
 * newline inside a URL) and letters folded to lower case.  The scheme is
 * what precedes the first ':' when no '/', '?' or '#' comes before it.
 * So `&#106;avascript:`, `java&Tab;script:`, `%6Aavascript:` and
 * `JaVaScRiPt:` are all refused, and any renderer of the Markdown, however
 * many times it decodes, sees the same scheme we checked. */
#ifndef TB_LINKDEST_H
#define TB_LINKDEST_H

#include <stdbool.h>
#include <stddef.h>
#include "trainbudget/buf.h"

/* True when dest (NUL-terminated, as cmark holds it) may be a destination.
 * Otherwise false, with the decoded scheme (at most cap-1 bytes) in
 * scheme, or "" when the text would not decode in a few rounds. */
bool tb_linkdest_allowed(const char *dest, char *scheme, size_t cap);

/* Appends a value placed into a destination after `before` (the
 * destination so far): percent-encoded, so that it brings no character
 * reference, percent-escape, space, parenthesis or control character of its
 * own.  Where the value would supply the scheme (nothing in `before` ends
 * one) and its own scheme is not allowed, "./" goes first, so
 * `javascript:alert(1)` becomes the relative path
 * `./javascript:alert%281%29`. */
void tb_linkdest_put_value(tb_buf *out, const char *before, const char *value);

#endif
