/* report_build.c: the helpers every report section uses (report_build.h):
 * figures formatted for people, blocks, tables filled cell by cell, and the
 * set-up every chart shares. */
#include "report_build.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/fmt.h"
#include "trainbudget/xalloc.h"

/* ---- formatting ------------------------------------------------------ */

static const char *const S_filter_names[TB_RF_NFILTERS] = {
	"sci", "bytes", "gib", "count", "grouped", "days", "money", "pct", "plain", "prob"
};

void tb_rfmt(tb_buf *o, tb_rfilter f, double v, const char *currency)
{
	if (!isfinite(v)) {
		tb_buf_puts(o, "n/a");
		return;
	}
	switch (f) {
	case TB_RF_SCI: tb_fmt_sci(o, v, 3, false); break;
	case TB_RF_BYTES: tb_fmt_bytes(o, v < 0 ? 0 : v); break;
	case TB_RF_GIB: tb_fmt_gib(o, v < 0 ? 0 : v); break;
	case TB_RF_COUNT: tb_fmt_count(o, v); break;
	case TB_RF_GROUPED: tb_fmt_grouped(o, v); break;
	case TB_RF_DAYS: tb_fmt_days(o, v); break;
	case TB_RF_MONEY: tb_fmt_money(o, v, currency && *currency ? currency : "USD"); break;
	case TB_RF_PCT: tb_fmt_pct(o, v); break;
	case TB_RF_PROB: tb_fmt_prob(o, v); break;
	case TB_RF_PLAIN:
	case TB_RF_NFILTERS:
		if (fabs(v) >= 1e6 || (v != 0 && fabs(v) < 1e-3))
			tb_fmt_sci(o, v, 3, false);
		else if (v == 0 && signbit(v))
			tb_buf_puts(o, "-0");   /* as "%.0f" writes it */
		else if (v == floor(v))
			tb_buf_int(o, (long long)v);    /* below 1e6: "%.0f"'s digits */
		else
			tb_fmt_sig(o, v, 3);
		break;
	}
}

char *tb_rfmts(tb_rfilter f, double v, const char *currency)
{
	tb_buf o;
	tb_buf_init(&o);
	tb_rfmt(&o, f, v, currency);
	return tb_buf_detach(&o, NULL);
}

static char *S_vstrf(const char *fmt, va_list ap)
{
	tb_buf o;
	tb_buf_init(&o);
	tb_buf_vprintf(&o, fmt, ap);
	return tb_buf_detach(&o, NULL);
}

void tb_rmoney(tb_buf *o, const tb_report *r, double v)
{
	if (!isfinite(v))
		tb_buf_puts(o, "n/a");
	else
		tb_fmt_money_ref(o, v, tb_rcurrency(r), r->money_ref);
}

char *tb_rmoneys(const tb_report *r, double v)
{
	tb_buf o;
	tb_buf_init(&o);
	tb_rmoney(&o, r, v);
	return tb_buf_detach(&o, NULL);
}

char *tb_rstrf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = S_vstrf(fmt, ap);
	va_end(ap);
	return s;
}

void tb_rcopy(char *dst, size_t cap, const char *src)
{
	size_t n = src ? strlen(src) : 0;
	if (n >= cap) {
		n = cap - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
			n--;
	}
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

const char *tb_rcurrency(const tb_report *r)
{
	if (r->b->time.currency[0])
		return r->b->time.currency;
	return r->sc->inputs.hardware.currency;
}

const char *tb_rfilter_name(size_t i)
{
	return i < TB_RF_NFILTERS ? S_filter_names[i] : NULL;
}
bool tb_rfilter_find(const char *name, tb_rfilter *f)
{
	for (int k = 0; k < TB_RF_NFILTERS; k++)
		if (strcmp(S_filter_names[k], name) == 0) {
			*f = (tb_rfilter)k;
			return true;
		}
	return false;
}

const char *tb_ryesno(bool v) { return v ? "yes" : "no"; }

tb_rfit tb_rfit_of(bool fits, bool fits_known)
{
	return !fits_known ? TB_RFIT_UNKNOWN : fits ? TB_RFIT_YES : TB_RFIT_NO;
}

tb_rfit tb_rmem_fit(const tb_budget *b)
{
	if (b->n_stages <= 0)
		return tb_rfit_of(b->memory.fits, b->memory.fits_known);
	/* a run in stages fits when every stage does */
	tb_rfit f = TB_RFIT_YES;
	for (int i = 0; i < b->n_stages; i++) {
		tb_rfit g = tb_rfit_of(b->stages[i].fits, b->stages[i].fits_known);
		if (g == TB_RFIT_NO)
			return TB_RFIT_NO;
		if (g == TB_RFIT_UNKNOWN)
			f = TB_RFIT_UNKNOWN;
	}
	return f;
}

const char *tb_rfits_word(bool fits, bool fits_known)
{
	static const char *const words[] = { "yes", "no", "unknown" };
	return words[tb_rfit_of(fits, fits_known)];
}

/* ---- blocks ---------------------------------------------------------- */

tb_block *tb_rblock_new(tb_report *r, tb_block_kind kind, cmark_node *into)
{
	tb_block *blk = tb_xcalloc(1, sizeof *blk);
	blk->kind = kind;
	if (r->nblocks == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->blocks = tb_xrealloc(r->blocks, r->cap * sizeof *r->blocks);
	}
	r->blocks[r->nblocks++] = blk;
	cmark_node *n = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK);
	cmark_node_set_on_enter(n, "");
	cmark_node_set_on_exit(n, "");
	cmark_node_set_user_data(n, blk);
	cmark_node_append_child(into, n);
	return blk;
}

