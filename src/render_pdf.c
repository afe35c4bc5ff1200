/* render_pdf.c: the sign-off PDF, laid out over the report's cmark tree
 * and written by our own small PDF writer (pdf_write.c) with embedded
 * TrueType subsets (pdf_font.c).
 *
 * One pass lays out and draws the body onto pages kept in an array; a
 * second pass writes the running header and "page N of M" footer, which
 * need the page count; then the objects are written.  Nothing here
 * computes a figure: text, tables and chart primitives come from the
 * report model as they are.  This file walks the tree and draws the
 * document's own parts (headings, title block, verdict box, sign-off
 * page, furniture); pdf_doc.h lists the helpers it draws with.
 *
 * Every character is drawn or the document is refused: a character the
 * report's face lacks is looked for in the regular face, then in fallback
 * fonts found on the system (CJK, emoji); one no font has stops the PDF
 * with an error naming it, so text never vanishes from a signed page
 * (pdf_fontset.c). */
#include "trainbudget/render.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdf_deflate.h"
#include "pdf_doc.h"
#include "pdf_pdfa.h"
#include "pdf_write.h"
#include "trainbudget/sha256.h"
#include "trainbudget/version.h"
#include "trainbudget/xalloc.h"

#define S_DEFAULT_FONT_DIR "/usr/share/fonts/truetype/dejavu"
#define S_MARGIN_PT 54.0

/* ---- inlines ----------------------------------------------------------- */

/* The inlines under `n`, walked with cmark's iterator rather than by
 * recursion: a template can nest emphasis and links as deep as it likes,
 * and the style in force is kept on a stack of our own. */
static void S_inlines(tb_pdf_doc *st, tb_pdf_para *p, cmark_node *n, unsigned style)
{
	cmark_iter *it = cmark_iter_new(n);
	unsigned *stack = NULL;
	size_t depth = 0, cap = 0;
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *c = cmark_iter_get_node(it);
		if (c == n)
			continue;
		const char *lit = cmark_node_get_literal(c);
		cmark_node_type type = cmark_node_get_type(c);
		if (ev == CMARK_EVENT_EXIT) {
			if (depth)
				style = stack[--depth];
			continue;
		}
		switch (type) {
		case CMARK_NODE_TEXT:
		case CMARK_NODE_HTML_INLINE:
			if (lit)
				tb_pdf_para_add(p, style, lit, strlen(lit));
			break;
		case CMARK_NODE_CODE:
			if (lit)
				tb_pdf_para_add(p, style | TB_PDF_MONO, lit, strlen(lit));
			break;
		case CMARK_NODE_SOFTBREAK:
			p->pending_space = true;
			break;
		case CMARK_NODE_LINEBREAK:
			tb_pdf_para_add_break(p);
			break;
		default: /* emphasis, links, images (their alt text), custom inlines */
			if (depth == cap) {
				cap = cap ? cap * 2 : 16;
				stack = tb_xrealloc(stack, cap * sizeof *stack);
			}
			stack[depth++] = style;
			if (type == CMARK_NODE_EMPH) {
				style |= TB_PDF_ITALIC;
			} else if (type == CMARK_NODE_STRONG) {
				style |= TB_PDF_BOLD;
			} else if (type == CMARK_NODE_LINK) {
				/* an annotation where its text lands (HTML's
				 * scheme rules; a refused one is text) */
				unsigned id = tb_pdf_draw_link(st, cmark_node_get_url(c));
				if (id)
					style = (style & TB_PDF_FACE_BITS) | id << TB_PDF_LINK_SHIFT;
			}
			break;
		}
	}
	free(stack);
	cmark_iter_free(it);
}

/* ---- headings and the tree walk ---------------------------------------- */

static double S_heading_size(int depth)
{
	return depth <= 1 ? 14.5 : depth == 2 ? 12.0 : 10.5;
}

/* Roughly the first piece of a block: a heading waits for it. */
static double S_min_height(tb_pdf_doc *st, cmark_node *n)
{
	if (!n)
		return 0;
	switch (cmark_node_get_type(n)) {
	case CMARK_NODE_CUSTOM_BLOCK: {
		const tb_block *b = st->block ? st->block(n) : NULL;
		if (b && b->kind == TB_BLOCK_CHART) {
			double s = b->chart.width_pt > tb_pdf_draw_body_w(st) ? tb_pdf_draw_body_w(st) / b->chart.width_pt : 1;
			double h = b->chart.height_pt * s;
			return h < (st->top - st->bottom) * 0.9 ? h : (st->top - st->bottom) * 0.9;
		}
		return 60;
	}
	case CMARK_NODE_HEADING:
		return 40;
	case CMARK_NODE_PARAGRAPH: {
		/* a sentence that introduces a table or chart ("What each change
		 * does:") stays with its start, or the heading is left alone */
		cmark_node *next = cmark_node_next(n);
		double h = 3 * TB_PDF_BODY_PT * TB_PDF_LEAD;
		if (next && cmark_node_get_type(next) == CMARK_NODE_CUSTOM_BLOCK)
			h += S_min_height(st, next);
		return h;
	}
	default:
		return 3 * TB_PDF_BODY_PT * TB_PDF_LEAD;
	}
}

