/* linkdest.c: the link destination rule (linkdest.h).
 *
 * An allow-list on decoded text, not a deny-list on the text as written:
 * a title of `&#106;avascript:alert(1)` placed in `[t]({{scenario.title}})`
 * once passed a check for "javascript:" and came out in the Markdown as an
 * entity that a wiki decoded into a live javascript: link. */
#include "linkdest.h"

#include <stdint.h>
#include <string.h>

/* Rounds of decoding before giving up: each one that changes anything
 * shortens the text, so only a deliberately nested encoding gets here. */
#define S_MAX_ROUNDS 16

/* The HTML named character references that stand for ASCII characters
 * (WHATWG's table; names are case-sensitive, and the few legacy ones work
 * without ';').  Others decode to non-ASCII text, which cannot make or
 * hide a scheme. */
static const struct { const char *name; const char *text; } S_named[] = {
	{ "Tab;", "\t" }, { "NewLine;", "\n" }, { "excl;", "!" }, { "quot;", "\"" },
	{ "QUOT;", "\"" }, { "quot", "\"" }, { "QUOT", "\"" }, { "num;", "#" },
	{ "dollar;", "$" }, { "percnt;", "%" }, { "amp;", "&" }, { "AMP;", "&" },
	{ "amp", "&" }, { "AMP", "&" }, { "apos;", "'" }, { "lpar;", "(" },
	{ "rpar;", ")" }, { "ast;", "*" }, { "midast;", "*" }, { "plus;", "+" },
	{ "comma;", "," }, { "period;", "." }, { "sol;", "/" }, { "colon;", ":" },
	{ "semi;", ";" }, { "lt;", "<" }, { "LT;", "<" }, { "lt", "<" }, { "LT", "<" },
	{ "equals;", "=" }, { "gt;", ">" }, { "GT;", ">" }, { "gt", ">" }, { "GT", ">" },
	{ "quest;", "?" }, { "commat;", "@" }, { "lsqb;", "[" }, { "lbrack;", "[" },
	{ "bsol;", "\\" }, { "rsqb;", "]" }, { "rbrack;", "]" }, { "Hat;", "^" },
	{ "lowbar;", "_" }, { "UnderBar;", "_" }, { "grave;", "`" },
	{ "DiacriticalGrave;", "`" }, { "lcub;", "{" }, { "lbrace;", "{" },
	{ "verbar;", "|" }, { "vert;", "|" }, { "VerticalLine;", "|" },
	{ "rcub;", "}" }, { "rbrace;", "}" }, { "fjlig;", "fj" },
};

static int S_hex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void S_put_utf8(tb_buf *out, uint32_t cp)
{
	if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		cp = 0xFFFD;
	char b[4];
	if (cp < 0x80) {
		tb_buf_putc(out, (char)cp);
		return;
	}
	if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		tb_buf_put(out, b, 2);
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		tb_buf_put(out, b, 3);
	} else {
		b[0] = (char)(0xF0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		tb_buf_put(out, b, 4);
	}
}

/* A character reference at s[0] == '&': its length (0 if none), its text
 * appended to out. */
static size_t S_reference(const char *s, size_t n, tb_buf *out)
{
	if (n >= 3 && s[1] == '#') {
		bool hex = s[2] == 'x' || s[2] == 'X';
		size_t i = hex ? 3 : 2, first = i;
		uint32_t cp = 0;
		for (; i < n; i++) {
			int v = hex ? S_hex((unsigned char)s[i]) : (s[i] >= '0' && s[i] <= '9' ? s[i] - '0' : -1);
			if (v < 0)
				break;
			cp = cp > 0x10FFFF ? cp : cp * (hex ? 16u : 10u) + (uint32_t)v;
		}
		if (i == first)
			return 0;
		if (i < n && s[i] == ';')
			i++;
		S_put_utf8(out, cp);
		return i;
	}
	size_t best = 0;
	const char *text = NULL;
	for (size_t k = 0; k < sizeof S_named / sizeof S_named[0]; k++) {
		size_t l = strlen(S_named[k].name);
		if (l + 1 <= n && l > best && memcmp(s + 1, S_named[k].name, l) == 0) {
			best = l;
			text = S_named[k].text;
		}
	}
	if (!text)
		return 0;
	tb_buf_puts(out, text);
	return best + 1;
}

