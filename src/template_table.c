/* template_table.c: GFM pipe tables written in a template.
 *
 * Found before the placeholders are expanded (so a value can never add a
 * cell border), on the paragraph's source lines, split by pipetable.c;
 * each cell is then parsed and expanded alone, placed at its own line and
 * column, and flattened to text for the environment's table. */
#include "template_int.h"

#include <stdlib.h>
#include <string.h>

#include "pipetable.h"
#include "trainbudget/xalloc.h"

typedef struct tb_tpl_table {
	cmark_node *para;
	size_t line0;           /* the header row's line */
	bool dead;
	tb_pipetable t;
} tb_tpl_table;

bool tb_tpl_in_table(cmark_node *n)
{
	for (cmark_node *p = n; p; p = cmark_node_parent(p))
		if (cmark_node_get_type(p) == CMARK_NODE_PARAGRAPH) {
			void *ud = cmark_node_get_user_data(p);
			return ud == &tb_tpl_table_mark || ud == &tb_tpl_table_dropped_mark;
		}
	return false;
}

/* Line `line` (1-based, present) of the template without its line end. */
static const char *S_src_line(tb_tpl_ctx *c, size_t line, size_t *n)
{
	size_t a = c->bol[line - 1], z = line < c->nbol ? c->bol[line] : c->len;
	while (z > a && (c->text[z - 1] == '\n' || c->text[z - 1] == '\r'))
		z--;
	*n = z - a;
	return c->text + a;
}

/* A line without the block quote and list markers before it, roughly:
 * only to see whether it looks like a table row. */
static const char *S_unprefix(const char *s, size_t *n)
{
	size_t i = 0;
	for (;;) {
		while (i < *n && (s[i] == ' ' || s[i] == '\t' || s[i] == '>'))
			i++;
		size_t j = i;
		while (j < *n && s[j] >= '0' && s[j] <= '9')
			j++;
		bool marker = (j == i && i < *n && strchr("-*+", s[i])) ||
		              (j > i && j < *n && (s[j] == '.' || s[j] == ')'));
		size_t after = j == i ? i + 1 : j + 1;
		if (!marker || after >= *n || (s[after] != ' ' && s[after] != '\t'))
			break;
		i = after;
	}
	*n -= i;
	return s + i;
}

/* Finds the pipe tables: a paragraph at the top level of the template
 * whose first line is a header row and whose second is a delimiter row
 * of as many cells.  What looks like a table where one cannot be built
 * (after text in the same paragraph, or in a block quote or list, whose
 * line markers cmark has consumed) stays text, with a warning. */
void tb_tpl_find_tables(tb_tpl_ctx *c, cmark_node *root)
{
	tb_tpl_bol_build(c);
	tb_tpl_nodes all = {0};
	tb_tpl_collect(root, &all);
	size_t cap = 0;
	for (size_t k = 0; k < all.n; k++) {
		cmark_node *p = all.v[k];
		int l0 = cmark_node_get_start_line(p), l1 = cmark_node_get_end_line(p);
		if (cmark_node_get_type(p) != CMARK_NODE_PARAGRAPH ||
		    cmark_node_get_user_data(p) == &tb_tpl_marker_mark ||
		    l0 <= 0 || l1 <= l0 || (size_t)l1 > c->nbol)
			continue;
		size_t nl = (size_t)(l1 - l0) + 1;
		const char **lines = tb_xcalloc(nl, sizeof *lines);
		size_t *lens = tb_xcalloc(nl, sizeof *lens);
		bool top = cmark_node_get_type(cmark_node_parent(p)) == CMARK_NODE_DOCUMENT;
		for (size_t i = 0; i < nl; i++) {
			lines[i] = S_src_line(c, (size_t)l0 + i, &lens[i]);
			if (!top)
				lines[i] = S_unprefix(lines[i], &lens[i]);
		}
		tb_pipetable t;
		if (top && c->env->table && tb_pipetable_parse(lines, lens, nl, &t)) {
			if (c->ntables == cap) {
				cap = cap ? cap * 2 : 8;
				c->tables = tb_xrealloc(c->tables, cap * sizeof *c->tables);
			}
			tb_tpl_table *tb = &c->tables[c->ntables++];
			tb->para = p;
			tb->line0 = (size_t)l0;
			tb->dead = all.dead[k];
			tb->t = t;
			cmark_node_set_user_data(p, cmark_node_get_user_data(p) == &tb_tpl_dropped_mark
			                            ? &tb_tpl_table_dropped_mark : &tb_tpl_table_mark);
		} else {
			for (size_t i = 1; i < nl; i++) {
				size_t ncols;
				if (!tb_pipetable_is_delimiter(lines[i], lens[i], &ncols) ||
				    tb_pipetable_count(lines[i - 1], lens[i - 1]) != ncols)
					continue;
				const char *why = !c->env->table ? "pipe tables are not built here; expected '{{table NAME}}'"
				                  : !top ? "a pipe table inside a block quote or list item stays text; "
				                           "expected it at the top level of the template"
				                         : "a pipe table after text in the same paragraph stays text; "
				                           "expected a blank line before its header row";
				tb_diags_add(c->d, TB_DIAG_WARNING, c->file, c->text, c->len,
				             (size_t)l0 + i - 1, 1, "%s", why);
				break;
			}
		}
		free(lines);
		free(lens);
	}
	tb_tpl_nodes_release(&all);
}