static void S_heading(tb_pdf_doc *st, cmark_node *n)
{
	int level = cmark_node_get_heading_level(n);
	int depth = level - st->base_level + 1;
	if (depth < 1)
		depth = 1;
	if (depth > 6)
		depth = 6;
	st->counters[depth]++;
	for (int i = depth + 1; i < 7; i++)
		st->counters[i] = 0;
	tb_buf num;
	tb_buf_init(&num);
	for (int i = 1; i <= depth; i++)
		tb_buf_printf(&num, i > 1 ? ".%d" : "%d", st->counters[i]);
	double size = S_heading_size(depth);
	tb_pdf_para p;
	tb_pdf_para_init(&p, size);
	tb_pdf_para_add(&p, TB_PDF_BOLD, num.ptr, num.len);
	p.pending_space = true;
	S_inlines(st, &p, n, TB_PDF_BOLD);
	double before = depth == 1 ? 12 : 8;
	/* the verdict's section is the summary a signer reads first: it
	 * keeps its page to itself, and the next section starts a new one */
	if (depth == 1 && st->verdict_drawn) {
		st->verdict_drawn = false;
		if (!tb_pdf_draw_page_empty(st))
			tb_pdf_draw_new_page(st);
	}
	size_t nl = tb_pdf_para_layout(&p, tb_pdf_draw_body_w(st), tb_pdf_fontset_measure, st);
	double h = before + (double)nl * tb_pdf_draw_lead(&p) + 4;
	tb_pdf_draw_need(st, h + S_min_height(st, cmark_node_next(n)));
	if (!tb_pdf_draw_page_empty(st))
		st->y -= before;
	if (depth == 1) {
		/* a bookmark per section, titled as printed */
		tb_buf title;
		tb_buf_init(&title);
		for (size_t i = 0; i < p.npieces; i++) {
			if (i && p.pieces[i].space_before)
				tb_buf_putc(&title, ' ');
			tb_buf_put(&title, p.text.ptr + p.pieces[i].off, p.pieces[i].len);
		}
		tb_pdf_draw_bookmark(st, title.ptr, st->y + 4);
		tb_buf_release(&title);
	}
	static const char *const tag[7] = {"H1", "H1", "H2", "H3", "H4", "H5", "H6"};
	tb_pdf_tag_open(st, tag[depth]);
	tb_pdf_para_opts o = {tb_pdf_draw_body_x(st), tb_pdf_draw_body_w(st), false, false, tb_pdf_black};
	tb_pdf_draw_para(st, &p, &o);
	tb_pdf_tag_close(st);
	st->y -= 4;
	tb_pdf_para_release(&p);
	tb_buf_release(&num);
}

static void S_title_block(tb_pdf_doc *st);
static void S_verdict(tb_pdf_doc *st);

static void S_block(tb_pdf_doc *st, cmark_node *n)
{
	if (!tb_pdf_ok(st))
		return;
	switch (cmark_node_get_type(n)) {
	case CMARK_NODE_HEADING:
		if (n == st->title_node) {
			tb_pdf_para p;
			tb_pdf_para_init(&p, 19);
			S_inlines(st, &p, n, TB_PDF_BOLD);
			tb_pdf_tag_open(st, "H1");
			tb_pdf_para_opts o = {tb_pdf_draw_body_x(st), tb_pdf_draw_body_w(st), false, false, tb_pdf_black};
			tb_pdf_draw_para(st, &p, &o);
			tb_pdf_tag_close(st);
			tb_pdf_para_release(&p);
			st->y -= 8;
			break;
		}
		S_heading(st, n);
		break;
	case CMARK_NODE_PARAGRAPH: {
		tb_pdf_para p;
		tb_pdf_para_init(&p, TB_PDF_BODY_PT);
		S_inlines(st, &p, n, 0);
		tb_pdf_tag_open(st, "P");
		tb_pdf_para_opts o = {tb_pdf_draw_body_x(st), tb_pdf_draw_body_w(st), false, false, tb_pdf_black};
		tb_pdf_draw_para(st, &p, &o);
		tb_pdf_tag_close(st);
		tb_pdf_para_release(&p);
		/* items of a tight list sit closer together */
		cmark_node *up = cmark_node_parent(n);
		cmark_node *list = up ? cmark_node_parent(up) : NULL;
		bool tight = list && cmark_node_get_type(list) == CMARK_NODE_LIST &&
		             cmark_node_get_list_tight(list);
		st->y -= tight ? 1.5 : 5;
		break;
	}
	case CMARK_NODE_CODE_BLOCK:
	case CMARK_NODE_HTML_BLOCK: {
		const char *lit = cmark_node_get_literal(n);
		if (lit) {
			tb_pdf_tag_open(st, "P");
			tb_pdf_blocks_code(st, lit, strlen(lit));
			tb_pdf_tag_close(st);
		}
		break;
	}
	case CMARK_NODE_THEMATIC_BREAK:
		tb_pdf_draw_need(st, 12);
		tb_pdf_draw_stroke_rgb(st->page, tb_pdf_rule);
		tb_pdf_draw_line_width(st->page, 0.5);
		tb_pdf_draw_move_to(st->page, tb_pdf_draw_body_x(st), (st->y - 6));
		tb_pdf_draw_line_to(st->page, st->right, (st->y - 6));
		tb_pdf_draw_op(st->page, "S");
		st->y -= 12;
		break;
	case CMARK_NODE_CUSTOM_BLOCK: {
		const tb_block *b = st->block ? st->block(n) : NULL;
		if (!b)
			break;
		/* a derivation, the title block and the verdict are read as a
		 * whole, in the order drawn: one division, marked whole */
		bool div = b->kind == TB_BLOCK_DERIVATION || b->kind == TB_BLOCK_TITLE ||
		           b->kind == TB_BLOCK_VERDICT;
		if (div) {
			tb_pdf_tag_open(st, "Div");
			tb_pdf_tag_mark(st);
		}
		switch (b->kind) {
		case TB_BLOCK_TABLE: tb_pdf_blocks_table(st, &b->table); break;
		case TB_BLOCK_CHART: tb_pdf_blocks_chart(st, &b->chart); break;
		case TB_BLOCK_DERIVATION: tb_pdf_blocks_derivation(st, &b->deriv); break;
		/* drawn from the meta in place of their children (the same
		 * content as tables), which would say it all again */
		case TB_BLOCK_TITLE: S_title_block(st); break;
		case TB_BLOCK_VERDICT:
			S_verdict(st);
			st->verdict_drawn = true;
			break;
		}
		if (div) {
			tb_pdf_tag_unmark(st);
			tb_pdf_tag_close(st);
		}
		break;
	}
	default:
		break;
	}
}

