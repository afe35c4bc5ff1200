/* render_md.c: GFM Markdown.
 *
 * cmark renders the tree (width 0: no rewrapping); each custom block
 * carries its Markdown verbatim as on_enter text, which cmark writes as is
 * (with the container prefix on each line): GFM pipe tables, image links to
 * the chart SVGs written beside the file, derivations as fenced code. */
#include "trainbudget/render.h"

#include <stdlib.h>
#include <string.h>

#include "template.h"
#include "trainbudget/xalloc.h"

/* Cell or inline text: every ASCII punctuation that could start Markdown
 * is backslash-escaped (always a valid CommonMark escape), `|` included for
 * the table, and line ends become spaces: a cell is one line. */
static void S_md_text(tb_buf *o, const char *s)
{
	tb_buf clean;
	tb_buf_init(&clean);
	tb_template_put_utf8(&clean, s ? s : "", s ? strlen(s) : 0);
	for (const char *p = clean.ptr; *p; p++) {
		char c = *p;
		if (c == '\n' || c == '\r' || c == '\t') {
			tb_buf_putc(o, ' ');
		} else if ((unsigned char)c < 0x20) {
			/* control characters carry nothing a reader needs */
		} else if (strchr("\\`*_[]<>!|~&$", c)) {
			tb_buf_putc(o, '\\');
			tb_buf_putc(o, c);
		} else {
			tb_buf_putc(o, c);
		}
	}
	tb_buf_release(&clean);
}

/* A link destination: percent-encoded, so any scenario file name stays one
 * relative link. */
static void S_md_url(tb_buf *o, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
			tb_buf_putc(o, (char)c);
		} else {
			tb_buf_putc(o, '%');
			tb_buf_putc(o, hex[c >> 4]);
			tb_buf_putc(o, hex[c & 15]);
		}
	}
}

static void S_md_table(tb_buf *o, const tb_table *t)
{
	if (t->ncols == 0 || t->nrows == 0)
		return;
	if (t->caption && *t->caption) {
		tb_buf_putc(o, '*');
		S_md_text(o, t->caption);
		tb_buf_puts(o, "*\n\n");
	}
	for (size_t r = 0; r < t->nrows; r++) {
		tb_buf_putc(o, '|');
		for (size_t c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[r * t->ncols + c];
			tb_buf_putc(o, ' ');
			S_md_text(o, cell);
			tb_buf_puts(o, " |");
		}
		tb_buf_putc(o, '\n');
		if (r == 0) {
			tb_buf_putc(o, '|');
			for (size_t c = 0; c < t->ncols; c++)
				tb_buf_puts(o, t->numeric[c] ? " ---: |" : " --- |");
			tb_buf_putc(o, '\n');
		}
	}
}

static void S_md_chart(tb_buf *o, const tb_chart *c, const char *prefix)
{
	tb_buf_puts(o, "![");
	S_md_text(o, c->alt[0] ? c->alt : c->title);
	tb_buf_puts(o, "](");
	tb_buf url;
	tb_buf_init(&url);
	tb_buf_puts(&url, prefix ? prefix : "");
	tb_buf_puts(&url, c->id);
	tb_buf_puts(&url, ".svg");
	S_md_url(o, url.ptr);
	tb_buf_release(&url);
	tb_buf_puts(o, ")\n\n*");
	S_md_text(o, c->title);
	tb_buf_puts(o, "*\n");
}

/* The longest run of backticks in s, so the fence can be longer. */
static size_t S_max_ticks(const char *s, size_t best)
{
	size_t run = 0;
	for (; s && *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

static void S_put_line(tb_buf *o, const char *s)
{
	tb_buf clean;
	tb_buf_init(&clean);
	tb_template_put_utf8(&clean, s ? s : "", s ? strlen(s) : 0);
	for (const char *p = clean.ptr; *p; p++)
		tb_buf_putc(o, *p == '\n' || *p == '\r' ? ' ' : *p);
	tb_buf_release(&clean);
	tb_buf_putc(o, '\n');
}

static void S_md_deriv(tb_buf *o, const tb_derivation *d)
{
	tb_buf_puts(o, "**");
	S_md_text(o, d->title);
	tb_buf_puts(o, "**\n\n");
	size_t ticks = S_max_ticks(d->formula, 0);
	ticks = S_max_ticks(d->substituted, ticks);
	ticks = S_max_ticks(d->result, ticks);
	ticks = S_max_ticks(d->source, ticks);
	for (size_t i = 0; i < d->nwhere; i++)
		ticks = S_max_ticks(d->where[i], ticks);
	ticks = ticks < 3 ? 3 : ticks + 1;
	for (size_t i = 0; i < ticks; i++)
		tb_buf_putc(o, '`');
	tb_buf_puts(o, "text\n");
	S_put_line(o, d->formula);
	S_put_line(o, d->substituted);
	S_put_line(o, d->result);
	if (d->nwhere) {
		tb_buf_puts(o, "\nwhere\n");
		for (size_t i = 0; i < d->nwhere; i++) {
			tb_buf_puts(o, "  ");
			S_put_line(o, d->where[i]);
		}
	}
	if (d->source && *d->source) {
		tb_buf_puts(o, "\nsource: ");
		S_put_line(o, d->source);
	}
	for (size_t i = 0; i < ticks; i++)
		tb_buf_putc(o, '`');
	tb_buf_putc(o, '\n');
}

char *tb_render_md(const tb_report *r, const char *svg_prefix)
{
	cmark_node *root = tb_report_root(r);
	if (!root)
		return tb_xstrdup("");
	tb_buf o;
	tb_buf_init(&o);
	cmark_iter *it = cmark_iter_new(root);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		const tb_block *blk = tb_report_block(n);
		if (ev != CMARK_EVENT_ENTER || !blk)
			continue;
		tb_buf_truncate(&o, 0);
		switch (blk->kind) {
		case TB_BLOCK_TABLE: S_md_table(&o, &blk->table); break;
		case TB_BLOCK_CHART:
			/* a chart that carries its figures as a table (a heat map:
			 * Markdown cannot colour a cell) shows the table */
			if (blk->table.nrows > 0)
				S_md_table(&o, &blk->table);
			else
				S_md_chart(&o, &blk->chart, svg_prefix);
			break;
		case TB_BLOCK_DERIVATION: S_md_deriv(&o, &blk->deriv); break;
		case TB_BLOCK_TITLE:    /* its children are the content */
		case TB_BLOCK_VERDICT: break;
		}
		/* cmark adds the blank lines around a custom block itself */
		while (o.len && o.ptr[o.len - 1] == '\n')
			tb_buf_truncate(&o, o.len - 1);
		cmark_node_set_on_enter(n, o.ptr);
		cmark_node_set_on_exit(n, "");
	}
	cmark_iter_free(it);
	tb_buf_release(&o);

	char *md = cmark_render_commonmark(root, CMARK_OPT_DEFAULT, 0);
	char *out = tb_xstrdup(md);
	cmark_get_default_mem_allocator()->free(md);
	return out;
}
