/* template_tag.h: what is between `{{` and `}}`, parsed; internal to the
 * template engine (template.c), which knows nothing of names, only this
 * syntax. */
#ifndef TB_TEMPLATE_TAG_H
#define TB_TEMPLATE_TAG_H

#include <stdbool.h>
#include <stddef.h>
#include "trainbudget/buf.h"

typedef enum {
	TB_TAG_VALUE, TB_TAG_DIRECTIVE,
	TB_TAG_IF, TB_TAG_UNLESS, TB_TAG_END_IF, TB_TAG_END_UNLESS,
	TB_TAG_BAD
} tb_tag_kind;

typedef struct tb_tag {
	tb_tag_kind kind;
	char name[128];         /* value name, condition or directive argument */
	char filter[32];        /* "" when none */
	char directive[16];     /* "table", "chart", "derivation", "signoff" */
	const char *why;        /* TB_TAG_BAD: what was expected */
} tb_tag;

/* Parses the n bytes between "{{" and "}}". */
void tb_tag_parse(const char *s, size_t n, tb_tag *t);

/* The tag as a template writes it ("{{#if NAME}}"), for messages. */
void tb_tag_text(tb_buf *b, const tb_tag *t);

/* A space or a tab. */
bool tb_tag_is_space(char c);

#endif