/* Whether the walk goes into a node's children: quotes, lists, items and
 * custom blocks that are not ours.  Everything else is drawn whole. */
static bool S_is_container(const tb_pdf_doc *st, cmark_node *n)
{
	switch (cmark_node_get_type(n)) {
	case CMARK_NODE_DOCUMENT:
	case CMARK_NODE_BLOCK_QUOTE:
	case CMARK_NODE_LIST:
	case CMARK_NODE_ITEM:
		return true;
	case CMARK_NODE_CUSTOM_BLOCK:
		return !(st->block && st->block(n));
	default:
		return false;
	}
}

/* What a container changed, put back when the walk leaves it. */
typedef struct S_frame {
	double indent;
	int num;              /* a list's next item number */
	int tags;             /* structure elements it opened */
} S_frame;

/* Quotes and lists indent by a step a level, but never past this share of
 * the body's width: deeper levels draw at the deepest indent. */
#define S_MAX_INDENT_SHARE 0.4

/* The block tree, walked with cmark's iterator rather than by recursion, so
 * a template that nests quotes or lists thousands deep renders instead of
 * overflowing the stack. */
static void S_walk(tb_pdf_doc *st, cmark_node *root)
{
	cmark_iter *it = cmark_iter_new(root);
	S_frame *stack = NULL;
	size_t depth = 0, cap = 0;
	double max_base = (st->right - st->left) * S_MAX_INDENT_SHARE;
	cmark_event_type ev;
	while (tb_pdf_ok(st) && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		if (n == root)
			continue;
		if (!S_is_container(st, n)) {
			if (ev == CMARK_EVENT_ENTER) {
				S_block(st, n);
				/* its inlines were drawn with it */
				if (cmark_node_first_child(n))
					cmark_iter_reset(it, n, CMARK_EVENT_EXIT);
			}
			continue;
		}
		cmark_node_type type = cmark_node_get_type(n);
		if (ev == CMARK_EVENT_EXIT) {
			if (depth) {
				st->indent = stack[--depth].indent;
				for (int t = 0; t < stack[depth].tags; t++)
					tb_pdf_tag_close(st);
			}
			if (type == CMARK_NODE_ITEM)
				st->marker[0] = '\0';
			else if (type == CMARK_NODE_LIST)
				st->y -= 3;
			continue;
		}
		if (depth == cap) {
			cap = cap ? cap * 2 : 16;
			stack = tb_xrealloc(stack, cap * sizeof *stack);
		}
		S_frame *f = &stack[depth++];
		f->indent = st->indent;
		f->num = 0;
		f->tags = 0;
		double base = st->indent < max_base ? st->indent : max_base;
		if (type == CMARK_NODE_BLOCK_QUOTE) {
			st->indent = base + 14;
			tb_pdf_tag_open(st, "BlockQuote");
			f->tags = 1;
		} else if (type == CMARK_NODE_LIST) {
			f->num = cmark_node_get_list_start(n);
			tb_pdf_tag_open(st, "L");
			f->tags = 1;
		} else if (type == CMARK_NODE_ITEM) {
			tb_pdf_tag_open(st, "LI");
			tb_pdf_tag_open(st, "LBody");
			f->tags = 2;
			/* the frame below is the list's */
			S_frame *list = depth >= 2 ? &stack[depth - 2] : NULL;
			cmark_node *up = cmark_node_parent(n);
			bool ordered = up && cmark_node_get_list_type(up) == CMARK_ORDERED_LIST;
			if (ordered)
				snprintf(st->marker, sizeof st->marker, "%d.", list ? list->num++ : 1);
			else
				snprintf(st->marker, sizeof st->marker, "\xE2\x80\xA2"); /* bullet */
			st->marker_x = st->left + base + 2;
			st->indent = base + (ordered ? 18 : 13);
		}
	}
	free(stack);
	cmark_iter_free(it);
}

/* ---- first and last page ----------------------------------------------- */

static const char *S_str(const char *s)
{
	return s ? s : "";
}

