/* template_tag.c: the tag syntax (template_tag.h). */
#include "template_tag.h"

#include <string.h>

static bool S_is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

bool tb_tag_is_space(char c) { return c == ' ' || c == '\t'; }

/* Reads an identifier at s[*i] into dst (size cap); false when empty or too
 * long. */
static bool S_ident(const char *s, size_t n, size_t *i, char *dst, size_t cap)
{
	size_t st = *i;
	while (*i < n && S_is_ident(s[*i]))
		(*i)++;
	size_t len = *i - st;
	if (len == 0 || len >= cap)
		return false;
	memcpy(dst, s + st, len);
	dst[len] = '\0';
	return true;
}

static void S_skip_space(const char *s, size_t n, size_t *i)
{
	while (*i < n && tb_tag_is_space(s[*i]))
		(*i)++;
}

static bool S_word_is(const char *s, size_t n, size_t i, const char *w)
{
	size_t wl = strlen(w);
	return n - i >= wl && memcmp(s + i, w, wl) == 0 &&
	       (n - i == wl || !S_is_ident(s[i + wl]));
}

/* {{signoff ROLE, ROLE, ...}}: the roles the sign-off page has a
 * signature field for, kept as "A, B, C" in t->name.  A role is a few
 * words (any script) without Markdown's or the template's own marks; at
 * most TB_TAG_ROLES_MAX of them, none twice, each at most 40 bytes. */
#define TB_TAG_ROLES_MAX 8
#define TB_TAG_ROLE_MAX 40
static void S_signoff(const char *s, size_t n, size_t i, tb_tag *t)
{
	t->why = "expected the roles after 'signoff', separated by commas, as in "
	         "'{{signoff Requester, Reviewer, Approver}}'";
	if (i < n && !tb_tag_is_space(s[i]))
		return;
	size_t used = 0, nroles = 0;
	const char *role[TB_TAG_ROLES_MAX];
	size_t rlen[TB_TAG_ROLES_MAX];
	for (;;) {
		size_t a = i, b = i;
		while (b < n && s[b] != ',')
			b++;
		while (a < b && tb_tag_is_space(s[a]))
			a++;
		size_t e = b;
		while (e > a && tb_tag_is_space(s[e - 1]))
			e--;
		if (e == a) {
			if (nroles > 0 || b < n)
				t->why = "expected a role between the commas, as in "
				         "'{{signoff Requester, Reviewer, Approver}}'";
			return;
		}
		for (size_t k = a; k < e; k++) {
			unsigned char ch = (unsigned char)s[k];
			if (ch < 0x20 || ch == 0x7F || strchr("{}|[]<>*_`#\\", ch)) {
				t->why = "expected each role in words, without { } | [ ] < > * _ ` # or a "
				         "backslash, as in '{{signoff Requester, Finance lead, Approver}}'";
				return;
			}
		}
		if (e - a > TB_TAG_ROLE_MAX) {
			t->why = "expected each role at most 40 bytes long";
			return;
		}
		if (nroles == TB_TAG_ROLES_MAX) {
			t->why = "expected at most 8 roles (the sign-off page's signature fields)";
			return;
		}
		for (size_t r = 0; r < nroles; r++) {
			if (rlen[r] == e - a && memcmp(role[r], s + a, e - a) == 0) {
				t->why = "expected each role once (each signs in a field of its own)";
				return;
			}
		}
		role[nroles] = s + a;
		rlen[nroles++] = e - a;
		if (used + 2 + (e - a) + 1 > sizeof t->name) {
			t->why = "expected the roles at most 127 bytes long in all";
			return;
		}
		if (used) {
			memcpy(t->name + used, ", ", 2);
			used += 2;
		}
		memcpy(t->name + used, s + a, e - a);
		used += e - a;
		t->name[used] = '\0';
		if (b >= n)
			break;
		i = b + 1;
	}
	strcpy(t->directive, "signoff");
	t->kind = TB_TAG_DIRECTIVE;
	t->why = NULL;
}