void tb_rblock_free(tb_block *blk)
{
	if (!blk)
		return;
	tb_table *t = &blk->table;
	for (size_t i = 0; i < t->ncols * t->nrows; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->numeric);
	free(t->caption);
	tb_chart_release(&blk->chart);
	tb_derivation *dv = &blk->deriv;
	free(dv->title);
	free(dv->formula);
	free(dv->substituted);
	free(dv->result);
	free(dv->source);
	for (size_t i = 0; i < dv->nwhere; i++)
		free(dv->where[i]);
	free(dv->where);
	free(blk);
}

void tb_rnote(cmark_node *into, const char *text)
{
	cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
	cmark_node *e = cmark_node_new(CMARK_NODE_EMPH);
	cmark_node *t = cmark_node_new(CMARK_NODE_TEXT);
	cmark_node_set_literal(t, text);
	cmark_node_append_child(e, t);
	cmark_node_append_child(p, e);
	cmark_node_append_child(into, p);
}

/* ---- tables ---------------------------------------------------------- */

/* Opens a new row when the last one is full. */
static char **S_tab_cell(tb_rtab *tb)
{
	tb_table *t = tb->t;
	if (tb->col == 0) {
		if ((t->nrows + 1) * t->ncols > tb->cap) {
			tb->cap = (t->nrows + 1) * t->ncols * 2;
			t->cells = tb_xrealloc(t->cells, tb->cap * sizeof *t->cells);
		}
		t->nrows++;
	}
	char **cell = &t->cells[(t->nrows - 1) * t->ncols + tb->col];
	tb->col = (tb->col + 1) % t->ncols;
	return cell;
}

void tb_rtab_init(tb_rtab *tb, tb_table *t, const tb_report *r, const char *caption,
                  const char *align, ...)
{
	memset(tb, 0, sizeof *tb);
	tb->t = t;
	tb->r = r;
	tb_buf_init(&tb->cell);
	va_list ap;
	va_start(ap, align);
	size_t n = 0;
	while (va_arg(ap, const char *))
		n++;
	va_end(ap);
	t->ncols = n;
	t->nrows = 0;
	t->numeric = tb_xcalloc(n ? n : 1, sizeof *t->numeric);
	for (size_t i = 0; i < n && align[i]; i++)
		t->numeric[i] = align[i] == 'r';
	t->caption = caption ? tb_xstrdup(caption) : NULL;
	va_start(ap, align);
	for (size_t i = 0; i < n; i++)
		*S_tab_cell(tb) = tb_xstrdup(va_arg(ap, const char *));
	va_end(ap);
}

void tb_rtab_init_v(tb_rtab *tb, tb_table *t, const tb_report *r, const char *caption,
                    const char *align, const char *const *headers, size_t n)
{
	memset(tb, 0, sizeof *tb);
	tb->t = t;
	tb->r = r;
	tb_buf_init(&tb->cell);
	t->ncols = n;
	t->nrows = 0;
	t->numeric = tb_xcalloc(n ? n : 1, sizeof *t->numeric);
	for (size_t i = 0; i < n && align[i]; i++)
		t->numeric[i] = align[i] == 'r';
	t->caption = caption ? tb_xstrdup(caption) : NULL;
	for (size_t i = 0; i < n; i++)
		*S_tab_cell(tb) = tb_xstrdup(headers[i]);
}

void tb_rtab_own(tb_rtab *tb, char *s)
{
	tb_buf clean;
	tb_buf_init(&clean);
	tb_template_put_utf8(&clean, s ? s : "", s ? strlen(s) : 0);
	free(s);
	*S_tab_cell(tb) = tb_buf_detach(&clean, NULL);
}