static void S_title_block(tb_pdf_doc *st)
{
	const tb_report_meta *m = st->meta;
	const char *title = m->title && m->title[0] ? m->title : "Training budget";
	tb_pdf_draw_simple_para(st, TB_PDF_BOLD, 19, tb_pdf_black, title, 4);
	tb_buf b;
	tb_buf_init(&b);
	if (m->author && m->author[0])
		tb_buf_printf(&b, "Author: %s \xC2\xB7 ", m->author);
	if (m->date && m->date[0])
		tb_buf_printf(&b, "Date: %s \xC2\xB7 ", m->date);
	tb_buf_printf(&b, "trainbudget %s", m->version && m->version[0] ? m->version : TB_VERSION);
	tb_pdf_draw_simple_para(st, 0, 9.5, tb_pdf_grey, b.ptr, 1);
	if (m->sha256 && m->sha256[0]) {
		char label[48];
		tb_pdf_hash_label(m, label, sizeof label);
		tb_pdf_para p;
		tb_pdf_para_init(&p, 7.5);
		tb_pdf_para_add(&p, 0, label, strlen(label));
		tb_pdf_para_add(&p, 0, ":", 1);
		p.pending_space = true;
		tb_pdf_para_add(&p, TB_PDF_MONO, m->sha256, strlen(m->sha256));
		tb_pdf_para_opts o = {tb_pdf_draw_body_x(st), tb_pdf_draw_body_w(st), false, false, tb_pdf_grey};
		tb_pdf_draw_para(st, &p, &o);
		tb_pdf_para_release(&p);
	}
	tb_buf_release(&b);
	st->y -= 10;
}

/* GOOD, WARN, BAD, NONE: a finding with nothing to judge it against is
 * grey and says N/A, never a green YES */
static const tb_rgb S_tint[4] = {{226, 244, 230}, {255, 243, 214}, {252, 226, 226}, {238, 238, 238}};
static const tb_rgb S_edge[4] = {{46, 125, 50}, {191, 120, 0}, {183, 28, 28}, {97, 97, 97}};
static const char *const S_outcome_word[4] = {"YES", "CHECK", "NO", "N/A"};

static void S_verdict(tb_pdf_doc *st)
{
	const tb_report_meta *m = st->meta;
	if (!m->nverdict && !m->nkey)
		return;
	double x = tb_pdf_draw_body_x(st), w = tb_pdf_draw_body_w(st);
	for (size_t i = 0; i < m->nverdict; i++) {
		const tb_verdict_line *v = &m->verdict[i];
		int k = v->outcome == TB_OUTCOME_GOOD ? 0 : v->outcome == TB_OUTCOME_WARN ? 1
		        : v->outcome == TB_OUTCOME_BAD ? 2 : 3;
		tb_pdf_para p;
		tb_pdf_para_init(&p, 10);
		const char *text = S_str(v->text);
		tb_pdf_para_add(&p, 0, text, strlen(text));
		double tag_w = 48;
		size_t nl = tb_pdf_para_layout(&p, w - tag_w - 12, tb_pdf_fontset_measure, st);
		double h = (double)nl * tb_pdf_draw_lead(&p) + 10;
		tb_pdf_draw_need(st, h);
		tb_pdf_draw_fill_rgb(st->page, S_tint[k]);
		tb_pdf_draw_rect(st->page, x, (st->y - h), w, h);
		tb_pdf_draw_op(st->page, "f");
		tb_pdf_draw_fill_rgb(st->page, S_edge[k]);
		tb_pdf_draw_rect(st->page, x, (st->y - h), 4, h);
		tb_pdf_draw_op(st->page, "f");
		double base = st->y - 5 - 10 * TB_PDF_ASCENT - (tb_pdf_draw_lead(&p) - 10) / 2;
		/* the outcome in words too: the page may be printed in grey */
		tb_pdf_draw_label(st, x + 10, base, TB_PDF_BOLD, 9, S_edge[k], S_outcome_word[k]);
		for (size_t l = 0; l < p.nlines; l++) {
			tb_pdf_draw_line(st, &p, l, x + tag_w + 4, w - tag_w - 12, false, tb_pdf_black, base);
			base -= tb_pdf_draw_lead(&p);
		}
		st->y -= h + 3;
		tb_pdf_para_release(&p);
	}
	if (m->nkey) {
		tb_table t;
		memset(&t, 0, sizeof t);
		t.ncols = 2;
		t.nrows = m->nkey + 1;
		t.cells = tb_xcalloc(t.nrows * 2, sizeof *t.cells);
		bool numeric[2] = {false, true};
		t.numeric = numeric;
		t.cells[0] = (char *)"Key figure";
		t.cells[1] = (char *)"Value";
		for (size_t i = 0; i < m->nkey; i++) {
			t.cells[(i + 1) * 2] = (char *)S_str(m->key_labels ? m->key_labels[i] : NULL);
			t.cells[(i + 1) * 2 + 1] = (char *)S_str(m->key_values ? m->key_values[i] : NULL);
		}
		st->y -= 4;
		tb_pdf_blocks_table(st, &t);
		free(t.cells);
	}
	st->y -= 6;
}