/* One round: references, then percent-escapes, then whitespace and
 * controls out and letters folded.  True when anything changed. */
static bool S_round(tb_buf *t)
{
	tb_buf a, b;
	tb_buf_init(&a);
	tb_buf_init(&b);
	for (size_t i = 0; i < t->len;) {
		size_t k = t->ptr[i] == '&' ? S_reference(t->ptr + i, t->len - i, &a) : 0;
		if (k) {
			i += k;
		} else {
			tb_buf_putc(&a, t->ptr[i]);
			i++;
		}
	}
	for (size_t i = 0; i < a.len; i++) {
		int hi, lo;
		if (a.ptr[i] == '%' && i + 2 < a.len &&
		    (hi = S_hex((unsigned char)a.ptr[i + 1])) >= 0 &&
		    (lo = S_hex((unsigned char)a.ptr[i + 2])) >= 0) {
			tb_buf_putc(&b, (char)(hi * 16 + lo));
			i += 2;
		} else {
			tb_buf_putc(&b, a.ptr[i]);
		}
	}
	tb_buf_truncate(&a, 0);
	for (size_t i = 0; i < b.len; i++) {
		unsigned char c = (unsigned char)b.ptr[i];
		if (c <= 0x20 || c == 0x7f)
			continue;
		tb_buf_putc(&a, (char)(c >= 'A' && c <= 'Z' ? c + 32 : c));
	}
	bool changed = a.len != t->len || memcmp(a.ptr, t->ptr, a.len) != 0;
	tb_buf_release(t);
	*t = a;
	tb_buf_release(&b);
	return changed;
}

bool tb_linkdest_allowed(const char *dest, char *scheme, size_t cap)
{
	static const char *const ok[] = { "http", "https", "mailto" };
	if (cap)
		scheme[0] = '\0';
	tb_buf t;
	tb_buf_init(&t);
	tb_buf_puts(&t, dest ? dest : "");
	int rounds = 0;
	while (S_round(&t))
		if (++rounds == S_MAX_ROUNDS) {
			tb_buf_release(&t);
			return false;
		}
	size_t end = strcspn(t.ptr, ":/?#");
	bool allowed = true;
	if (t.ptr[end] == ':') {
		allowed = false;
		for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++)
			if (strlen(ok[k]) == end && memcmp(t.ptr, ok[k], end) == 0)
				allowed = true;
		if (!allowed && cap) {
			size_t m = end < cap - 1 ? end : cap - 1;
			/* cut between characters */
			while (m > 0 && m < end && ((unsigned char)t.ptr[m] & 0xC0) == 0x80)
				m--;
			memcpy(scheme, t.ptr, m);
			scheme[m] = '\0';
		}
	}
	tb_buf_release(&t);
	return allowed;
}

/* The characters a value keeps as they are: unreserved, and the delimiters
 * that give a URL its shape.  Not '%' or '&' (no escape or reference of
 * its own), nor parentheses, brackets, quotes, '<', '>', '\', spaces. */
static bool S_keep(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("-._~/:?#@!$*+,;=", c));
}

static void S_encode(tb_buf *out, const char *v)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (S_keep(*p)) {
			tb_buf_putc(out, (char)*p);
		} else {
			tb_buf_putc(out, '%');
			tb_buf_putc(out, hex[*p >> 4]);
			tb_buf_putc(out, hex[*p & 15]);
		}
	}
}

void tb_linkdest_put_value(tb_buf *out, const char *before, const char *value)
{
	tb_buf enc, probe;
	tb_buf_init(&enc);
	tb_buf_init(&probe);
	S_encode(&enc, value ? value : "");
	tb_buf_puts(&probe, before ? before : "");
	tb_buf_put(&probe, enc.ptr, enc.len);
	char sch[8];
	if (!tb_linkdest_allowed(probe.ptr, sch, sizeof sch) &&
	    strpbrk(before ? before : "", ":/?#") == NULL) {
		/* RFC 3986, 4.2: a relative path whose first segment holds a
		 * colon is written "./" first */
		tb_buf_puts(out, "./");
	}
	tb_buf_put(out, enc.ptr, enc.len);
	tb_buf_release(&enc);
	tb_buf_release(&probe);
}