/* One cell's Markdown, parsed and expanded alone, then flattened to plain
 * text: a table holds text, so emphasis, code and links keep their words
 * and lose their markup. */
static char *S_cell_text(tb_tpl_ctx *c, const char *src, size_t line, size_t col)
{
	if (!*src)
		return tb_xstrdup("");
	cmark_node *cd = cmark_parse_document(src, strlen(src),
	                                      CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8);
	cmark_consolidate_text_nodes(cd);
	c->sub_line = line;
	c->sub_col = col;
	c->in_cell = true;
	tb_tpl_expand_tree(c, cd);
	c->sub_line = c->sub_col = 0;
	c->in_cell = false;
	tb_buf b;
	tb_buf_init(&b);
	cmark_iter *it = cmark_iter_new(cd);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		cmark_node_type ty = cmark_node_get_type(n);
		if (ev != CMARK_EVENT_ENTER)
			continue;
		if (ty == CMARK_NODE_SOFTBREAK || ty == CMARK_NODE_LINEBREAK) {
			tb_buf_putc(&b, ' ');
		} else if (ty == CMARK_NODE_TEXT || ty == CMARK_NODE_CODE || ty == CMARK_NODE_CODE_BLOCK) {
			for (const char *p = cmark_node_get_literal(n); p && *p; p++)
				tb_buf_putc(&b, *p == '\n' || *p == '\r' ? ' ' : *p);
		}
	}
	cmark_iter_free(it);
	cmark_node_free(cd);
	return tb_buf_detach(&b, NULL);
}

/* Expands every table's cells and has the environment build the live
 * ones in place of their paragraphs. */
void tb_tpl_build_tables(tb_tpl_ctx *c)
{
	for (size_t i = 0; i < c->ntables; i++) {
		tb_tpl_table *tb = &c->tables[i];
		tb_pipetable *t = &tb->t;
		size_t ncell = t->ncols * t->nrows;
		char **cells = tb_xcalloc(ncell, sizeof *cells);
		for (size_t r = 0; r < t->nrows; r++)
			for (size_t k = 0; k < t->ncols; k++) {
				size_t at = r * t->ncols + k;
				/* row r is on the line after the delimiter row */
				cells[at] = S_cell_text(c, t->cells[at], tb->line0 + (r ? r + 1 : 0), t->cols[at]);
			}
		if (tb_tpl_count_block(c, tb->line0, 1) && !tb->dead) {
			cmark_node *into = cmark_node_new(CMARK_NODE_DOCUMENT);
			c->env->table(c->env->ctx, t->ncols, t->nrows, (const char *const *)cells,
			              t->align, into);
			cmark_node *ch;
			while ((ch = cmark_node_first_child(into)) != NULL)
				cmark_node_insert_before(tb->para, ch);
			cmark_node_free(into);
			tb_tpl_nodes_push(&c->to_free, tb->para, false);
		}
		for (size_t k = 0; k < ncell; k++)
			free(cells[k]);
		free(cells);
	}
}

void tb_tpl_release_tables(tb_tpl_ctx *c)
{
	for (size_t k = 0; k < c->ntables; k++)
		tb_pipetable_release(&c->tables[k].t);
	free(c->tables);
	c->tables = NULL;
	c->ntables = 0;
}