/* Running header (pages after the first) and footer, once the count is known. */
static void S_furniture(tb_pdf_doc *st)
{
	const tb_report_meta *m = st->meta;
	char hash12[13];
	snprintf(hash12, sizeof hash12, "%s", S_str(m->sha256));
	tb_buf title, foot, num;
	tb_buf_init(&title);
	tb_buf_init(&foot);
	tb_buf_init(&num);
	tb_pdf_sanitize(&title, S_str(m->title), strlen(S_str(m->title)));
	double w = st->right - st->left;
	double size = 8;
	if (tb_pdf_fontset_measure(st, 0, size, title.ptr, title.len) > w) {
		/* cut on a character boundary and mark the cut */
		double ell = tb_pdf_fontset_width(st, 0, size, "\xE2\x80\xA6");
		size_t n = title.len;
		while (n > 0 && tb_pdf_fontset_measure(st, 0, size, title.ptr, n) + ell > w)
			n = tb_pdf_utf8_floor(title.ptr, title.len, n - 1);
		while (n > 0 && title.ptr[n - 1] == ' ')
			n--;
		tb_buf_truncate(&title, n);
		tb_buf_puts(&title, "\xE2\x80\xA6");
	}
	tb_buf_printf(&foot, "trainbudget %s", m->version && m->version[0] ? m->version : TB_VERSION);
	if (hash12[0])
		tb_buf_printf(&foot, " \xC2\xB7 %s %s", m->hash_of ? m->hash_of : "scenario", hash12);
	for (size_t i = 0; i < st->npages; i++) {
		st->page = st->pages[i];
		tb_pdf_tag_artifact(st, true);
		double fy = st->bottom - 24;
		if (i > 0 && title.len) {
			double hy = st->top + 22;
			tb_pdf_draw_text_at(st, st->left, hy, 0, size, tb_pdf_grey, title.ptr, title.len, 0);
			tb_pdf_draw_stroke_rgb(st->page, tb_pdf_rule);
			tb_pdf_draw_line_width(st->page, 0.4);
			tb_pdf_draw_move_to(st->page, st->left, (hy - 5));
			tb_pdf_draw_line_to(st->page, st->right, (hy - 5));
			tb_pdf_draw_op(st->page, "S");
		}
		tb_pdf_draw_text_at(st, st->left, fy, 0, size, tb_pdf_grey, foot.ptr, foot.len, 0);
		tb_buf_truncate(&num, 0);
		tb_buf_printf(&num, "Page %zu of %zu", i + 1, st->npages);
		tb_pdf_draw_text_at(st, st->right - tb_pdf_fontset_measure(st, 0, size, num.ptr, num.len), fy, 0, size,
		                    tb_pdf_grey, num.ptr, num.len, 0);
		tb_pdf_tag_artifact(st, false);
	}
	tb_buf_release(&title);
	tb_buf_release(&foot);
	tb_buf_release(&num);
}

/* ---- the document -------------------------------------------------------- */

static void S_info_text(tb_buf *b, const char *key, const char *s)
{
	tb_buf t;
	tb_buf_init(&t);
	tb_pdf_sanitize(&t, s, strlen(s));
	tb_buf_printf(b, " /%s ", key);
	tb_pdfw_text(b, t.ptr, t.len);
	tb_buf_release(&t);
}

/* The document information dictionary, dated from the report, never the
 * clock, so runs are byte-identical. */
static void S_rect(tb_buf *b, const tb_pdf_annot *a)
{
	double r[4] = { a->x0, a->y0, a->x1, a->y1 };
	tb_buf_putc(b, '[');
	for (int i = 0; i < 4; i++) {
		if (i)
			tb_buf_putc(b, ' ');
		tb_pdfw_num(b, r[i]);
	}
	tb_buf_putc(b, ']');
}

/* A link annotation: a URI action on the rectangle its text was drawn in,
 * no border.  The URI is 7-bit ASCII (ISO 32000-1, 12.6.4.7): every other
 * byte and a space are percent-encoded, the string's delimiters escaped. */
static void S_link_annot(const tb_pdf_doc *st, const tb_pdf_annot *a, unsigned num,
                         tb_pdfw *w, tb_buf *b)
{
	if (a->link < 1 || a->link > st->nlinks)
		return;
	tb_buf_truncate(b, 0);
	tb_buf_puts(b, "<< /Type /Annot /Subtype /Link /Rect ");
	S_rect(b, a);
	tb_buf_puts(b, " /Border [0 0 0] /F 4");
	if (a->elem) {
		tb_buf_puts(b, " /StructParent ");
		tb_pdfw_uint(b, a->struct_parent);
	}
	tb_buf_puts(b, " /A << /S /URI /URI (");
	for (const unsigned char *u = (const unsigned char *)st->links[a->link - 1]; *u; u++) {
		if (*u <= 0x20 || *u >= 0x7f)
			tb_buf_printf(b, "%%%02X", *u);
		else if (*u == '(' || *u == ')' || *u == '\\')
			tb_buf_printf(b, "\\%c", *u);
		else
			tb_buf_putc(b, (char)*u);
	}
	tb_buf_puts(b, ") >> >>");
	tb_pdfw_obj(w, num, b->ptr, b->len);
}

/* An unsigned signature field, the field and its widget in one
 * dictionary (ISO 32000-1, 12.7.4.5), printable, with an empty appearance
 * so that every reader draws the same (the line under it is the page's):
 * a reader signs into it with an incremental update, leaving the bytes
 * signed before, and the digests the sign-off page prints, as they were. */
