/* template_int.h: the template engine's shared state, internal to
 * template.c (the passes) and template_table.c (pipe tables). */
#ifndef TB_TEMPLATE_INT_H
#define TB_TEMPLATE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <cmark.h>
#include "template.h"
#include "trainbudget/diag.h"

/* user_data sentinels on nodes of the template tree (custom blocks made
 * later own their user_data): a block a false condition drops, a
 * condition marker, and a pipe table's paragraph (alive, or itself
 * dropped), whose inline content is the table's source, expanded cell by
 * cell instead. */
extern char tb_tpl_dropped_mark, tb_tpl_marker_mark, tb_tpl_table_mark, tb_tpl_table_dropped_mark;

typedef struct tb_tpl_nodes {
	cmark_node **v;
	bool *dead;
	size_t n, cap;
} tb_tpl_nodes;

typedef struct tb_tpl_ctx {
	const char *text;
	size_t len;
	const char *file;
	const tb_tpl_env *env;
	tb_diags *d;
	tb_tpl_nodes to_free;        /* replaced paragraphs, freed after pass 3 */
	tb_tpl_nodes dropped;        /* pass 2's drops, freed last, in reverse */
	size_t *bol, nbol;      /* line start offsets, built when first needed */
	size_t raw_html, raw_html_line, raw_html_col;   /* raw HTML other than comments */
	size_t blocks, value_bytes;     /* against TB_TEMPLATE_MAX_BLOCKS, _VALUE_BYTES */
	struct tb_tpl_table *tables;         /* the pipe tables found */
	size_t ntables;
	/* While a table cell is expanded (parsed alone, as a document of its
	 * own): where its first character is in the template. */
	size_t sub_line, sub_col;
	bool in_cell;
} tb_tpl_ctx;

void tb_tpl_nodes_push(tb_tpl_nodes *ns, cmark_node *n, bool dead);
void tb_tpl_nodes_release(tb_tpl_nodes *ns);
/* Pre-order, entering events only; `dead` is true inside a node marked
 * dropped. */
void tb_tpl_collect(cmark_node *root, tb_tpl_nodes *out);
/* c->bol, c->nbol: the template's line starts, built once. */
void tb_tpl_bol_build(tb_tpl_ctx *c);
/* Pass 3 over root: placeholders, directives, links, raw HTML. */
void tb_tpl_expand_tree(tb_tpl_ctx *c, cmark_node *root);
/* Counts a block against TB_TEMPLATE_MAX_BLOCKS; false past it (said
 * once, at line:col). */
bool tb_tpl_count_block(tb_tpl_ctx *c, size_t line, size_t col);

/* template_table.c */
/* True inside a pipe table's paragraph. */
bool tb_tpl_in_table(cmark_node *n);
/* Before pass 3: marks the pipe tables (and warns where one looks meant
 * but cannot be built). */
void tb_tpl_find_tables(tb_tpl_ctx *c, cmark_node *root);
/* After pass 3: expands their cells and builds the live ones in place. */
void tb_tpl_build_tables(tb_tpl_ctx *c);
void tb_tpl_release_tables(tb_tpl_ctx *c);

#endif