void tb_tag_parse(const char *s, size_t n, tb_tag *t)
{
	memset(t, 0, sizeof *t);
	t->kind = TB_TAG_BAD;
	size_t i = 0;
	S_skip_space(s, n, &i);
	if (i < n && (s[i] == '#' || s[i] == '/')) {
		bool open = s[i] == '#';
		i++;
		bool is_if = S_word_is(s, n, i, "if");
		bool is_unless = S_word_is(s, n, i, "unless");
		if (!is_if && !is_unless) {
			t->why = open ? "expected '#if CONDITION' or '#unless CONDITION'"
			              : "expected '/if' or '/unless'";
			return;
		}
		i += is_if ? 2 : 6;
		if (open) {
			S_skip_space(s, n, &i);
			if (!S_ident(s, n, &i, t->name, sizeof t->name)) {
				t->why = "expected a condition name after '#if' or '#unless'";
				return;
			}
		}
		S_skip_space(s, n, &i);
		if (i != n) {
			t->why = open ? "expected '}}' after the condition name"
			              : "expected '}}' after '/if' or '/unless'";
			return;
		}
		t->kind = open ? (is_if ? TB_TAG_IF : TB_TAG_UNLESS)
		               : (is_if ? TB_TAG_END_IF : TB_TAG_END_UNLESS);
		return;
	}
	if (S_word_is(s, n, i, "signoff")) {
		S_signoff(s, n, i + 7, t);
		return;
	}
	static const char *const dirs[] = { "table", "chart", "derivation" };
	for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
		size_t z = n;
		while (z > i && tb_tag_is_space(s[z - 1]))
			z--;
		if (S_word_is(s, n, i, dirs[k]) && i + strlen(dirs[k]) == z) {
			/* "{{table}}": a directive missing its name, not a value */
			t->why = "expected a name after the directive, as in '{{table memory.line_items}}'";
			return;
		}
		if (S_word_is(s, n, i, dirs[k]) && i + strlen(dirs[k]) < n &&
		    tb_tag_is_space(s[i + strlen(dirs[k])])) {
			i += strlen(dirs[k]);
			S_skip_space(s, n, &i);
			strcpy(t->directive, dirs[k]);
			if (!S_ident(s, n, &i, t->name, sizeof t->name)) {
				t->why = "expected a name after the directive, as in '{{table memory.line_items}}'";
				return;
			}
			S_skip_space(s, n, &i);
			if (i != n) {
				t->why = "expected '}}' after the directive's name";
				return;
			}
			t->kind = TB_TAG_DIRECTIVE;
			return;
		}
	}
	if (!S_ident(s, n, &i, t->name, sizeof t->name)) {
		t->why = "expected a value name such as 'flops.total_6nd' (letters, digits, '_', '.', '-')";
		return;
	}
	S_skip_space(s, n, &i);
	if (i < n && s[i] == '|') {
		i++;
		S_skip_space(s, n, &i);
		if (!S_ident(s, n, &i, t->filter, sizeof t->filter)) {
			t->why = "expected a filter name after '|', such as 'sci' or 'bytes'";
			return;
		}
		S_skip_space(s, n, &i);
	}
	if (i != n) {
		t->why = "expected '}}' or '| FILTER' after the value name";
		return;
	}
	t->kind = TB_TAG_VALUE;
}

void tb_tag_text(tb_buf *b, const tb_tag *t)
{
	switch (t->kind) {
	case TB_TAG_IF: tb_buf_printf(b, "{{#if %s}}", t->name); break;
	case TB_TAG_UNLESS: tb_buf_printf(b, "{{#unless %s}}", t->name); break;
	case TB_TAG_END_IF: tb_buf_puts(b, "{{/if}}"); break;
	case TB_TAG_END_UNLESS: tb_buf_puts(b, "{{/unless}}"); break;
	case TB_TAG_DIRECTIVE: tb_buf_printf(b, "{{%s %s}}", t->directive, t->name); break;
	default: tb_buf_printf(b, "{{%s}}", t->name); break;
	}
}