static void S_sig_field(const tb_pdf_annot *a, unsigned num, unsigned page, tb_pdfw *w,
                        tb_buf *b)
{
	unsigned ap = tb_pdfw_alloc(w);
	tb_buf_truncate(b, 0);
	tb_buf_puts(b, "<< /Type /Annot /Subtype /Widget /FT /Sig /F 4 /T ");
	tb_pdfw_text(b, a->sig_role, strlen(a->sig_role));
	tb_buf_puts(b, " /TU ");
	char tu[64];
	snprintf(tu, sizeof tu, "%s's signature", a->sig_role);
	tb_pdfw_text(b, tu, strlen(tu));
	tb_buf_puts(b, " /Rect ");
	S_rect(b, a);
	if (a->elem) {
		tb_buf_puts(b, " /StructParent ");
		tb_pdfw_uint(b, a->struct_parent);
	}
	tb_buf_printf(b, " /P %u 0 R /AP << /N %u 0 R >> >>", page, ap);
	tb_pdfw_obj(w, num, b->ptr, b->len);
	tb_buf_truncate(b, 0);
	tb_buf_puts(b, "/Type /XObject /Subtype /Form /BBox [0 0 ");
	tb_pdfw_num(b, a->x1 - a->x0);
	tb_buf_putc(b, ' ');
	tb_pdfw_num(b, a->y1 - a->y0);
	tb_buf_puts(b, "]");
	tb_pdfw_stream(w, ap, b->ptr, "", 0, false);
}

#define S_SUBJECT "LLM training compute budget for sign-off"

static void S_creator(const tb_report_meta *m, char *out, size_t cap)
{
	snprintf(out, cap, "trainbudget %s", m->version && m->version[0] ? m->version : TB_VERSION);
}

static void S_info(tb_pdf_doc *st, tb_buf *b)
{
	const tb_report_meta *m = st->meta;
	tb_buf_puts(b, "<<");
	if (m->title && m->title[0])
		S_info_text(b, "Title", m->title);
	if (m->author && m->author[0])
		S_info_text(b, "Author", m->author);
	S_info_text(b, "Subject", S_SUBJECT);
	char creator[64];
	S_creator(m, creator, sizeof creator);
	S_info_text(b, "Creator", creator);
	int y, mo, dd;
	if (m->date && sscanf(m->date, "%4d-%2d-%2d", &y, &mo, &dd) == 3 &&
	    y >= 0 && y <= 9999 && mo >= 1 && mo <= 12 && dd >= 1 && dd <= 31) {
		tb_buf_printf(b, " /CreationDate (D:%04d%02d%02d000000Z) /ModDate (D:%04d%02d%02d000000Z)",
		              y, mo, dd, y, mo, dd);
	}
	tb_buf_puts(b, " >>");
}

/* The tree's title: a first-level heading that opens the document, drawn
 * unnumbered in title type (a template without {{title_block}}). */
static cmark_node *S_title_node(cmark_node *root)
{
	cmark_node *first = root ? cmark_node_first_child(root) : NULL;
	if (first && cmark_node_get_type(first) == CMARK_NODE_HEADING &&
	    cmark_node_get_heading_level(first) == 1)
		return first;
	return NULL;
}

static void S_layout(tb_pdf_doc *st, cmark_node *root)
{
	cmark_node *title_node = S_title_node(root);
	st->title_node = title_node;
	/* number the shallowest remaining heading level "1" */
	st->base_level = 7;
	if (root) {
		for (cmark_node *c = cmark_node_first_child(root); c; c = cmark_node_next(c)) {
			if (c != title_node && cmark_node_get_type(c) == CMARK_NODE_HEADING &&
			    cmark_node_get_heading_level(c) < st->base_level)
				st->base_level = cmark_node_get_heading_level(c);
		}
	}
	if (st->base_level == 7)
		st->base_level = 1;

	tb_pdf_draw_new_page(st);
	if (root)
		S_walk(st, root);
	if (tb_pdf_ok(st))
		tb_pdf_signoff_page(st);
}