void tb_rtab_str(tb_rtab *tb, const char *s) { tb_rtab_own(tb, tb_xstrdup(s ? s : "n/a")); }

void tb_rtab_num(tb_rtab *tb, tb_rfilter f, double v)
{
	if (f == TB_RF_MONEY && tb->r && isfinite(v)) {
		tb_buf o;
		tb_buf_init(&o);
		tb_fmt_money_ref(&o, v, tb_rcurrency(tb->r), tb->money_ref > 0 ? tb->money_ref : tb->r->money_ref);
		tb_rtab_own(tb, tb_buf_detach(&o, NULL));
		return;
	}
	tb_rtab_own(tb, tb_rfmts(f, v, tb->r ? tb_rcurrency(tb->r) : NULL));
}

void tb_rtab_delta(tb_rtab *tb, double frac)
{
	char *p = tb_rfmts(TB_RF_PCT, frac, NULL);
	tb_rtab_fmt(tb, "%s%s", frac > 0 ? "+" : "", p);
	free(p);
}

void tb_rtab_share(tb_rtab *tb, double v, double total)
{
	if (total > 0)
		tb_rtab_num(tb, TB_RF_PCT, v / total);
	else
		tb_rtab_str(tb, "n/a");
}

void tb_rtab_fmt(tb_rtab *tb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tb_rtab_own(tb, S_vstrf(fmt, ap));
	va_end(ap);
}

tb_buf *tb_rtab_begin(tb_rtab *tb)
{
	tb_buf_init(&tb->cell);
	return &tb->cell;
}

void tb_rtab_end(tb_rtab *tb)
{
	tb_rtab_own(tb, tb_buf_detach(&tb->cell, NULL));
}

/* ---- charts ---------------------------------------------------------- */

static const tb_rgb S_palette[] = {
	{ 0x1f, 0x77, 0xb4 }, { 0xff, 0x7f, 0x0e }, { 0x2c, 0xa0, 0x2c },
	{ 0xd6, 0x27, 0x28 }, { 0x94, 0x67, 0xbd }, { 0x8c, 0x56, 0x4b },
	{ 0xe3, 0x77, 0xc2 }, { 0x7f, 0x7f, 0x7f },
};
const tb_rgb tb_rchart_ref_grey = { 0x33, 0x33, 0x33 };

void tb_rchart_init(tb_chart_spec *s, tb_chart_kind kind, const char *id,
                    const char *title, const char *x_label, const char *y_label,
                    const char *y_unit, double y_scale)
{
	memset(s, 0, sizeof *s);
	s->kind = kind;
	tb_rcopy(s->id, sizeof s->id, id);
	tb_rcopy(s->title, sizeof s->title, title);
	tb_rcopy(s->x_label, sizeof s->x_label, x_label);
	tb_rcopy(s->y_label, sizeof s->y_label, y_label);
	tb_rcopy(s->y_unit, sizeof s->y_unit, y_unit);
	s->y_scale = y_scale;
}

void tb_rchart_series(tb_chart_spec *s, const char *name)
{
	if (s->nseries >= TB_CHART_MAX_SERIES)
		return;
	tb_chart_series *se = &s->series[s->nseries];
	tb_rcopy(se->name, sizeof se->name, name);
	se->color = S_palette[s->nseries % (sizeof S_palette / sizeof S_palette[0])];
	s->nseries++;
}

size_t tb_rchart_ncats(tb_chart_spec *s, int n, int max)
{
	if (n > max)
		n = max;
	if (n > TB_CHART_MAX_CATS)
		n = TB_CHART_MAX_CATS;
	s->ncats = n > 0 ? (size_t)n : 0;
	return s->ncats;
}

tb_chart_ref *tb_rchart_add_ref(tb_chart_spec *s, double value, tb_rgb color)
{
	if (s->nrefs >= TB_CHART_MAX_REFS)
		return NULL;
	tb_chart_ref *ref = &s->refs[s->nrefs++];
	memset(ref, 0, sizeof *ref);
	ref->value = value;
	ref->color = color;
	return ref;
}

tb_chart_ref *tb_rchart_ref(tb_chart_spec *s, double value, const char *prefix,
                            tb_rfilter f, double shown, tb_rgb color)
{
	tb_chart_ref *ref = tb_rchart_add_ref(s, value, color);
	if (!ref)
		return NULL;
	tb_buf o;
	tb_buf_init(&o);
	tb_buf_puts(&o, prefix);
	tb_rfmt(&o, f, shown, NULL);
	tb_rcopy(ref->label, sizeof ref->label, o.ptr);
	tb_buf_release(&o);
	return ref;
}