/* Every object, numbered and written: catalog, pages, fonts, outline. */
static void S_save(tb_pdf_doc *st, tb_buf *out, bool pdfa)
{
	tb_pdfw w;
	tb_pdfw_init(&w, TB_PDF_DEFLATE_LEVEL);
	/* the fonts' and the object streams' deflate, like the pages', goes
	 * to whichever thread is free */
	w.helper = st->deflate;
	unsigned catalog = tb_pdfw_alloc(&w), pages = tb_pdfw_alloc(&w), info = tb_pdfw_alloc(&w);
	unsigned xmp = pdfa ? tb_pdfw_alloc(&w) : 0, icc = pdfa ? tb_pdfw_alloc(&w) : 0;
	unsigned outlines = st->noutline ? tb_pdfw_alloc(&w) : 0;
	for (size_t i = 0; i < st->nfonts; i++)
		if (st->fonts[i].f && tb_pdf_font_used(st->fonts[i].f))
			st->fonts[i].obj = tb_pdfw_alloc(&w);
	for (size_t i = 0; i < st->npages; i++)
		st->pages[i]->obj = tb_pdfw_alloc(&w);
	/* the annotations' numbers before the catalog, which lists the
	 * signature fields among them */
	size_t nsig = 0;
	for (size_t i = 0; i < st->npages; i++) {
		tb_pdf_page *p = st->pages[i];
		p->annot_obj = w.nobj + 1;
		for (size_t a = 0; a < p->nannots; a++) {
			tb_pdfw_alloc(&w);
			nsig += p->annots[a].sig_role != NULL;
		}
	}
	unsigned tree = tb_pdf_tags_alloc(st, &w);
	tb_buf b;
	tb_buf_init(&b);

	tb_buf_printf(&b, "<< /Type /Catalog /Pages %u 0 R /Lang ", pages);
	const char *lang = st->meta->lang ? st->meta->lang : "en";
	tb_pdfw_text(&b, lang, strlen(lang));
	if (outlines)
		tb_buf_printf(&b, " /Outlines %u 0 R /PageMode /UseOutlines", outlines);
	if (tree)
		tb_buf_printf(&b, " /MarkInfo << /Marked true >> /StructTreeRoot %u 0 R", tree);
	if (pdfa)
		tb_buf_printf(&b, " /Metadata %u 0 R /OutputIntents [<< /Type /OutputIntent /S /GTS_PDFA1"
		              " /OutputConditionIdentifier (sRGB IEC61966-2.1) /Info (sRGB IEC61966-2.1)"
		              " /DestOutputProfile %u 0 R >>]", xmp, icc);
	if (nsig) {
		tb_buf_puts(&b, " /AcroForm << /Fields [");
		const char *sep = "";
		for (size_t i = 0; i < st->npages; i++)
			for (size_t a = 0; a < st->pages[i]->nannots; a++)
				if (st->pages[i]->annots[a].sig_role) {
					tb_buf_printf(&b, "%s%u 0 R", sep, st->pages[i]->annot_obj + (unsigned)a);
					sep = " ";
				}
		tb_buf_puts(&b, "] >>");
	}
	tb_buf_puts(&b, " >>");
	tb_pdfw_obj(&w, catalog, b.ptr, b.len);

	tb_buf_truncate(&b, 0);
	tb_buf_puts(&b, "<< /Type /Pages /Kids [");
	for (size_t i = 0; i < st->npages; i++)
		tb_buf_printf(&b, "%s%u 0 R", i ? " " : "", st->pages[i]->obj);
	tb_buf_printf(&b, "] /Count %zu /MediaBox [0 0 ", st->npages);
	tb_pdfw_num(&b, st->page_w);
	tb_buf_putc(&b, ' ');
	tb_pdfw_num(&b, st->page_h);
	tb_buf_puts(&b, "] >>");
	tb_pdfw_obj(&w, pages, b.ptr, b.len);

	tb_buf_truncate(&b, 0);
	S_info(st, &b);
	tb_pdfw_obj(&w, info, b.ptr, b.len);
	if (pdfa) {
		/* the XMP packet says what Info says, unfiltered so that any tool
		 * finds it; the profile the output intent names */
		tb_buf_truncate(&b, 0);
		char creator[64];
		S_creator(st->meta, creator, sizeof creator);
		tb_pdf_xmp(st->meta, S_SUBJECT, creator, &b);
		tb_pdfw_stream(&w, xmp, "/Type /Metadata /Subtype /XML", b.ptr, b.len, false);
		tb_buf_truncate(&b, 0);
		tb_pdf_icc_srgb(&b);
		tb_pdfw_stream(&w, icc, "/N 3", b.ptr, b.len, true);
	}

	for (size_t i = 0; i < st->npages; i++) {
		tb_pdf_page *p = st->pages[i];
		unsigned body = tb_pdfw_alloc(&w), furniture = p->c.len ? tb_pdfw_alloc(&w) : 0;
		tb_buf_truncate(&b, 0);
		tb_buf_printf(&b, "<< /Type /Page /Parent %u 0 R /Resources << /ProcSet [/PDF /Text]",
		              pages);
		if (p->fonts) {
			tb_buf_puts(&b, " /Font <<");
			for (size_t f = 0; f < st->nfonts; f++)
				if (p->fonts & (1u << f))
					tb_buf_printf(&b, " /F%zu %u 0 R", f + 1, st->fonts[f].obj);
			tb_buf_puts(&b, " >>");
		}
		if (furniture)
			tb_buf_printf(&b, " >> /Contents [%u 0 R %u 0 R]", body, furniture);
		else
			tb_buf_printf(&b, " >> /Contents %u 0 R", body);
		if (tree)
			tb_buf_printf(&b, " /StructParents %zu /Tabs /S", i);
		unsigned first_annot = p->annot_obj;
		if (p->nannots) {
			tb_buf_puts(&b, " /Annots [");
			for (size_t a = 0; a < p->nannots; a++)
				tb_buf_printf(&b, "%s%u 0 R", a ? " " : "", first_annot + (unsigned)a);
			tb_buf_puts(&b, "]");
		}
		tb_buf_puts(&b, " >>");
		tb_pdfw_obj(&w, p->obj, b.ptr, b.len);
		size_t zlen = 0;
		const unsigned char *z = tb_pdf_helper_take(st->deflate, i, &zlen);
		tb_pdfw_stream_deflated(&w, body, "", p->body.ptr, p->body.len, z, zlen);
		if (furniture) {
			z = tb_pdf_helper_take(st->deflate, st->npages + i, &zlen);
			tb_pdfw_stream_deflated(&w, furniture, "", p->c.ptr, p->c.len, z, zlen);
		}
		for (size_t a = 0; a < p->nannots; a++) {
			if (p->annots[a].sig_role)
				S_sig_field(&p->annots[a], first_annot + (unsigned)a, p->obj, &w, &b);
			else
				S_link_annot(st, &p->annots[a], first_annot + (unsigned)a, &w, &b);
		}
	}

	if (outlines) {
		unsigned first = w.nobj + 1;
		for (size_t i = 0; i < st->noutline; i++)
			tb_pdfw_alloc(&w);
		tb_buf_truncate(&b, 0);
		tb_buf_printf(&b, "<< /Type /Outlines /First %u 0 R /Last %u 0 R /Count %zu >>",
		              first, first + (unsigned)st->noutline - 1, st->noutline);
		tb_pdfw_obj(&w, outlines, b.ptr, b.len);
		for (size_t i = 0; i < st->noutline; i++) {
			const tb_pdf_outline_item *o = &st->outline[i];
			tb_buf_truncate(&b, 0);
			tb_buf_puts(&b, "<< /Title ");
			tb_pdfw_text(&b, o->title, strlen(o->title));
			tb_buf_printf(&b, " /Parent %u 0 R", outlines);
			if (i > 0)
				tb_buf_printf(&b, " /Prev %u 0 R", first + (unsigned)i - 1);
			if (i + 1 < st->noutline)
				tb_buf_printf(&b, " /Next %u 0 R", first + (unsigned)i + 1);
			tb_buf_printf(&b, " /Dest [%u 0 R ", st->pages[o->page]->obj);
			if (isnan(o->top)) {
				tb_buf_puts(&b, "/Fit]");
			} else {
				tb_buf_puts(&b, "/FitH ");
				tb_pdfw_num(&b, o->top);
				tb_buf_putc(&b, ']');
			}
			tb_buf_puts(&b, " >>");
			tb_pdfw_obj(&w, first + (unsigned)i, b.ptr, b.len);
		}
	}

	tb_pdf_tags_write(st, &w);
	for (size_t i = 0; i < st->nfonts; i++)
		if (st->fonts[i].obj)
			tb_pdf_font_write(st->fonts[i].f, &w, st->fonts[i].obj);
	tb_buf_release(&b);
	tb_pdfw_finish(&w, catalog, info, out, st->file_sha256);
	tb_pdfw_release(&w);
}

static int S_render(tb_pdf_doc *st, cmark_node *root, const tb_pdf_options *opt, tb_buf *out)
{
	bool letter = opt && opt->paper == TB_PAPER_LETTER;
	st->page_w = letter ? 612 : 595.276;
	st->page_h = letter ? 792 : 841.89;
	st->left = S_MARGIN_PT;
	st->right = st->page_w - S_MARGIN_PT;
	st->top = st->page_h - S_MARGIN_PT - 6;
	st->bottom = S_MARGIN_PT + 6;
	/* the faces every document uses, first, so a missing one fails early */
	tb_pdf_fontset_at(st, TB_PDF_FACE_REGULAR);
	tb_pdf_fontset_at(st, TB_PDF_FACE_BOLD);
	if (!tb_pdf_ok(st))
		return -1;
	S_layout(st, root);
	if (!tb_pdf_ok(st))
		return -1;
	/* the last body is done: every page's is offered */
	tb_pdf_draw_end_page(st);
	S_furniture(st);
	if (!tb_pdf_ok(st))
		return -1;
	/* and the furniture after the bodies, page n's as stream npages + n */
	for (size_t i = 0; i < st->npages; i++)
		tb_pdf_helper_add(st->deflate, st->pages[i]->c.ptr, st->pages[i]->c.len,
		                  TB_PDF_DEFLATE_LEVEL);
	/* every font's subset before a byte is written: one that cannot be
	 * made refuses the document */
	for (size_t i = 0; i < st->nfonts; i++) {
		tb_pdf_font *f = st->fonts[i].f;
		char why[300];
		if (f && tb_pdf_font_used(f) && !tb_pdf_font_prepare(f, why, sizeof why)) {
			tb_diags_add(st->d, TB_DIAG_ERROR, st->fonts[i].loaded, NULL, 0, 0, 0,
			             "cannot embed this font: %s", why);
			return -1;
		}
	}
	S_save(st, out, !(opt && opt->no_pdfa));
	tb_pdf_helper_all_added(st->deflate);
	return 0;
}

int tb_render_pdf_tree(cmark_node *root, const tb_report_meta *meta,
                       tb_pdf_block_fn block, const tb_pdf_options *opt,
                       tb_buf *out, tb_diags *d)
{
	static const tb_report_meta empty_meta;
	tb_pdf_doc *st = tb_xcalloc(1, sizeof *st);
	st->d = d;
	st->meta = meta ? meta : &empty_meta;
	st->block = block;
	st->font_dir = opt && opt->font_dir ? opt->font_dir : S_DEFAULT_FONT_DIR;
	st->file_sha256 = opt ? opt->sha256_hex : NULL;
	tb_pdf_fontset_init(st, opt);
	tb_pdf_tags_init(st);
	/* without another thread's help, this one deflates every page */
	tb_pdf_helper *own = opt && opt->helper ? NULL : tb_pdf_helper_new();
	st->deflate = own ? own : opt->helper;
	int rc = S_render(st, root, opt, out);
	tb_pdf_helper_close(st->deflate);
	tb_pdf_helper_free(own);
	tb_pdf_fontset_release(st);
	tb_pdf_tags_release(st);
	for (size_t i = 0; i < st->npages; i++) {
		tb_buf_release(&st->pages[i]->c);
		tb_buf_release(&st->pages[i]->body);
		free(st->pages[i]->mcid_elem);
		free(st->pages[i]->annots);
		free(st->pages[i]);
	}
	free(st->pages);
	for (size_t i = 0; i < st->noutline; i++)
		free(st->outline[i].title);
	free(st->outline);
	for (size_t i = 0; i < st->nlinks; i++)
		free(st->links[i]);
	free(st->links);
	tb_pdf_cells_release(&st->cells);
	free(st);
	return rc;
}

int tb_render_pdf(const tb_report *r, const tb_pdf_options *opt, tb_buf *out,
                  tb_diags *d)
{
	return tb_render_pdf_tree(tb_report_root(r), tb_report_get_meta(r),
	                          tb_report_block, opt, out, d);
}
